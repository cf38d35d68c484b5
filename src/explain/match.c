/* The explain matcher: one pass over a text or a log of any size. Every catalogue string
 * (and its older wordings), message part and anchor is found by one automaton (ac.h); only
 * the lines it flags are looked at closely, and every recognised error or framework message
 * is folded into one match per finding, with the first and last line and a count. The text
 * is untrusted: every scan is bounded by the line it is on. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "explain/ac.h"
#include "explain/block.h"
#include "explain/explain.h"
#include "explain/ggml_mem.h"
#include "explain/premise.h"
#include "explain/text_platform.h"
#include "explain/tgi_mem.h"
#include "explain/newlines.h"
#include "explain/scan_line.h"
#include "os/env.h"
#include "os/host.h"
#include "util/cpu.h"
#include "util/task.h"
#include "util/err.h"
#include "util/safetext.h"
#include "util/sort.h"

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
		PK_PLATFORM, PK_HINT };

struct pat {
	enum pat_kind kind;
	const struct kb_error *error; /* PK_ERROR */
	size_t msg, part;             /* PK_PART; PK_NCCL: msg is the anchor's index; PK_REGION: the region */
};

static struct {
	bool built;
	struct ac ac;
	struct pat *pats;
	const char **text; /* each pattern's text (kb strings and the literals here) */
	size_t n;
} P;

struct pat_list {
	const char **text;
	struct pat *pats;
	size_t n, cap;
};

static bool add_pat(struct pat_list *pl, const char *text, struct pat p)
{
	if (pl->n == pl->cap) {
		size_t ncap = pl->cap ? pl->cap * 2 : 256;
		const char **nt = realloc(pl->text, ncap * sizeof(*nt));

		if (!nt)
			return false;
		pl->text = nt;
		struct pat *np = realloc(pl->pats, ncap * sizeof(*np));

		if (!np)
			return false;
		pl->pats = np;
		pl->cap = ncap;
	}
	pl->text[pl->n] = text;
	pl->pats[pl->n++] = p;
	return true;
}

/* A catalogue string is matched as text only where a runtime or driver prints it. */
static bool matchable(const struct kb_error *e)
{
	return e->code != 0 && (e->api == KB_API_RUNTIME || e->api == KB_API_DRIVER) &&
	       strcmp(e->string_source, "header-doc") != 0 && strlen(e->string) >= 8;
}

/* the words a CUDA error number follows ("CUDA error 209", "code=209(", "err: 999") */
static const char *const number_keys[] = { "error", "failure", "code=", "code #", "returned", "err:", "err=",
					   "status:" };

/* the status names of the runtime, the driver and every library (their lines need not say CUDA) */
static const char *const name_prefixes[] = {
	"cudaError", "CUDA_ERROR_", "CUBLAS_STATUS_", "CUDNN_STATUS_", "CUFFT_", "CURAND_STATUS_",
	"CUSOLVER_STATUS_", "CUSPARSE_STATUS_", "NVRTC_ERROR_", "NVJITLINK_ERROR_",
};

static int build_patterns(char *err)
{
	static const char *const gpu_words[] = { "nvidia", "gpu" };
	static const char *const wsl_words[] = { "/usr/lib/wsl", "wsl2", "microsoft-standard" };
	/* a kernel launch in the text: an invalid argument beside it is the launch's */
	static const char *const launch_words[] = { "<<<", "launch", "cudaGetLastError", "cudaPeekAtLastError",
						    "blockDim", "threads per block" };
	struct pat_list pl = { 0 };
	const struct region_marker *region;
	const char *const *windows, *const *linux_words, *const *rocm;
	const struct tp_marker *platform;
	const struct premise_marker *hint;
	size_t n_region, n_windows, n_linux, n_rocm, n_platform, n_hint;
	bool ok = true;
	int rc;

	for (size_t i = 0; i < kb_error_count() && ok; i++) {
		const struct kb_error *e = kb_error_at(i);
		bool dup = false;

		if (!matchable(e))
			continue;
		/* a runtime and a driver code often share a string: the first (runtime) row speaks */
		for (size_t k = 0; k < pl.n && !dup; k++)
			dup = pl.pats[k].kind == PK_ERROR && strcmp(pl.text[k], e->string) == 0;
		if (!dup)
			ok = add_pat(&pl, e->string, (struct pat){ PK_ERROR, e, 0, 0 });
	}
	for (size_t i = 0; i < kb_wording_count() && ok; i++)
		ok = add_pat(&pl, kb_wording_at(i)->string, (struct pat){ PK_ERROR, kb_wording_at(i)->error, 0, 0 });
	for (size_t i = 0; i < kb_message_count() && ok; i++)
		for (size_t k = 0; k < kb_message_at(i)->n_parts && ok; k++)
			ok = add_pat(&pl, kb_message_at(i)->parts[k], (struct pat){ PK_PART, NULL, i, k });
	for (size_t i = 0; i < sizeof(name_prefixes) / sizeof(name_prefixes[0]) && ok; i++)
		ok = add_pat(&pl, name_prefixes[i], (struct pat){ PK_NAME, NULL, 0, 0 });
	ok = ok && add_pat(&pl, "error_", (struct pat){ PK_NAME, NULL, 0, 0 }); /* Julia's ERROR_INVALID_DEVICE */
	for (size_t i = 0; i < sizeof(number_keys) / sizeof(number_keys[0]) && ok; i++)
		ok = add_pat(&pl, number_keys[i], (struct pat){ PK_NUMKEY, NULL, 0, 0 });
	ok = ok && add_pat(&pl, " vs. 0)", (struct pat){ PK_NUMKEY, NULL, 0, 0 });
	ok = ok && add_pat(&pl, "cuda", (struct pat){ PK_CUDA, NULL, 0, 0 });
	/* deviceQuery's "Runtime Version": a release marker (explain/eras.c) */
	ok = ok && add_pat(&pl, "runtime version", (struct pat){ PK_RUNTIME_VERSION, NULL, 0, 0 });
	for (size_t i = 0; i < 2 && ok; i++)
		ok = add_pat(&pl, gpu_words[i], (struct pat){ PK_GPU, NULL, 0, 0 });
	for (size_t i = 0; i < 3 && ok; i++)
		ok = add_pat(&pl, wsl_words[i], (struct pat){ PK_WSL, NULL, 0, 0 });
	ok = ok && add_pat(&pl, "torch", (struct pat){ PK_TORCH, NULL, 0, 0 });
	for (size_t i = 0; i < sizeof(launch_words) / sizeof(launch_words[0]) && ok; i++)
		ok = add_pat(&pl, launch_words[i], (struct pat){ PK_LAUNCH, NULL, 0, 0 });
	ok = ok && add_pat(&pl, "supports cuda capabilities ", (struct pat){ PK_SUPPORTS, NULL, 0, 0 });
	ok = ok && add_pat(&pl, " which is of cuda capability ", (struct pat){ PK_CC_OLD, NULL, 0, 0 });
	for (size_t i = 0; i < nccl_log_anchor_count() && ok; i++)
		ok = add_pat(&pl, nccl_log_anchor(i), (struct pat){ PK_NCCL, NULL, i, 0 });
	for (size_t i = 0; i < ggml_mem_anchor_count() && ok; i++)
		ok = add_pat(&pl, ggml_mem_anchor(i), (struct pat){ PK_GGML, NULL, i, 0 });
	for (size_t i = 0; i < tgi_mem_anchor_count() && ok; i++)
		ok = add_pat(&pl, tgi_mem_anchor(i), (struct pat){ PK_TGI, NULL, i, 0 });
	region = explain_region_markers(&n_region);
	for (size_t i = 0; i < n_region && ok; i++)
		ok = add_pat(&pl, region[i].text, (struct pat){ PK_REGION, NULL, (size_t)region[i].region, 0 });
	windows = explain_windows_markers(&n_windows);
	for (size_t i = 0; i < n_windows && ok; i++)
		ok = add_pat(&pl, windows[i], (struct pat){ PK_WINDOWS, NULL, 0, 0 });
	ok = ok && add_pat(&pl, EXPLAIN_EMBEDDED_PYTHON, (struct pat){ PK_EMBEDDED, NULL, 0, 0 });
	linux_words = explain_linux_markers(&n_linux);
	for (size_t i = 0; i < n_linux && ok; i++)
		ok = add_pat(&pl, linux_words[i], (struct pat){ PK_LINUX, NULL, 0, 0 });
	rocm = explain_rocm_markers(&n_rocm);
	for (size_t i = 0; i < n_rocm && ok; i++)
		ok = add_pat(&pl, rocm[i], (struct pat){ PK_ROCM, NULL, 0, 0 });
	platform = text_platform_markers(&n_platform);
	for (size_t i = 0; i < n_platform && ok; i++)
		ok = add_pat(&pl, platform[i].text, (struct pat){ PK_PLATFORM, NULL, i, 0 });
	hint = premise_markers(&n_hint);
	for (size_t i = 0; i < n_hint && ok; i++)
		ok = add_pat(&pl, hint[i].text, (struct pat){ PK_HINT, NULL, hint[i].hint, 0 });
	if (!ok) {
		free(pl.text);
		free(pl.pats);
		return cd_fail(err, CD_ENOMEM, "out of memory");
	}
	rc = ac_build(pl.text, pl.n, &P.ac, err);
	if (rc != CD_OK) {
		free(pl.text);
		free(pl.pats);
		return rc;
	}
	P.text = pl.text;
	P.pats = pl.pats;
	P.n = pl.n;
	P.built = true;
	return CD_OK;
}

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

