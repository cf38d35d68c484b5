/* The scanner's first stage over a block of whole lines, as records of the lines a candidate
 * falls in and their hits, split into parts that run on threads of their own. Pure apart
 * from the threads; match.c takes the records in order (docs/explain.md, "How the scan is fast"). */
#ifndef CUDOCTOR_EXPLAIN_BLOCK_H
#define CUDOCTOR_EXPLAIN_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "explain/ac.h"
#include "explain/newlines.h"
#include "util/task.h"

#define BLOCK_LINE_HITS 256 /* pattern hits kept per line */
#define BLOCK_PARTS 8       /* threads one block is split across, at most */

/* A line some candidate falls in: s[at .. at + len) of the block, its '\r' dropped, ending at
 * the newline at nl; the lines of its part before it; its hits (ends counted from at). A line
 * longer than SCAN_CHUNK has no hits here: it is taken whole, in pieces, as any long line is. */
struct block_line {
	uint32_t at, len, nl;
	uint32_t before;
	uint32_t hit0;   /* its hits: hits[hit0 .. hit0 + n_hits) of its part */
	uint16_t n_hits;
	bool whole;
};

struct block_part {
	const struct ac *ac;
	const char *s;         /* the block */
	size_t lo, hi;         /* this part's lines: s[lo .. hi), s[hi - 1] a newline */
	enum newline_path nl;
	struct block_line *lines;
	size_t n_lines, cap_lines;
	struct ac_hit *hits;
	size_t n_hits, cap_hits;
	size_t newlines;       /* in s[lo .. hi) */
	int rc;
};

struct block {
	const char *s;
	size_t len;
	size_t n_parts;
	struct block_part part[BLOCK_PARTS];
	struct task task[BLOCK_PARTS];
	bool running;
};

/* The first stage over s[0 .. len) (whole lines: s[len - 1] is a newline) in parts of about
 * equal size: threaded, each on a thread of its own (on this one where no thread can start),
 * else all here before it returns. block_wait must follow before the records are read; s
 * must stay until then. The records' arrays are kept for the next block. Returns CD_OK. */
int block_start(struct block *b, const struct ac *ac, const char *s, size_t len, size_t parts, enum newline_path nl,
		bool threaded);
/* Waits for the parts; CD_OK, or CD_ENOMEM when one ran out of memory. */
int block_wait(struct block *b);
void block_free(struct block *b);

#endif
