/* Reading PyTorch's "CUDA out of memory" message, TensorFlow's/XLA's BFC allocator summary,
 * XLA's cuMemAllocAsync failure and XLA's BufferAssignment into the numbers of facts/oom.h (rules/oom.h classifies them). */
#ifndef CUDOCTOR_EXPLAIN_OOM_TEXT_H
#define CUDOCTOR_EXPLAIN_OOM_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/oom.h"

/* What a PyTorch OOM message said, beyond the numbers. */
struct oom_message {
	struct oom_numbers n;
	int gpu;                 /* device index in the message, -1 if absent */
	int n_processes;         /* "Process N has X memory in use" lines */
	bool legacy;             /* the PyTorch 1.x "(GPU 0; X total capacity; ...)" form */
	bool suggests_expandable;/* the message itself prints the expandable_segments hint */
	size_t offset, length;   /* where "CUDA out of memory" starts and the message ends */
};

/* Finds the first OOM message in text (len bytes, need not be NUL-terminated): PyTorch's, else
 * the first of the BFC allocator's failure or summary and XLA's buffer assignment; reads its
 * numbers. CD_OK, or CD_ENOTFOUND when there is none. Bounded: reads at most a few KiB after
 * the match. */
int oom_parse(const char *text, size_t len, struct oom_message *out);

/* Adds to into the numbers of from that into lacks, when both are of one form (a BFC allocator's
 * failure line and, further on, its summary). */
void oom_merge(struct oom_message *into, const struct oom_message *from);

/* "20.00 MiB" -> 20971520. CD_OK or CD_EFORMAT; *used = characters consumed. */
int oom_parse_size(const char *s, size_t len, double *bytes, size_t *used);

#endif