static bool is_ident(int c)
{
	return isalnum(c) || c == '_';
}

static void trim_copy(char *dst, size_t cap, const struct line *l)
{
	size_t a = 0, b = l->len;

	while (a < b && isspace((unsigned char)l->s[a]))
		a++;
	while (b > a && isspace((unsigned char)l->s[b - 1]))
		b--;
	/* pasted text is anyone's bytes (CJK, tqdm's bars, a cut character, escape sequences):
	 * evidence is printed and put in JSON, so it is safe text, cut between characters */
	safe_text(dst, cap, l->s + a, b - a, SAFE_TEXT_KEEP_NEWLINES);
}

/* a matched line, once, among the few kept */
static void add_line(struct explain_match *m, const char *t)
{
	for (size_t i = 0; i < m->n_lines; i++)
		if (strcmp(m->lines[i], t) == 0)
			return;
	if (m->n_lines < EXPLAIN_MAX_LINES)
		memcpy(m->lines[m->n_lines++], t, EXPLAIN_LINE_MAX);
}

static void keep_line(struct explain_match *m, const struct line *l)
{
	char t[EXPLAIN_LINE_MAX];

	trim_copy(t, sizeof(t), l);
	memcpy(m->last, t, sizeof(t));
	add_line(m, t);
}

/* The match for finding, created at the first hit. NULL on OOM. */
static struct explain_match *hit(struct explain_result *r, const char *finding, enum explain_via via,
				 const struct line *l)
{
	struct explain_match *m;

	for (size_t i = 0; i < r->n; i++) {
		if (strcmp(r->m[i].finding, finding) == 0) {
			if (r->m[i].last_offset != l->offset)
				r->m[i].count++;
			r->m[i].last_offset = l->offset;
			r->m[i].last_line = l->no;
			keep_line(&r->m[i], l);
			return &r->m[i];
		}
	}
	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 8;
		struct explain_match *nm = realloc(r->m, ncap * sizeof(*nm));

		if (!nm)
			return NULL;
		r->m = nm;
		r->cap = ncap;
	}
	m = &r->m[r->n++];
	memset(m, 0, sizeof(*m));
	m->finding = finding;
	m->via = via;
	m->offset = m->last_offset = l->offset;
	m->line = m->last_line = l->no;
	m->count = 1;
	m->code_seen = -1;
	m->region = l->region;
	keep_line(m, l);
	return m;
}

static const char *error_finding(const struct kb_error *e)
{
	return e->finding ? e->finding : "cuda-error";
}

/* ---- nvcc archs ---- */

const char *explain_nvcc_arch_finding(struct kb_arch a)
{
	const struct kb_toolkit *first, *last, *newest = kb_toolkit_newest_known();
	struct kb_arch plain = { a.num, 0 };

	if (kb_arch_toolkit_range(a, &first, &last) == CD_OK)
		return last ? "arch-dropped-by-toolkit" : "toolkit-cannot-target-gpu";
	/* an 'a'/'f' variant the tables lack: judge by its plain arch */
	if (a.suffix && kb_arch_toolkit_range(plain, &first, &last) == CD_OK)
		return last ? "arch-dropped-by-toolkit" : "toolkit-cannot-target-gpu";
	/* older than every arch the oldest toolkit knows: removed long ago (Fermi) */
	if (newest && newest->n_archs && a.num < kb_toolkit_at(0)->archs[0].num)
		return "arch-dropped-by-toolkit";
	return "toolkit-cannot-target-gpu";
}

/* ---- context ---- */

/* isspace in the C locale (explain never sets another), without the table lookup */
static bool c_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* "cuda" counts unless it is part of a path or a file name ("/usr/local/cuda-12.4/bin",
 * "ggml-cuda.cu" beside a path): the word a path holds says nothing about an error */
static bool cuda_outside_path(const struct line *l, size_t at)
{
	/* out from the word both ways to a blank; a separator on the way ends it at once
	 * ("torch/cuda/__init__.py" is decided one byte before) */
	for (size_t a = at; a > 0 && !c_space(l->s[a - 1]); a--)
		if (l->s[a - 1] == '/' || l->s[a - 1] == '\\')
			return false;
	for (size_t b = at; b < l->len && !c_space(l->s[b]); b++)
		if (l->s[b] == '/' || l->s[b] == '\\')
			return false;
	return true;
}

/* ---- names ---- */

static void note_old_number(struct explain_result *r, const struct line *l, const struct kb_error *e);


/* "e == cudaSuccess || e == cudaErrorCudartUnloading": a name compared against, not raised */
static bool after_comparison(const struct line *l, size_t start)
{
	size_t i = start;

	while (i > 0 && l->s[i - 1] == ' ')
		i--;
	return i >= 2 && l->s[i - 1] == '=' && (l->s[i - 2] == '=' || l->s[i - 2] == '!');
}

static int match_names(struct explain_result *r, const struct line *l, bool *found)
{
	for (size_t i = 0; i < l->len;) {
		char tok[64];
		size_t n = 0, start = i;
		const struct kb_error *e = NULL;
		struct explain_match *m;
		bool known = false;

		if (!is_ident((unsigned char)l->s[i]) || (i > 0 && is_ident((unsigned char)l->s[i - 1]))) {
			i++;
			continue;
		}
		while (i < l->len && is_ident((unsigned char)l->s[i])) {
			if (n + 1 < sizeof(tok))
				tok[n++] = l->s[i];
			i++;
		}
		tok[n] = '\0';
		if (i - start >= sizeof(tok) || n < 6 || after_comparison(l, start))
			continue;
		for (size_t k = 0; k < sizeof(name_prefixes) / sizeof(name_prefixes[0]) && !known; k++)
			known = strncmp(tok, name_prefixes[k], strlen(name_prefixes[k])) == 0;
		if (known) {
			e = kb_error_by_name(tok);
		} else if (strncmp(tok, "ERROR_", 6) == 0 && l->has_cuda) {
			/* Julia's CUDAdrv prints "ERROR_INVALID_DEVICE" */
			char full[72] = "CUDA_";

			strcat(full, tok);
			e = kb_error_by_name(full);
		}
		/* NCCL's result codes are read by the NCCL log reader and judged by rules/nccl */
		if (!e || e->code == 0 || e->api == KB_API_NCCL)
			continue;
		m = hit(r, error_finding(e), VIA_NAME, l);
		if (!m)
			return CD_ENOMEM;
		if (!m->error)
			m->error = e;
		note_old_number(r, l, e);
		*found = true;
	}
	return CD_OK;
}

/* ---- numbers ---- */

/* "CUDA error 222", "error = 48", "error #35", "code=802(", "returned 35", "(35 vs. 0)",
 * "CUDA failure 35", "Error 804:", "error (10)", "err: 999". Returns the number or -1. */
