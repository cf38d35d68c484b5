/* A CUDA error number read with the release in mind: CUDA 10.1 renumbered the runtime's
 * cudaError_t, so 48 was no kernel image before and is unused now, and 8 was invalid device
 * function before and is a profiler code now (kb/error_codes_pre101.tsv). Pure: numbers and
 * text in, readings out (internal to src/explain). */
#ifndef CUDOCTOR_EXPLAIN_ERAS_H
#define CUDOCTOR_EXPLAIN_ERAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kb/old_codes.h"

enum era_how {
	ERA_NONE,        /* the number means the same in every release, or nothing was read */
	ERA_NAMED,       /* the text names the error; the number beside it is its pre-10.1 code */
	ERA_OLD_ONLY,    /* a bare number only the pre-10.1 numbering has */
	ERA_CURRENT_ALT, /* a bare number read as CUDA 13's; before 10.1 it meant another error */
	ERA_OLD_BY_TEXT, /* the same, but the text names a pre-10.1 CUDA, so the old meaning wins */
};

/* How the number of one match was read (a field of struct explain_match). */
struct era_reading {
	enum era_how how;
	int number;                   /* as the text printed it */
	const struct kb_old_code *old; /* the pre-10.1 entry of that number (or of the named error) */
	const struct kb_error *now;   /* ERA_CURRENT_ALT / ERA_OLD_BY_TEXT: CUDA 13's entry of it */
	char marker[48];              /* ERA_OLD_BY_TEXT: what in the text names the old release */
	size_t marker_line;
};

/* What the text says of its CUDA release: the first pre-10.1 toolkit, runtime or driver it
 * names ("CUDA 9.2", "libcudart.so.10.0", "cudart64_90.dll", "CUDA Version: 10.0"). */
struct era_state {
	bool old;
	char marker[48];              /* the words that said so, as written (lowercased) */
	size_t line;
};

/* Where a line's markers can start, as the scanner's automaton already found them: the
 * offsets of every "cuda" (each marker holds one: "cuda 9.2", "libcudart.so.9.0",
 * "cudart64_90.dll") and whether "runtime version" (deviceQuery's) is there. all == false
 * when the automaton kept fewer hits than the line has: the line is searched instead. */
struct era_hints {
	bool all;
	bool runtime_version;
	const uint32_t *cuda_at;
	size_t n_cuda;
};

/* One line (lowercased, len bytes, 1-based number): records the first old-release marker.
 * hints may be NULL: the line is searched. */
void eras_line(struct era_state *s, const char *low, size_t len, size_t line_no, const struct era_hints *hints);

/* The release a marker at low[0..len) names, as major * 10 + minor (92 for 9.2), else 0;
 * *used (may be NULL): its length up to the version's end. Exposed for the tests. */
int eras_marker_release(const char *low, size_t len, size_t *used);

/* A bare number in a CUDA context: the catalogue entry it is read as (CUDA 13's runtime code,
 * else its driver code, else the pre-10.1 runtime code), NULL when none; rd says how. */
const struct kb_error *eras_number(int n, struct era_reading *rd);

/* Whether n is the pre-10.1 number of e (and not its number now). */
bool eras_is_old_code(const struct kb_error *e, int n);

struct explain_match;
struct explain_result;

/* The text named e (by string or name) on a line whose numbers are nums: a number that is e's
 * pre-10.1 code is kept in m as such. */
void eras_note_named(struct explain_match *m, const struct kb_error *e, const int *nums, int n);

/* After the scan: where the text names an old release, a number read as CUDA 13's becomes
 * its pre-10.1 meaning. */
void eras_settle(struct explain_result *r, const struct era_state *s);

/* The evidence line of m's reading into out (cap bytes); false when there is none. */
bool eras_evidence(const struct explain_match *m, char *out, size_t cap);

#endif
