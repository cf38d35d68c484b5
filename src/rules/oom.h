/* Classifying a CUDA out-of-memory from its numbers (capacity / other processes /
 * fragmentation): the one rule explain and mem both use. Pure. */
#ifndef CUDOCTOR_RULES_OOM_H
#define CUDOCTOR_RULES_OOM_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/oom.h"

enum oom_class {
	OOM_CLASS_UNKNOWN,       /* not enough numbers to say */
	OOM_CLASS_CAPACITY,      /* oom-capacity: the request, or this process's own data, exceeds the GPU */
	OOM_CLASS_OTHER_PROCESS, /* oom-other-process: other processes hold a large share */
	OOM_CLASS_FRAGMENTATION, /* oom-fragmentation: enough is cached but not in one block */
	OOM_CLASS_HELD_ELSEWHERE,/* out-of-memory: the program needs less than any GPU holds, so the
				  * memory is held elsewhere; who holds it, the text does not say */
};

/* The rules, in order (T total, F free, R requested, U reserved-but-unallocated, O others;
 * an unknown F or U counts as 0). R and T are needed, else unknown.
 *  1. R > T                                    -> capacity (no arrangement fits)
 *  2. F >= R + max(1 GiB, T/10)                -> unknown (plenty is free: not a memory shortage)
 *  3. O >= max(1 GiB, T/10)                    -> other-process
 *  4. U + F >= R, with U >= R/4 or F >= R + 64 MiB -> fragmentation (enough exists, not in one
 *                                                 block; PyTorch already retried after freeing its cache),
 *     unless this process's allocated A + R > T - 512 MiB (its own data fills the GPU: capacity)
 *  5. O >= R and O >= 1 GiB                     -> other-process (without them it would fit)
 *  6. otherwise                                -> capacity (this process's own data fills it)
 * An allocator pool's numbers (TensorFlow's/XLA's BFC: T its limit, F its free part, B its
 * largest free block, when known) add, before rule 2: F >= R > B -> fragmentation (the pool
 * fails only when no free block holds the request). XLA's program numbers
 * without T (P the buffers the compiled program needs): P + R < 1 GiB -> held elsewhere (no
 * GPU is that small), else unknown. llama.cpp's numbers (OOM_FORM_GGML: T the device's VRAM, this
 * process the buffers it put there before, F what was free when the model loaded less those):
 * this_process + R > T -> capacity; never fragmentation (F is derived from the log, not the
 * driver's); the rest as above (T - F - this_process is what was in use before it loaded).
 * O is derived when not given: T - F - this_process, or without that
 * T - F - (allocated + reserved_unalloc) - 1 GiB (an allowance for the CUDA context). */
enum oom_class oom_classify(const struct oom_numbers *n);
/* The derived "others" number the rules used (bytes), or -1 when unknown. */
double oom_others(const struct oom_numbers *n);
/* Whether PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True addresses it: fragmentation
 * with a large reserved-but-unallocated cache (U >= T/20). */
bool oom_expandable_helps(const struct oom_numbers *n);
const char *oom_class_finding(enum oom_class c); /* "oom-capacity", ... or "out-of-memory" */
/* What the numbers amount to, as evidence lines: each number (given or derived) of the GPU
 * gpu (-1 unknown), the class's reason, and, when the message printed PyTorch's
 * expandable_segments hint (hinted), whether it applies. Fills at most max lines; returns how many. */
#define OOM_EVIDENCE_LINE 400
size_t oom_evidence(const struct oom_numbers *o, int gpu, bool hinted, char lines[][OOM_EVIDENCE_LINE], size_t max);
/* The oom-* finding of these numbers, or NULL when they cannot say (explain's
 * explain_result_classify_oom takes it). */
const char *oom_finding_of(const struct oom_numbers *n);

#endif