static int number_after(const struct line *l, size_t i)
{
	int v = 0, digits = 0;

	while (i < l->len && (l->s[i] == ' ' || l->s[i] == '=' || l->s[i] == '#' || l->s[i] == '(' ||
			      l->s[i] == ':'))
		i++;
	while (i < l->len && isdigit((unsigned char)l->s[i]) && digits < 6) {
		v = v * 10 + (l->s[i++] - '0');
		digits++;
	}
	/* "ERROR 06-26 23:10" is a date, "error 1.5" a version: not codes */
	if (!digits || (i < l->len && (isdigit((unsigned char)l->s[i]) || l->s[i] == '.' ||
				       l->s[i] == '-' || l->s[i] == '/' ||
				       isalpha((unsigned char)l->s[i]))))
		return -1;
	return v;
}

/* only_codes: just "error code N" / "status: N" (a line under a CUDA error header) */
static int numbers_on_line(const struct line *l, int *out, int max, bool only_codes)
{
	const char *const *keys = number_keys;
	int n = 0;

	for (size_t k = 0; k < sizeof(number_keys) / sizeof(number_keys[0]); k++) {
		const char *key = keys[k];
		size_t klen = strlen(key);

		for (size_t i = 0; i + klen <= l->len && n < max; i++) {
			int v;
			bool code_form;

			if (l->low[i] != key[0] || strncmp(l->low + i, key, klen) != 0)
				continue;
			if (i > 0 && isalpha((unsigned char)l->low[i - 1]) && (k < 2 || k >= 5) &&
			    !(i >= 4 && strncmp(l->low + i - 4, "cuda", 4) == 0))
				continue; /* "cudaError..." is a name, "xerror" is not ours */
			code_form = k == 7 || (k == 0 && strncmp(l->low + i + klen, " code", 5) == 0);
			if (only_codes && !code_form)
				continue;
			/* "error code 35", "Error code: 98" */
			if (k == 0 && strncmp(l->low + i + klen, " code", 5) == 0)
				v = number_after(l, i + klen + 5);
			else
				v = number_after(l, i + klen);
			if (v >= 0)
				out[n++] = v;
		}
	}
	/* "(35 vs. 0)" from glog's CHECK_EQ on cudaSuccess */
	for (size_t i = 0; !only_codes && i + 8 < l->len && n < max; i++) {
		if (l->s[i] == '(' && isdigit((unsigned char)l->s[i + 1])) {
			size_t j = i + 1;
			int v = 0;

			while (j < l->len && isdigit((unsigned char)l->s[j]) && v < 100000)
				v = v * 10 + (l->s[j++] - '0');
			if (l->len - j >= 7 && strncmp(l->s + j, " vs. 0)", 7) == 0)
				out[n++] = v;
		}
	}
	return n;
}

static int match_numbers(struct explain_result *r, const struct line *l, bool only_codes)
{
	int nums[8];
	int n = numbers_on_line(l, nums, 8, only_codes);

	for (int i = 0; i < n; i++) {
		struct era_reading rd;
		const struct kb_error *e = eras_number(nums[i], &rd);
		struct explain_match *m;

		if (!e || e->code == 0)
			continue;
		m = hit(r, error_finding(e), VIA_NUMBER, l);
		if (!m)
			return CD_ENOMEM;
		if (!m->error)
			m->error = e;
		if (m->error == e && m->era.how == ERA_NONE)
			m->era = rd;
	}
	return CD_OK;
}

/* A number printed beside a recognised string or name that is that error's pre-10.1 runtime
 * number (48 for 209, 7 for 701): kept as evidence (eras.c). */
static void note_old_number(struct explain_result *r, const struct line *l, const struct kb_error *e)
{
	int nums[8];
	int n = numbers_on_line(l, nums, 8, false);

	for (size_t i = 0; i < r->n && n > 0; i++)
		if (r->m[i].error == e || (r->m[i].last_line == l->no && strcmp(r->m[i].finding, error_finding(e)) == 0))
			eras_note_named(&r->m[i], e, nums, n);
}

/* ---- pending extractions: an OOM message's numbers follow it ---- */

static int pend_start(struct explain_scan *sc, size_t match, const struct line *l)
{
	struct pending *p;

	if (sc->n_pend == MAX_PENDING)
		return CD_OK;
	p = &sc->pend[sc->n_pend];
	p->buf = malloc(OOM_WINDOW);
	if (!p->buf)
		return CD_ENOMEM;
	p->match = match;
	p->len = l->len < OOM_WINDOW ? l->len : OOM_WINDOW;
	memcpy(p->buf, l->s, p->len);
	p->lines = 1;
	sc->n_pend++;
	return CD_OK;
}

static void pend_close(struct explain_scan *sc, size_t i)
{
	struct pending *p = &sc->pend[i];
	struct explain_match *m = &sc->r.m[p->match];

	struct oom_message o;

	if (oom_parse(p->buf, p->len, &o) == CD_OK) {
		if (!m->has_oom)
			m->oom = o;
		else
			oom_merge(&m->oom, &o);
		m->has_oom = true;
	}
	free(p->buf);
	sc->pend[i] = sc->pend[--sc->n_pend];
}

/* every line (matched or not) goes to the open windows */
static void pend_feed(struct explain_scan *sc, const char *s, size_t len)
{
	for (size_t i = sc->n_pend; i-- > 0;) {
		struct pending *p = &sc->pend[i];
		size_t room = OOM_WINDOW - p->len;

		if (room > 1) {
			p->buf[p->len++] = '\n';
			room--;
			if (len < room)
				room = len;
			memcpy(p->buf + p->len, s, room);
			p->len += room;
		}
		if (++p->lines > 40 || p->len >= OOM_WINDOW || len == 0)
			pend_close(sc, i);
	}
}

/* ---- messages ---- */

static struct explain_match *last_with(struct explain_result *r, const char *extract, size_t line, size_t within)
{
	for (size_t i = r->n; i-- > 0;) {
		struct explain_match *m = &r->m[i];

		if (m->message && strcmp(m->message->extract, extract) == 0 && m->last_line + within >= line)
			return m;
	}
	return NULL;
}

/* The architecture nvcc quotes ("Unsupported gpu architecture 'compute_120'", "invalid value
 * 'sm_89'"): 1 with *a set, 0 when the line quotes none, -1 when the quoted name is no
 * architecture */
