/* The explain matcher's insides, shared by its rooms (internal to src/explain): the pattern
 * set (patterns.c), a scan's state (stream.c), the rules for one line (match.c, codes.c) and
 * what is settled after the scan (fold.c). */
#ifndef CUDOCTOR_EXPLAIN_SCAN_H
#define CUDOCTOR_EXPLAIN_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "explain/ac.h"
#include "explain/block.h"
#include "explain/eras.h"
#include "explain/explain.h"
#include "explain/ggml_mem.h"
#include "explain/newlines.h"
#include "explain/premise.h"
#include "explain/scan_line.h"
#include "explain/tgi_mem.h"

#define LINE_HITS BLOCK_LINE_HITS
#define ERA_CUDA_MAX 16  /* "cuda" offsets handed to eras_line; more and it searches the line */
#define CTX_LINES 8      /* a CUDA or GPU mention makes the next lines a CUDA context */
#define OOM_WINDOW 6144  /* an OOM message and what follows it */
#define MAX_PENDING 4
#define STAGE_BYTES (2u << 20) /* a stage: a block scanned on threads */
#define STAGES 3
#define ASIDE_BYTES (1u << 20)

/* ---- the pattern set, built once from the kb ---- */

enum pat_kind { PK_ERROR, PK_PART, PK_NAME, PK_NUMKEY, PK_CUDA, PK_GPU, PK_NCCL, PK_SUPPORTS, PK_CC_OLD, PK_WSL, PK_TORCH,
		PK_LAUNCH, PK_RUNTIME_VERSION, PK_REGION, PK_WINDOWS, PK_LINUX, PK_EMBEDDED, PK_ROCM, PK_GGML, PK_TGI,
		PK_FACT, PK_PLATFORM, PK_HINT };

struct pat {
	enum pat_kind kind;
	const struct kb_error *error; /* PK_ERROR */
	size_t msg, part;             /* PK_PART; PK_NCCL: msg is the anchor's index; PK_REGION: the region */
};

struct pattern_set {
	bool built;
	struct ac ac;
	struct pat *pats;
	const char **text; /* each pattern's text (kb strings and the literals here) */
	size_t n;
};

/* built once (patterns.c) and only read after: the scanning threads share it */
extern struct pattern_set pat_set;

/* ---- the scanner ---- */

struct pending {
	size_t match;   /* index into the result */
	char *buf;
	size_t len;
	size_t lines;
};

struct explain_scan {
	struct explain_result r;
	uint32_t state;
	const struct ac_hit *hits; /* the line's: own's, or a block's records' */
	struct ac_hit own[LINE_HITS];
	size_t n_hits;
	char *carry;            /* a line that began in an earlier piece */
	size_t carry_len;
	size_t bytes, lines;    /* consumed so far; lines: complete lines seen */
	size_t ctx_until;       /* lines up to this number are in a CUDA context */
	enum explain_region region; /* the region the last marker opened (context.h) */
	size_t region_line;     /* the line of that marker, else 0 */
	bool wsl;               /* the text mentions WSL2 */
	bool windows;           /* a Windows marker was seen (context.h) */
	bool linux_seen;        /* a Linux marker was seen (context.h) */
	bool embedded;          /* ComfyUI portable's python_embeded was seen (context.h) */
	bool rocm;              /* a ROCm marker was seen (context.h) */
	struct premise premise; /* what else the lines said (premise.h) */
	size_t launch_line;     /* the last line that speaks of a kernel launch, else 0 */
	int launch_block;       /* the threads per block that line gives, else 0 */
	struct pending pend[MAX_PENDING];
	size_t n_pend;
	struct nccl_log nccl;
	struct ggml_mem ggml;    /* llama.cpp's memory lines so far (ggml_mem.h) */
	struct tgi_mem tgi;      /* TGI's token budgets so far (tgi_mem.h; zeroed: none yet) */
	struct line l;
	unsigned char *msg_seen; /* per message: bits of the parts seen on this line */
	bool *nccl_hit;          /* per NCCL anchor: seen on this line (the automaton found it) */
	bool by_line;            /* every line through the automaton (CUDOCTOR_EXPLAIN_SCAN=lines) */
	bool simd;               /* the first stage vectorised where the CPU can */
	enum newline_path nl;    /* how newlines are counted */
	struct era_state era;    /* the CUDA release the text names (eras.h) */
	struct block here;       /* the records of lines taken on this thread */
	/* Threaded (docs/explain.md): pieces are gathered into a stage of stage_cap bytes; its
	 * whole lines are scanned on parts threads while this thread takes the stage before it
	 * and the next is filled (a ring of three); a line longer than a stage is taken here */
	struct stage {
		char *buf;
		size_t len;
		struct block blk;
		size_t base;     /* the stream offset of buf[0] */
		bool busy;       /* scanned or being scanned, not yet taken */
	} stage[STAGES];
	int fill;                /* the stage pieces are added to; the one after it is the oldest */
	size_t parts;            /* threads a stage is scanned on; 0: no stages */
	size_t stage_cap;
	size_t staged;           /* the stream offset after what the stages hold */
	char *aside;             /* a piece read where no stage takes it */
	int failed;
};

/* patterns.c: builds pat_set once (the kb loaded first). CD_OK, CD_ENOMEM or the kb's error. */
int explain_patterns_build(char *err);

/* codes.c: errors recognised by their status names and numbers */
const char *const *explain_name_prefixes(size_t *n);
const char *const *explain_number_keys(size_t *n);
int explain_match_names(struct explain_result *r, const struct line *l, bool *found);
int explain_match_numbers(struct explain_result *r, const struct line *l, bool only_codes);
void explain_note_old_number(struct explain_result *r, const struct line *l, const struct kb_error *e);

/* match.c: the rules for one line whose hits are in sc->hits, and what they share */
int explain_line_rules(struct explain_scan *sc);
bool explain_is_ident(int c);
/* The match for finding, created at the first hit, the line kept. NULL on OOM. */
struct explain_match *explain_hit(struct explain_result *r, const char *finding, enum explain_via via,
				  const struct line *l);
void explain_add_line(struct explain_match *m, const char *t);
const char *explain_error_finding(const struct kb_error *e);
void explain_pend_close(struct explain_scan *sc, size_t i);
void explain_pend_feed(struct explain_scan *sc, const char *s, size_t len);
bool explain_is_invalid_value(const struct explain_match *m);
void explain_tie_to_launch(struct explain_match *m);

/* fold.c: the matches settled once the text has ended */
int explain_settle(struct explain_scan *sc); /* CD_OK or CD_ENOMEM */

#endif