static int nvcc_arch_value(const struct line *l, struct kb_arch *a)
{
	long at = line_find(l, "architecture '");
	const char *q;

	if (at < 0)
		at = line_find(l, "value '");
	if (at < 0)
		return 0;
	q = memchr(l->s + at, '\'', l->len - (size_t)at);
	if (!q)
		return 0;
	return ex_arch_at(q + 1, l->s + l->len, a) ? 1 : -1;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

static int match_messages(struct explain_scan *sc, const struct line *l, bool *found)
{
	struct explain_result *r = &sc->r;
	size_t cand[LINE_HITS], n_cand = 0, n_uniq = 0;
	bool retried = false;

	/* only the messages this line's hits touched can be whole, taken in the table's order
	 * as a walk over every message would (a log's lines would each pay for the whole table) */
	for (size_t h = 0; h < sc->n_hits && n_cand < LINE_HITS; h++)
		if (P.pats[sc->hits[h].pat].kind == PK_PART)
			cand[n_cand++] = P.pats[sc->hits[h].pat].msg;
	cd_qsort(cand, n_cand, sizeof(cand[0]), cmp_size);
	for (size_t c = 0; c < n_cand; c++)
		if (n_uniq == 0 || cand[n_uniq - 1] != cand[c])
			cand[n_uniq++] = cand[c];
	n_cand = n_uniq;
	/* nvcc refusing a name that is no architecture ('compute_N', 'compute_', 'compute_No CUDA
	 * devices found.': a build script whose GPU detection failed, a docker build without a GPU)
	 * is the build's own mistake: no toolkit knows such a name, and the words inside the quotes
	 * are the build's argument, not a message of the stack */
	for (size_t c = 0; c < n_cand; c++) {
		const struct kb_message *msg = kb_message_at(cand[c]);
		struct kb_arch a;

		if (strcmp(msg->extract, "nvcc_arch") == 0 && sc->msg_seen[cand[c]] == (1u << msg->n_parts) - 1 &&
		    nvcc_arch_value(l, &a) < 0) {
			*found = true;
			return CD_OK;
		}
	}
	/* an allocator that says its failed attempt is not a failure (TensorFlow's BFC retries after
	 * freeing) makes the line's out-of-memory message no finding */
	for (size_t c = 0; c < n_cand; c++) {
		const struct kb_message *msg = kb_message_at(cand[c]);

		retried |= strcmp(msg->extract, "retried") == 0 && sc->msg_seen[cand[c]] == (1u << msg->n_parts) - 1;
	}
	for (size_t c = 0; c < n_cand; c++) {
		size_t i = cand[c];
		const struct kb_message *msg = kb_message_at(i);
		const char *finding = msg->finding, *x = msg->extract;
		struct explain_match *m;
		struct kb_arch a;
		bool have_a = false;
		char lib[96] = "";

		if (sc->msg_seen[i] != (1u << msg->n_parts) - 1)
			continue;
		if (strcmp(x, "retried") == 0 || (retried && strcmp(x, "oom") == 0))
			continue;
		if (strcmp(x, "nvcc_arch") == 0) {
			have_a = nvcc_arch_value(l, &a) > 0;
			if (have_a)
				finding = explain_nvcc_arch_finding(a);
		} else if (strcmp(x, "loader") == 0) {
			finding = ex_loader(l, finding, lib, sizeof(lib));
			if (!finding)
				continue;
		}
		m = hit(r, finding, VIA_MESSAGE, l);
		if (!m)
			return CD_ENOMEM;
		if (strcmp(x, "fallback") != 0)
			*found = true;
		if (!m->message)
			m->message = msg;
		if (have_a && !m->has_arch) {
			m->arch = a;
			m->has_arch = true;
		}
		if (lib[0] && !m->library[0]) {
			memcpy(m->library, lib, sizeof(m->library));
			m->torch_dll = ex_torch_dll(l, lib);
		}
		if (strcmp(x, "torch_cc") == 0)
			ex_torch_cc(m, l);
		else if (strcmp(x, "xid") == 0)
			ex_xid(m, l);
		else if (strcmp(x, "driver_found") == 0)
			ex_driver_found(m, l);
		else if (strcmp(x, "lib_versions") == 0)
			ex_lib_versions(m, l);
		else if (strcmp(x, "gpu_cc") == 0)
			ex_gpu_cc(m, l);
		else if (strcmp(x, "vllm_budget") == 0)
			ex_vllm_budget(m, l);
		else if (strcmp(x, "host_mem") == 0)
			ex_host_mem(m, l);
		else if (strcmp(x, "ollama_vram") == 0)
			ex_ollama_vram(m, l);
		else if (strcmp(x, "tgi") == 0 && !m->has_tgi)
			m->has_tgi = tgi_mem_oom(&sc->tgi, l->s, l->len, &m->tgi);
		else if (strcmp(x, "ggml_oom") == 0 && !m->has_oom) {
			/* llama.cpp's failed cudaMalloc, judged by what its log said of the device */
			if (ggml_mem_oom(&sc->ggml, l->s, l->len, &m->oom)) {
				m->has_oom = true;
				m->ggml_ctx = sc->ggml.n_ctx;
				ggml_mem_plan(&sc->ggml, m->ggml_plan, sizeof(m->ggml_plan));
			}
		}
		/* oom_stats: an allocator's summary, whose numbers add to its failure line's */
		else if ((strcmp(x, "oom") == 0 && !m->has_oom) || strcmp(x, "oom_stats") == 0) {
			bool open = false;

			for (size_t k = 0; k < sc->n_pend; k++)
				open |= sc->pend[k].match == (size_t)(m - r->m);
			if (!open && pend_start(sc, (size_t)(m - r->m), l) != CD_OK)
				return CD_ENOMEM;
		}
	}
	return CD_OK;
}

/* ---- invalid argument at a launch ---- */

#define LAUNCH_LINES 3 /* a launch this many lines above an invalid argument is its cause */

/* cudaErrorInvalidValue / CUDA_ERROR_INVALID_VALUE, with no diagnosis of its own yet */
static bool is_invalid_value(const struct explain_match *m)
{
	return m->error && m->error->code == 1 &&
	       (m->error->api == KB_API_RUNTIME || m->error->api == KB_API_DRIVER) &&
	       strcmp(m->finding, "cuda-error") == 0;
}

/* CUDA 13 returns invalid argument, not invalid configuration (9), for a block beyond the
 * GPU's limits (<<<1, 2048>>>): the launch's limits explain it */
static void tie_to_launch(struct explain_match *m)
{
	m->finding = "launch-out-of-resources";
	m->invalid_value_launch = true;
}

/* ---- one line ---- */

static bool inside(uint32_t s1, uint32_t e1, uint32_t s2, uint32_t e2)
{
	return s2 <= s1 && e1 <= e2 && (e2 - s2) > (e1 - s1);
}

/* a framework message the kb names for the same text speaks for it, even when the two are
 * the same length (the stream-capture errors: the catalogue has no diagnosis, messages do) */
static bool covers(uint32_t s1, uint32_t e1, uint32_t s2, uint32_t e2)
{
	return s2 <= s1 && e1 <= e2;
}

/* A message part inside a longer part of another message that is whole on the line is that
 * message's: "gpu_host_bfc) ran out of memory" is the host pool's failure, not the GPU pool's
 * "_bfc) ran out of memory". So is one inside a whole catalogue string: the head of a wrapped
 * message ("no kernel image is available") stands for the message only where it was cut. */
static void shadow_parts(struct explain_scan *sc)
{
	for (size_t h = 0; h < sc->n_hits; h++) {
		const struct pat *p = &P.pats[sc->hits[h].pat];
		uint32_t e1 = sc->hits[h].end, s1 = e1 - P.ac.len[sc->hits[h].pat];

		if (p->kind != PK_PART)
			continue;
		for (size_t k = 0; k < sc->n_hits; k++) {
			const struct pat *q = &P.pats[sc->hits[k].pat];
			uint32_t e2 = sc->hits[k].end, s2 = e2 - P.ac.len[sc->hits[k].pat];

			bool whole = (q->kind == PK_PART && q->msg != p->msg &&
				      sc->msg_seen[q->msg] == (1u << kb_message_at(q->msg)->n_parts) - 1) ||
				     /* a catalogue string that always counts (long, with a diagnosis) */
				     (q->kind == PK_ERROR && P.ac.len[sc->hits[k].pat] >= 30 && q->error->finding);

			if (k != h && whole && inside(s1, e1, s2, e2)) {
				sc->msg_seen[p->msg] &= (unsigned char)~(1u << p->part);
				break;
			}
		}
	}
}

/* dst[0..n) = s lowercased (ASCII), NUL bytes as spaces, then a NUL: eight bytes at a time,
 * as every line with a hit is copied so */
static void fold_line(char *dst, const char *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u, low7 = 0x7F7F7F7F7F7F7F7Fu;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w, h, upper, zero;

		memcpy(&w, s + i, 8);
		h = w & low7;
		/* per byte, high bit: ASCII, at least 'A' and at most 'Z' (no carries: h < 0x80) */
		upper = ~w & ((h + ones * (0x80 - 'A')) ^ (h + ones * (0x7F - 'Z'))) & high;
		zero = ~((h + low7) | w) & high;
		w |= (upper | zero) >> 2; /* 0x20: 'A' to 'a', NUL to ' ' */
		memcpy(dst + i, &w, 8);
	}
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		dst[i] = c >= 'A' && c <= 'Z' ? (char)(c + 'a' - 'A') : c ? (char)c : ' ';
	}
	dst[n] = '\0';
}

static int scan_line(struct explain_scan *sc)
{
	struct line *l = &sc->l;
	struct explain_result *r = &sc->r;
	const struct kb_error *by_string = NULL;
	bool found = false, nccl = false, in_ctx, parts = false, names = false, numkeys = false;
	bool runtime_version = false, ggml = false, tgi = false;
	uint32_t cuda_at[ERA_CUDA_MAX];
	size_t n_cuda = 0;
	struct era_hints hints;
	int rc;

	fold_line(l->low, l->s, l->len);
	l->has_cuda = false;
	in_ctx = l->no <= sc->ctx_until;
	for (size_t h = 0; h < sc->n_hits; h++) {
		enum pat_kind k = P.pats[sc->hits[h].pat].kind;

		parts |= k == PK_PART;
		names |= k == PK_NAME;
		numkeys |= k == PK_NUMKEY;
	}
	if (parts)
		memset(sc->msg_seen, 0, kb_message_count());
	for (size_t h = 0; h < sc->n_hits; h++) {
		const struct pat *p = &P.pats[sc->hits[h].pat];
		uint32_t start = sc->hits[h].end - P.ac.len[sc->hits[h].pat];

		switch (p->kind) {
		/* one "cuda" outside a path settles the line, one GPU word the context */
		case PK_CUDA:
			if (!l->has_cuda && cuda_outside_path(l, start))
				l->has_cuda = true;
			if (n_cuda < ERA_CUDA_MAX)
				cuda_at[n_cuda] = start;
			n_cuda++;
			break;
		case PK_RUNTIME_VERSION:
			runtime_version = true;
			break;
		case PK_GPU:
			if (sc->ctx_until != l->no + CTX_LINES && cuda_outside_path(l, start))
				sc->ctx_until = l->no + CTX_LINES;
			break;
		case PK_PART:
			sc->msg_seen[p->msg] |= (unsigned char)(1u << p->part);
			break;
		case PK_NCCL:
			if (!nccl)
				memset(sc->nccl_hit, 0, nccl_log_anchor_count());
			nccl = true;
			sc->nccl_hit[p->msg] = true;
			break;
		case PK_WSL:
			sc->wsl = true;
			break;
		case PK_TORCH:
			r->torch = true;
			break;
		case PK_REGION:
			sc->region = (enum explain_region)p->msg;
			sc->region_line = l->no;
			break;
		case PK_WINDOWS:
			sc->windows = true;
			break;
		case PK_LINUX:
			sc->linux_seen = true;
			break;
		case PK_EMBEDDED:
			sc->embedded = sc->windows = true;
			break;
		case PK_ROCM:
			sc->rocm = true;
			break;
		case PK_HINT:
			premise_hit(&sc->premise, (unsigned)p->msg, l->s, l->low, l->len, l->no);
			break;
		case PK_PLATFORM:
			text_platform_hit(&r->platform, p->msg, l->low, l->len, sc->hits[h].end);
			break;
		case PK_GGML:
			ggml = true;
			break;
		case PK_TGI:
			tgi = true;
			break;
		case PK_LAUNCH:
			/* PyTorch's advice "CUDA_LAUNCH_BLOCKING=1" is not a launch */
			if (!(sc->hits[h].end + 9 <= l->len && strncmp(l->low + sc->hits[h].end, "_blocking", 9) == 0) &&
			    sc->launch_line != l->no) {
				sc->launch_line = l->no;
				sc->launch_block = ex_block_threads(l);
			}
			break;
		default:
			break;
		}
	}
	if (l->has_cuda)
		sc->ctx_until = l->no + CTX_LINES;
	l->region = explain_region_at(sc->region, sc->region_line, l->no);
	hints = (struct era_hints){ sc->n_hits < LINE_HITS && n_cuda <= ERA_CUDA_MAX, runtime_version, cuda_at,
				    n_cuda };
	eras_line(&sc->era, l->low, l->len, l->no, &hints);
	if (ggml)
		ggml_mem_line(&sc->ggml, l->s, l->len);
	if (tgi)
		tgi_mem_line(&sc->tgi, l->s, l->len);
	if (nccl && (rc = nccl_log_line_hits(&sc->nccl, l->s, l->len, sc->nccl_hit, NULL)) != CD_OK)
		return rc;
	/* the automaton's "nccl" anchor is the search, unless the line had more hits than kept */
	nccl = nccl && (sc->n_hits < LINE_HITS ? sc->nccl_hit[nccl_log_anchor_count() - 1]
					     : strstr(l->low, "nccl") != NULL);
	if (parts)
		shadow_parts(sc);
	if (parts && (rc = match_messages(sc, l, &found)) != CD_OK)
		return rc;
	if (names && (rc = match_names(r, l, &found)) != CD_OK)
		return rc;
	/* catalogue strings: the longest wins (717's "operation not supported on global/shared
	 * address space" holds 801's "operation not supported") */
	for (size_t h = 0; h < sc->n_hits; h++) {
		const struct pat *p = &P.pats[sc->hits[h].pat];
		uint32_t e1 = sc->hits[h].end, s1 = e1 - P.ac.len[sc->hits[h].pat];
		bool shadowed = false;
		size_t n = P.ac.len[sc->hits[h].pat];
		struct explain_match *m;

		if (p->kind != PK_ERROR)
			continue;
		/* short strings count only in a CUDA context; a code without a diagnosis only on a
		 * line that says CUDA */
		if ((n < 30 && !l->has_cuda && !(in_ctx && n > 20 && p->error->finding)) ||
		    (!p->error->finding && !l->has_cuda))
			continue;
		for (size_t k = 0; k < sc->n_hits && !shadowed; k++) {
			const struct pat *q = &P.pats[sc->hits[k].pat];
			uint32_t e2 = sc->hits[k].end, s2 = e2 - P.ac.len[sc->hits[k].pat];

			bool whole_msg = q->kind == PK_PART && parts &&
					 sc->msg_seen[q->msg] == (1u << kb_message_at(q->msg)->n_parts) - 1;

			shadowed = k != h && ((q->kind == PK_ERROR && inside(s1, e1, s2, e2)) ||
					      (whole_msg && covers(s1, e1, s2, e2)));
		}
		if (shadowed)
			continue;
		m = hit(r, error_finding(p->error), VIA_STRING, l);
		if (!m)
			return CD_ENOMEM;
		if (!m->error)
			m->error = p->error;
		by_string = p->error;
		found = true;
	}
	if (by_string && numkeys)
		note_old_number(r, l, by_string);
	else if (!found && numkeys && !nccl && (l->has_cuda || in_ctx) &&
		 explain_numbers_readable(l->region, l->low) &&
		 (rc = match_numbers(r, l, !l->has_cuda)) != CD_OK)
		return rc;
	/* what later lines add to earlier matches */
	for (size_t h = 0; h < sc->n_hits; h++) {
		const struct pat *p = &P.pats[sc->hits[h].pat];
		struct explain_match *m;

		if (p->kind == PK_SUPPORTS && (m = last_with(r, "torch_cc", l->no, 10)))
			ex_supported(m, l);
		else if (p->kind == PK_CC_OLD && (m = last_with(r, "torch_cc_old", l->no, 10)))
			ex_cc_old(m, l);
	}
	/* (the line numbers first: on most lines no match is that near) */
	for (size_t i = 0; i < r->n; i++) {
		if (r->m[i].last_line + 5 < l->no)
			continue;
		if (r->m[i].last_line == l->no && is_invalid_value(&r->m[i]) && sc->launch_line &&
		    sc->launch_line + LAUNCH_LINES >= l->no) {
			tie_to_launch(&r->m[i]);
			if (!r->m[i].block_threads)
				r->m[i].block_threads = sc->launch_block;
		}
		if (!r->m[i].path[0] && strcmp(r->m[i].finding, "no-kernel-image") == 0)
			ex_path(&r->m[i], l);
		if (r->m[i].last_line + 3 >= l->no && strcmp(r->m[i].finding, "launch-out-of-resources") == 0)
			ex_block(&r->m[i], l);
	}
	return CD_OK;
}

/* A line (or a piece of a long one) whose hits are in sc->hits: to the open OOM windows,
 * and looked at closely if it hit. */
static int take_hits(struct explain_scan *sc, const char *s, size_t len, size_t offset)
{
	if (sc->n_pend)
		pend_feed(sc, s, len);
	if (!sc->n_hits)
		return CD_OK;
	sc->l.s = s;
	sc->l.len = len;
	sc->l.offset = offset;
	sc->l.no = sc->lines + 1;
	return scan_line(sc);
}

/* A line (or a piece of a long one) ready: run the automaton over it, look closer if it hit. */
static int take_line(struct explain_scan *sc, const char *s, size_t len, size_t offset)
{
	if (len && s[len - 1] == '\r')
		len--;
	sc->n_hits = ac_find(&P.ac, (const unsigned char *)s, len, sc->own, LINE_HITS);
	sc->hits = sc->own;
	return take_hits(sc, s, len, offset);
}

/* one physical line, in pieces of at most SCAN_CHUNK bytes */
static int take_physical(struct explain_scan *sc, const char *s, size_t len, size_t offset)
{
	int rc = CD_OK;

	for (size_t p = 0; rc == CD_OK && (p < len || p == 0); p += SCAN_CHUNK) {
		size_t n = len - p < SCAN_CHUNK ? len - p : SCAN_CHUNK;

		rc = take_line(sc, s + p, n, offset + p);
		if (len - p <= SCAN_CHUNK)
			break;
	}
	sc->lines++;
	return rc;
}

int explain_patterns(const char *const **texts, size_t *n, char *err)
{
	int rc;

	if ((rc = kb_load(err)) != CD_OK)
		return rc;
	if (!P.built && (rc = build_patterns(err)) != CD_OK)
		return rc;
	*texts = P.text;
	*n = P.n;
	return CD_OK;
}

static void count_cpu(int cpu, void *arg)
{
	(void)cpu;
	++*(size_t *)arg;
}

/* How many threads scan a stage: one fewer than the CPUs this process may use (this thread
 * takes what they scan), none on one CPU. CUDOCTOR_EXPLAIN_THREADS and _STAGE set them for
 * comparing (docs/explain.md, "Checking it"). */
static void scan_threads(struct explain_scan *sc)
{
	const char *t = os_getenv("CUDOCTOR_EXPLAIN_THREADS"), *b = os_getenv("CUDOCTOR_EXPLAIN_STAGE");
	size_t cpus = 0;

	if (!os_process_cpus(count_cpu, &cpus) || cpus == 0)
		cpus = 1;
	sc->parts = cpus - 1;
	if (t && *t)
		sc->parts = strtoul(t, NULL, 10);
	if (sc->parts > BLOCK_PARTS)
		sc->parts = BLOCK_PARTS;
	sc->stage_cap = STAGE_BYTES;
	if (b && *b && strtoul(b, NULL, 10) >= 1)
		sc->stage_cap = strtoul(b, NULL, 10);
	if (sc->stage_cap > STAGE_BYTES)
		sc->stage_cap = STAGE_BYTES;
}

int explain_scan_new(struct explain_scan **out, char *err)
{
	struct explain_scan *sc;
	const char *scan;
	int rc;

	*out = NULL;
	if ((rc = kb_load(err)) != CD_OK)
		return rc;
	if (!P.built && (rc = build_patterns(err)) != CD_OK)
		return rc;
	sc = calloc(1, sizeof(*sc));
	if (!sc || !(sc->msg_seen = calloc(kb_message_count() + 1, 1)) ||
	    !(sc->nccl_hit = calloc(nccl_log_anchor_count(), sizeof(bool)))) {
		if (sc)
			free(sc->msg_seen);
		free(sc);
		return cd_fail(err, CD_ENOMEM, "out of memory");
	}
	nccl_log_init(&sc->nccl);
	ggml_mem_init(&sc->ggml);
	/* the plain paths, for comparing against (docs/explain.md): "lines" takes every line
	 * through the automaton, "scalar" runs the first stage and the newline count without
	 * SIMD, "sse2" the first stage without it and the count on SSE2 */
	scan = os_getenv("CUDOCTOR_EXPLAIN_SCAN");
	sc->by_line = scan && strcmp(scan, "lines") == 0;
	sc->simd = !(scan && (strcmp(scan, "scalar") == 0 || strcmp(scan, "sse2") == 0 || sc->by_line));
	sc->nl = sc->simd ? newline_best() : scan && strcmp(scan, "sse2") == 0 ? NEWLINE_SSE2 : NEWLINE_PORTABLE;
	P.ac.simd = sc->simd && cpu_has_avx2();
	if (!sc->by_line)
		scan_threads(sc);
	for (size_t i = 0; i < STAGES && sc->parts; i++)
		if (!(sc->stage[i].buf = malloc(sc->stage_cap)))
			sc->parts = 0; /* this thread takes it all */
	*out = sc;
	return CD_OK;
}

/* A block's records, taken in order as if every line were taken one by one: each line a
 * candidate fell in with the hits the first stage found on it (take_line would find the same),
 * a long line in pieces (take_physical); while an OOM window is open every line goes to it,
 * so the lines between records are then taken one by one until it closes. base: the block's
 * offset in the stream. */
static int take_block(struct explain_scan *sc, const struct block *b, size_t base)
{
	size_t lines0 = sc->lines;
	int rc = CD_OK;

	for (size_t q = 0; q < b->n_parts && rc == CD_OK; q++) {
		const struct block_part *p = &b->part[q];
		size_t cur = p->lo; /* the next line not taken */

		for (size_t i = 0; i <= p->n_lines && rc == CD_OK; i++) {
			const struct block_line *l = i < p->n_lines ? &p->lines[i] : NULL;
			size_t stop = l ? l->at : p->hi;

			while (sc->n_pend && cur < stop && rc == CD_OK) {
				size_t le = (size_t)((const char *)memchr(b->s + cur, '\n', stop - cur) - b->s);

				rc = take_physical(sc, b->s + cur, le - cur, base + cur);
				cur = le + 1;
			}
			if (!l || rc != CD_OK)
				break;
			if (i + 1 < p->n_lines)
				__builtin_prefetch(b->s + p->lines[i + 1].at);
			sc->lines = lines0 + l->before;
			if (l->whole) {
				rc = take_physical(sc, b->s + l->at, l->len, base + l->at);
			} else {
				sc->n_hits = l->n_hits;
				sc->hits = p->hits + l->hit0;
				rc = take_hits(sc, b->s + l->at, l->len, base + l->at);
				sc->lines++;
			}
			cur = (size_t)l->nl + 1;
		}
		lines0 += p->newlines;
		sc->lines = lines0;
	}
	return rc;
}

/* Complete lines s[0..len) (s[len - 1] is a newline) starting at stream offset base, on this
 * thread: through the first stage (block.h), or with CUDOCTOR_EXPLAIN_SCAN=lines every line
 * through the automaton. */
static int take_lines(struct explain_scan *sc, const char *s, size_t len, size_t base)
{
	int rc = CD_OK;

	if (sc->by_line) {
		for (size_t cur = 0; rc == CD_OK && cur < len;) {
			size_t le = (size_t)((const char *)memchr(s + cur, '\n', len - cur) - s);

			rc = take_physical(sc, s + cur, le - cur, base + cur);
			cur = le + 1;
		}
		return rc;
	}
	block_start(&sc->here, &P.ac, s, len, 1, sc->nl, false);
	if ((rc = block_wait(&sc->here)) == CD_OK)
		rc = take_block(sc, &sc->here, base);
	return rc;
}

/* a partial line: kept until its newline comes (a line longer than a chunk is taken in
 * pieces as it grows) */
static int carry_add(struct explain_scan *sc, const char *s, size_t add)
{
	char *nc = realloc(sc->carry, sc->carry_len + add + 1);
	int rc = CD_OK;

	if (!nc)
		return CD_ENOMEM;
	sc->carry = nc;
	memcpy(sc->carry + sc->carry_len, s, add);
	sc->carry_len += add;
	while (rc == CD_OK && sc->carry_len > 4 * SCAN_CHUNK) {
		/* a piece of a line longer than the chunk: take it now, keep the rest */
		rc = take_line(sc, sc->carry, SCAN_CHUNK, sc->bytes - sc->carry_len + add);
		memmove(sc->carry, sc->carry + SCAN_CHUNK, sc->carry_len - SCAN_CHUNK);
		sc->carry_len -= SCAN_CHUNK;
	}
	sc->bytes += add;
	return rc;
}

/* pieces on this thread: the line an earlier piece left open, the complete lines, the rest */
static int feed_here(struct explain_scan *sc, const char *data, size_t n)
{
	size_t pos = 0;
	const char *nl;
	int rc = CD_OK;

	/* the line an earlier piece left open ends at the first newline here */
	if (sc->carry_len && n) {
		nl = memchr(data, '\n', n);
		if (!nl) {
			rc = carry_add(sc, data, n);
			pos = n;
		} else {
			size_t add = (size_t)(nl - data);
			char *nc = realloc(sc->carry, sc->carry_len + add + 1);

			if (!nc) {
				rc = CD_ENOMEM;
			} else {
				sc->carry = nc;
				memcpy(sc->carry + sc->carry_len, data, add);
				rc = take_physical(sc, sc->carry, sc->carry_len + add, sc->bytes - sc->carry_len);
				sc->carry_len = 0;
				sc->bytes += add + 1;
				pos = add + 1;
			}
		}
	}
	/* the complete lines, then what is left of the last one */
	if (rc == CD_OK && pos < n && (nl = memrchr(data + pos, '\n', n - pos))) {
		size_t end = (size_t)(nl - data) + 1;

		rc = take_lines(sc, data + pos, end - pos, sc->bytes);
		sc->bytes += end - pos;
		pos = end;
	}
	if (rc == CD_OK && pos < n)
		rc = carry_add(sc, data + pos, n - pos);
	return rc;
}

/* a stage scanned before: waited for and taken */
static int take_stage(struct explain_scan *sc, struct stage *st)
{
	int rc;

	if (!st->busy)
		return CD_OK;
	st->busy = false;
	if ((rc = block_wait(&st->blk)) == CD_OK)
		rc = take_block(sc, &st->blk, st->base);
	sc->bytes = st->base + st->blk.len;
	return rc;
}

/* the stages scanned and not taken, oldest first */
static int take_stages(struct explain_scan *sc)
{
	int rc = CD_OK;

	for (int i = 1; i < STAGES && rc == CD_OK; i++)
		rc = take_stage(sc, &sc->stage[(sc->fill + i) % STAGES]);
	return rc;
}

/* The stage being filled is full: its whole lines are scanned on threads while the oldest is
 * taken here (the one between stays scanned, so this thread seldom waits), and the rest of
 * its last line begins the oldest's buffer, filled next. A stage without a newline is the
 * start of a line longer than a stage: taken here, as a line left open. */
static int stage_full(struct explain_scan *sc)
{
	struct stage *f = &sc->stage[sc->fill], *o = &sc->stage[(sc->fill + 1) % STAGES];
	const char *nl = memrchr(f->buf, '\n', f->len);
	size_t end;
	int rc;

	if (!nl) {
		if ((rc = take_stages(sc)) == CD_OK)
			rc = feed_here(sc, f->buf, f->len);
		f->len = 0;
		return rc;
	}
	end = (size_t)(nl - f->buf) + 1;
	block_start(&f->blk, &P.ac, f->buf, end, sc->parts, sc->nl, true);
	f->busy = true;
	rc = take_stage(sc, o);
	memcpy(o->buf, f->buf + end, f->len - end);
	o->len = f->len - end;
	o->base = f->base + end;
	sc->fill = (sc->fill + 1) % STAGES;
	return rc;
}

/* A line longer than a stage is taken here up to its end; the rest goes to the stage. */
static int feed_staged(struct explain_scan *sc, const char *data, size_t n)
{
	int rc = CD_OK;

	while (rc == CD_OK && n) {
		struct stage *f = &sc->stage[sc->fill];
		const char *nl;
		size_t k;

		if (sc->carry_len) {
			nl = memchr(data, '\n', n);
			k = nl ? (size_t)(nl - data) + 1 : n;
			rc = feed_here(sc, data, k);
		} else {
			k = n < sc->stage_cap - f->len ? n : sc->stage_cap - f->len;
			if (!f->len)
				f->base = sc->staged;
			memcpy(f->buf + f->len, data, k);
			f->len += k;
			if (f->len == sc->stage_cap)
				rc = stage_full(sc);
		}
		sc->staged += k;
		data += k;
		n -= k;
	}
	return rc;
}

/* A stage filled by the reader on a task of its own, while this thread takes the stage
 * before: the copy out of the kernel is then off the thread that judges the lines. */
struct fill_job {
	struct stage *st;
	size_t cap;
	explain_read_fn read;
	void *ctx;
	bool end;   /* the reader said the stream ended */
	int rc;     /* CD_OK, or CD_EIO when it failed */
};

static void fill_stage(void *arg)
{
	struct fill_job *j = arg;

	while (j->st->len < j->cap) {
		long long n = j->read(j->ctx, j->st->buf + j->st->len, j->cap - j->st->len);

		if (n <= 0) {
			j->end = true;
			j->rc = n < 0 ? CD_EIO : CD_OK;
			return;
		}
		j->st->len += (size_t)n;
	}
}

/* One piece read aside (where no stage takes it: one CPU, or a line longer than a stage left
 * open) and fed as any piece is; *end when the reader said the stream ended. */
static int read_aside(struct explain_scan *sc, explain_read_fn read, void *ctx, bool *end)
{
	long long n;

	if (!sc->aside && !(sc->aside = malloc(ASIDE_BYTES)))
		return CD_ENOMEM;
	n = read(ctx, sc->aside, ASIDE_BYTES);
	*end = n <= 0;
	if (n <= 0)
		return n < 0 ? CD_EIO : CD_OK;
	return sc->parts ? feed_staged(sc, sc->aside, (size_t)n) : feed_here(sc, sc->aside, (size_t)n);
}

/* The stream read into the stages, each filled on a task while the one before is taken. */
static int stream(struct explain_scan *sc, explain_read_fn read, void *ctx)
{
	int rc = CD_OK;
	bool end = false;

	while (rc == CD_OK && !end) {
		struct stage *f = &sc->stage[sc->fill];
		struct fill_job job = { f, sc->stage_cap, read, ctx, false, CD_OK };
		struct task t;
		size_t had = f->len;

		if (!sc->parts || sc->carry_len) {
			rc = read_aside(sc, read, ctx, &end);
			continue;
		}
		if (!had)
			f->base = sc->staged;
		task_start(&t, fill_stage, &job);
		rc = take_stage(sc, &sc->stage[(sc->fill + 1) % STAGES]);
		task_wait(&t);
		sc->staged += f->len - had;
		if (rc == CD_OK)
			rc = job.rc;
		end = job.end;
		if (rc == CD_OK && !end)
			rc = stage_full(sc);
	}
	return rc;
}

/* A scan's failure said once: a read that failed, else out of memory (which ends the scan:
 * what it found so far is incomplete) */
static int scan_failed(struct explain_scan *sc, int rc, char *err)
{
	if (rc == CD_EIO)
		return cd_fail(err, rc, "reading failed");
	sc->failed = rc;
	return cd_fail(err, rc, "out of memory");
}

int explain_scan_stream(struct explain_scan *sc, explain_read_fn read, void *ctx, char *err)
{
	int rc;

	if (sc->failed)
		return sc->failed;
	rc = stream(sc, read, ctx);
	return rc == CD_OK ? CD_OK : scan_failed(sc, rc, err);
}

int explain_scan_feed(struct explain_scan *sc, const char *data, size_t n, char *err)
{
	int rc;

	if (sc->failed)
		return sc->failed;
	rc = sc->parts ? feed_staged(sc, data, n) : feed_here(sc, data, n);
	return rc == CD_OK ? CD_OK : scan_failed(sc, rc, err);
}

/* ---- after the scan ---- */

static void drop(struct explain_result *r, size_t i)
{
	memmove(&r->m[i], &r->m[i + 1], (r->n - i - 1) * sizeof(r->m[0]));
	r->n--;
}

static bool present(const struct explain_result *r, const char *prefix)
{
	for (size_t i = 0; i < r->n; i++)
		if (strncmp(r->m[i].finding, prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

static bool is_fallback(const struct explain_match *m)
{
	return m->message && strcmp(m->message->extract, "fallback") == 0 && m->via == VIA_MESSAGE;
}

/* two matches may share a finding after a reclassification: keep the first */
static void merge_same(struct explain_result *r)
{
	for (size_t i = r->n; i-- > 0;)
		for (size_t k = 0; k < i; k++)
			if (strcmp(r->m[k].finding, r->m[i].finding) == 0) {
				r->m[k].count += r->m[i].count;
				r->m[k].invalid_value_launch |= r->m[i].invalid_value_launch;
				if (r->m[i].last_line > r->m[k].last_line) {
					r->m[k].last_line = r->m[i].last_line;
					memcpy(r->m[k].last, r->m[i].last, sizeof(r->m[k].last));
				}
				drop(r, i);
				break;
			}
}

void explain_result_launch_given(struct explain_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (is_invalid_value(&r->m[i]))
			tie_to_launch(&r->m[i]);
	merge_same(r);
}

void explain_result_classify_oom(struct explain_result *r, const char *(*finding_of)(const struct oom_numbers *n))
{
	for (size_t i = 0; i < r->n; i++) {
		struct explain_match *m = &r->m[i];
		const char *id;

		/* a message's own class (XLA's is oom-capacity) gives way to what its numbers prove */
		if (m->has_oom && (strcmp(m->finding, "out-of-memory") == 0 || strncmp(m->finding, "oom-", 4) == 0) &&
		    (id = finding_of(&m->oom.n)) != NULL)
			m->finding = id;
	}
	merge_same(r);
	if (present(r, "oom-"))
		for (size_t i = r->n; i-- > 0;)
			if (strcmp(r->m[i].finding, "out-of-memory") == 0)
				drop(r, i);
}

/* A cause and what it brings about in the same text: the cause is the finding, the
 * consequence's lines are its evidence. code: the consequence only when it is that error
 * (-1: any match of that finding). */
static const struct {
	const char *cause, *consequence;
	int code;
} consequences[] = {
	/* 719 says only that the kernel died; an illegal access (a memcheck report, a 700) says why */
	{ "illegal-address", "kernel-exception", 719 },
	/* the display watchdog's reset ends the kernel; the program then sees 999 or a launch failure */
	{ "launch-timeout", "unknown-error", -1 },
	{ "launch-timeout", "kernel-exception", 719 },
	/* a JIT that cannot read the PTX: the image the driver then rejects */
	{ "ptx-too-new", "invalid-kernel-image", -1 },
	{ "ptx-too-new", "invalid-ptx", -1 },
	/* XLA's ptxas cannot target the GPU: the driver's JIT then misses kernels (500) */
	{ "toolkit-cannot-target-gpu", "cuda-error", 500 },
	/* a kernel module of another version than libcuda: cuInit then fails with 999 */
	{ "driver-library-mismatch", "unknown-error", -1 },
	/* a cause of the platform's own, and the CUDA or NCCL words it was printed in */
	{ "fabric-manager-state", "cuda-error", -1 },
	{ "fabric-manager-state", "unknown-error", -1 },
	{ "fabric-manager-state", "nccl-cuda-error", -1 },
	{ "win-runtime-dll-missing", "library-missing", -1 },
	{ "hip-sdk-not-on-path", "library-missing", -1 },
	{ "cuda-malloc-async-unsupported", "cuda-error", -1 },
	{ "pinned-host-oom", "out-of-memory", -1 },
	{ "wsl-pinned-memory-limit", "out-of-memory", -1 },
	{ "jetson-nvmap-alloc-limit", "out-of-memory", -1 },
	{ "hyperv-no-gpu-libs", "nvml-unavailable", -1 },
	{ "non-nvidia-platform", "torch-cpu-only", -1 },
	/* HIP's OOM printed beside a generic HIP failure of the same call */
	{ "rocm-out-of-memory", "rocm-error", -1 },
};

static void fold_consequences(struct explain_result *r)
{
	for (size_t c = 0; c < sizeof(consequences) / sizeof(consequences[0]); c++) {
		size_t cause = r->n;

		for (size_t i = 0; i < r->n && cause == r->n; i++)
			if (strcmp(r->m[i].finding, consequences[c].cause) == 0)
				cause = i;
		if (cause == r->n)
			continue;
		for (size_t i = r->n; i-- > 0;) {
			struct explain_match *m = &r->m[i];

			if (strcmp(m->finding, consequences[c].consequence) != 0 ||
			    (consequences[c].code >= 0 && !(m->error && m->error->code == consequences[c].code)))
				continue;
			add_line(&r->m[cause], m->lines[0]);
			if (i < cause)
				cause--;
			drop(r, i);
		}
	}
}

/* HIP mirrors CUDA's error texts ("invalid device function", "out of memory"), so a ROCm text
 * can match CUDA's catalogue: there the CUDA finding becomes the ROCm one it stands for, and any
 * other becomes rocm-error, so no CUDA advice is given for an AMD GPU. */
static const char *rocm_finding_of(const char *id)
{
	if (strncmp(id, "rocm-", 5) == 0)
		return id;
	if (strcmp(id, "no-kernel-image") == 0 || strcmp(id, "partial-kernel-image") == 0)
		return "rocm-gfx-target-missing";
	if (strcmp(id, "out-of-memory") == 0 || strncmp(id, "oom-", 4) == 0)
		return "rocm-out-of-memory";
	return "rocm-error";
}

/* A message that only says the GPU went unused ("no compatible GPUs were discovered") gives
 * way to any error that says why. "cannot find -lcuda" on WSL2 is WSL's missing link. */
static int settle(struct explain_scan *sc)
{
	struct explain_result *r = &sc->r;
	size_t others = 0;

	eras_settle(r, &sc->era);
	text_platform_settle(&r->platform, sc->windows, sc->linux_seen, !os_is_linux());
	for (size_t i = 0; i < r->n; i++) {
		if (strcmp(r->m[i].finding, "libcuda-link-missing") == 0 && (sc->wsl || r->platform.os == TP_WSL2))
			r->m[i].finding = "wsl-libcuda";
		r->m[i].windows = explain_text_is_windows(sc->windows, sc->linux_seen, sc->wsl);
		r->m[i].embedded_python = sc->embedded;
		r->m[i].rocm = sc->rocm;
		if (sc->rocm) {
			r->m[i].finding = rocm_finding_of(r->m[i].finding);
			r->m[i].error = NULL; /* CUDA's entry for HIP's words would be its evidence */
		} else if (!text_platform_cuda(&r->platform) || r->platform.os == TP_WSL1) {
			r->m[i].finding = text_platform_finding(&r->platform, r->m[i].finding);
			r->m[i].rocm = r->platform.vendor == TP_AMD;
			if (strcmp(r->m[i].finding, "wsl1-no-gpu") == 0 || r->platform.vendor != TP_NVIDIA)
				r->m[i].error = NULL;
		}
	}
	if (premise_settle(r, &sc->premise) != CD_OK)
		return CD_ENOMEM;
	merge_same(r);
	fold_consequences(r);
	for (size_t i = 0; i < r->n; i++)
		others += !is_fallback(&r->m[i]);
	if (others)
		for (size_t i = r->n; i-- > 0;)
			if (is_fallback(&r->m[i]))
				drop(r, i);
	return CD_OK;
}

int explain_scan_finish(struct explain_scan *sc, struct explain_result *out, char *err)
{
	int rc = CD_OK;

	memset(out, 0, sizeof(*out));
	if (sc->failed)
		return cd_fail(err, sc->failed, "out of memory");
	/* what the stages hold, in order: those scanned, then the one being filled */
	if (sc->parts) {
		struct stage *f = &sc->stage[sc->fill];

		if ((rc = take_stages(sc)) == CD_OK)
			rc = feed_here(sc, f->buf, f->len);
		f->len = 0;
		if (rc != CD_OK)
			return scan_failed(sc, rc, err);
	}
	if (sc->carry_len) {
		rc = take_physical(sc, sc->carry, sc->carry_len, sc->bytes - sc->carry_len);
		sc->carry_len = 0;
	}
	while (sc->n_pend)
		pend_close(sc, 0);
	if (rc != CD_OK)
		return cd_fail(err, rc, "out of memory");
	if (settle(sc) != CD_OK)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	*out = sc->r;
	memset(&sc->r, 0, sizeof(sc->r));
	return CD_OK;
}

const struct nccl_log *explain_scan_nccl(const struct explain_scan *sc)
{
	return &sc->nccl;
}

size_t explain_scan_bytes(const struct explain_scan *sc)
{
	return sc->bytes;
}

size_t explain_scan_lines(const struct explain_scan *sc)
{
	return sc->lines;
}

void explain_scan_free(struct explain_scan *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->n_pend; i++)
		free(sc->pend[i].buf);
	for (size_t i = 0; i < STAGES; i++) {
		block_free(&sc->stage[i].blk);
		free(sc->stage[i].buf);
	}
	block_free(&sc->here);
	free(sc->aside);
	free(sc->carry);
	free(sc->msg_seen);
	free(sc->nccl_hit);
	explain_result_free(&sc->r);
	nccl_log_free(&sc->nccl);
	free(sc);
}

int explain_text(const char *text, size_t len, struct explain_result *out, char *err)
{
	struct explain_scan *sc;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = explain_scan_new(&sc, err)) != CD_OK)
		return rc;
	if (text)
		rc = explain_scan_feed(sc, text, len, err);
	if (rc == CD_OK)
		rc = explain_scan_finish(sc, out, err);
	explain_scan_free(sc);
	return rc;
}

void explain_result_free(struct explain_result *r)
{
	free(r->m);
	memset(r, 0, sizeof(*r));
}
