/* The OOM classification rules of rules/oom.h, over numbers from a message or a probe. */
#include "rules/oom.h"

#include <stdint.h>
#include <stdio.h>

#include "util/str.h"
#include "util/units.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
/* free memory a few MiB above the request is the driver's granularity, not a usable block */
#define OOM_SLACK (64.0 * 1024.0 * 1024.0)
#define OOM_OTHERS_MIN GIB /* below this, what others hold is a desktop or a context, not the cause */

static double max2(double a, double b)
{
	return a > b ? a : b;
}

double oom_others(const struct oom_numbers *n)
{
	double o;

	if (n->have & OOM_HAVE_OTHERS)
		return n->others;
	if ((n->have & (OOM_HAVE_TOTAL | OOM_HAVE_FREE)) != (OOM_HAVE_TOTAL | OOM_HAVE_FREE))
		return -1;
	if (n->have & OOM_HAVE_THIS_PROCESS) {
		o = n->total - n->free_bytes - n->this_process;
	} else if ((n->have & OOM_HAVE_ALLOCATED) && (n->have & OOM_HAVE_RESERVED_UNALLOC)) {
		/* no per-process numbers: what PyTorch does not hold, less a context allowance */
		o = n->total - n->free_bytes - n->allocated - n->reserved_unalloc - GIB;
	} else {
		return -1;
	}
	return o > 0 ? o : 0;
}

static double have_or_zero(const struct oom_numbers *n, unsigned bit, double v)
{
	return (n->have & bit) ? v : 0;
}

/* This process's live tensors and the request leave less than half a GiB of the GPU (what
 * cuBLAS's workspaces and the next layer's activations take): whatever the cache keeps free,
 * defragmenting it would only move the failure to the next allocation, so its own data is
 * what fills the GPU (oom-capacity, not oom-fragmentation). */
#define OOM_OWN_MARGIN (512.0 * 1024.0 * 1024.0)
static bool own_data_fills(const struct oom_numbers *n)
{
	return (n->have & OOM_HAVE_ALLOCATED) && n->form == OOM_FORM_TORCH &&
	       n->allocated + n->requested > n->total - OOM_OWN_MARGIN;
}

enum oom_class oom_classify(const struct oom_numbers *n)
{
	double others = oom_others(n), t = n->total, r = n->requested;
	double u = have_or_zero(n, OOM_HAVE_RESERVED_UNALLOC, n->reserved_unalloc);
	double f = have_or_zero(n, OOM_HAVE_FREE, n->free_bytes);

	if ((n->have & (OOM_HAVE_REQUESTED | OOM_HAVE_PROGRAM | OOM_HAVE_TOTAL)) ==
	    (OOM_HAVE_REQUESTED | OOM_HAVE_PROGRAM))
		return n->program + r < GIB ? OOM_CLASS_HELD_ELSEWHERE : OOM_CLASS_UNKNOWN;
	if ((n->have & (OOM_HAVE_REQUESTED | OOM_HAVE_TOTAL)) != (OOM_HAVE_REQUESTED | OOM_HAVE_TOTAL))
		return OOM_CLASS_UNKNOWN;
	if (r > t)
		return OOM_CLASS_CAPACITY;
	/* llama.cpp: the buffers it put on the device and this one do not fit its VRAM */
	if (n->form == OOM_FORM_GGML && (n->have & OOM_HAVE_THIS_PROCESS) && n->this_process + r > t)
		return OOM_CLASS_CAPACITY;
	/* a pool allocator fails only when no free block holds the request */
	if (n->form == OOM_FORM_BFC && (n->have & OOM_HAVE_FREE) && f >= r)
		return (n->have & OOM_HAVE_LARGEST_FREE) && n->largest_free >= r ? OOM_CLASS_UNKNOWN
										   : OOM_CLASS_FRAGMENTATION;
	if ((n->have & OOM_HAVE_FREE) && f >= r + max2(GIB, t / 10))
		return OOM_CLASS_UNKNOWN;
	/* PyTorch's live tensors and the request exceed the whole GPU: no other process's memory
	 * is in the way of this one */
	if ((n->have & OOM_HAVE_ALLOCATED) && n->form == OOM_FORM_TORCH && n->allocated + r > t)
		return OOM_CLASS_CAPACITY;
	if (others >= 0 && others >= max2(GIB, t / 10))
		return OOM_CLASS_OTHER_PROCESS;
	/* PyTorch frees its cache and retries before it raises: when free plus cached still
	 * covers the request, the memory exists but not in one block */
	if (n->form != OOM_FORM_GGML && u + f > 0 && u + f >= r && (u >= r / 4 || f >= r + OOM_SLACK) &&
	    !own_data_fills(n))
		return OOM_CLASS_FRAGMENTATION;
	/* without what others hold, the request would have fit */
	if (others >= 0 && others >= r && others >= OOM_OTHERS_MIN)
		return OOM_CLASS_OTHER_PROCESS;
	if (n->have & (OOM_HAVE_FREE | OOM_HAVE_RESERVED_UNALLOC | OOM_HAVE_ALLOCATED))
		return OOM_CLASS_CAPACITY;
	return OOM_CLASS_UNKNOWN;
}

bool oom_expandable_helps(const struct oom_numbers *n)
{
	return oom_classify(n) == OOM_CLASS_FRAGMENTATION && (n->have & OOM_HAVE_RESERVED_UNALLOC) &&
	       n->reserved_unalloc >= n->total / 20;
}

const char *oom_class_finding(enum oom_class c)
{
	switch (c) {
	case OOM_CLASS_CAPACITY:
		return "oom-capacity";
	case OOM_CLASS_OTHER_PROCESS:
		return "oom-other-process";
	case OOM_CLASS_FRAGMENTATION:
		return "oom-fragmentation";
	default:
		return "out-of-memory";
	}
}

const char *oom_finding_of(const struct oom_numbers *n)
{
	enum oom_class c = oom_classify(n);

	return c == OOM_CLASS_UNKNOWN ? NULL : oom_class_finding(c);
}

static void size_text(double b, char *buf, size_t n)
{
	/* a sum of parsed sizes stays far below 2^64; the bound keeps the conversion defined */
	units_fmt_bytes(b > 0 && b < 1.8e19 ? (uint64_t)(b + 0.5) : 0, buf, n);
}

/* TensorFlow's/XLA's allocator pool, or XLA's program: their own words */
static size_t oom_pool_evidence(const struct oom_numbers *o, const char *r, const char *t, const char *f,
				const char *a, const char *b, const char *p, char lines[][OOM_EVIDENCE_LINE], size_t max)
{
	size_t n = 0;

	if (o->form == OOM_FORM_XLA && !(o->have & OOM_HAVE_TOTAL))
		n = str_lines_add(*lines, OOM_EVIDENCE_LINE, n, max, "requested %s; the compiled program's buffers: %s in all", r,
				  p);
	else
		n = str_lines_add(*lines, OOM_EVIDENCE_LINE, n, max, "requested %s; the allocator's pool: limit %s, in use %s, "
				  "free %s, largest free block %s", r, t, a, f, b);
	switch (oom_classify(o)) {
	case OOM_CLASS_CAPACITY:
		n = str_lines_add(*lines, OOM_EVIDENCE_LINE, n, max, (o->have & OOM_HAVE_TOTAL) && o->requested > o->total
			 ? "the request alone is larger than the allocator's pool"
			 : "the pool is full: what is in use leaves less free than the request");
		break;
	case OOM_CLASS_FRAGMENTATION:
		n = str_lines_add(*lines, OOM_EVIDENCE_LINE, n, max, "the pool has %s free, enough for the request, but no free "
			 "block that large (the largest: %s)", f, b);
		break;
	case OOM_CLASS_HELD_ELSEWHERE:
		n = str_lines_add(*lines, OOM_EVIDENCE_LINE, n, max, "the program needs %s in all, less than any GPU holds: the "
			 "memory is held elsewhere (another process, or another framework's preallocation in this one)", p);
		break;
	default:
		break;
	}
	return n;
}

/* llama.cpp's numbers: what it asked for, what it had put on the device, what the device had */
static size_t oom_ggml_evidence(const struct oom_numbers *o, int gpu, char lines[][OOM_EVIDENCE_LINE], size_t max)
{
	size_t n = 0, used;
	char line[OOM_EVIDENCE_LINE], r[32], b[32], need[32], t[32], fl[32], oth[32], dev[24] = "the device";
	double others = oom_others(o);

	if (gpu >= 0)
		snprintf(dev, sizeof(dev), "CUDA%d", gpu);
	size_text(o->requested, r, sizeof(r));
	used = (size_t)snprintf(line, sizeof(line), "llama.cpp asked for %s on %s", r, dev);
	if (o->have & OOM_HAVE_THIS_PROCESS) {
		size_text(o->this_process, b, sizeof(b));
		size_text(o->this_process + o->requested, need, sizeof(need));
		used += (size_t)snprintf(line + used, sizeof(line) - used, "; its buffers there before it (model, KV cache, "
					 "compute): %s, %s with this one", b, need);
	}
	if ((o->have & OOM_HAVE_TOTAL) && used < sizeof(line)) {
		size_text(o->total, t, sizeof(t));
		used += (size_t)snprintf(line + used, sizeof(line) - used, "; the GPU has %s", t);
	}
	if ((o->have & OOM_HAVE_FREE) && used < sizeof(line)) {
		size_text(o->free_bytes + o->this_process, fl, sizeof(fl));
		snprintf(line + used, sizeof(line) - used, ", %s of it free when the model was loaded", fl);
	}
	n = str_lines_add(*lines, OOM_EVIDENCE_LINE, n, max, "%s", line);
	switch (oom_classify(o)) {
	case OOM_CLASS_CAPACITY:
		n = str_lines_add(*lines, OOM_EVIDENCE_LINE, n, max, "%s", o->requested > o->total
			 ? "the request alone is larger than the GPU"
			 : "the model's buffers and this request need more than the GPU has");
		break;
	case OOM_CLASS_OTHER_PROCESS:
		size_text(others, oth, sizeof(oth));
		n = str_lines_add(*lines, OOM_EVIDENCE_LINE, n, max, "%s of it was in use before the model loaded (other "
			 "processes, another model, the desktop): without it this would fit", oth);
		break;
	default:
		break;
	}
	return n;
}

size_t oom_evidence(const struct oom_numbers *o, int gpu, bool hinted, char lines[][OOM_EVIDENCE_LINE], size_t max)
{
	size_t n = 0;
	char r[32] = "?", t[32] = "?", f[32] = "?", a[32] = "?", u[32] = "?", oth[32] = "?", b[32] = "?", p[32] = "?";
	double others = oom_others(o);

	if (o->have & OOM_HAVE_REQUESTED)
		size_text(o->requested, r, sizeof(r));
	if (o->have & OOM_HAVE_TOTAL)
		size_text(o->total, t, sizeof(t));
	if (o->have & OOM_HAVE_FREE)
		size_text(o->free_bytes, f, sizeof(f));
	if (o->have & OOM_HAVE_ALLOCATED)
		size_text(o->allocated, a, sizeof(a));
	if (o->have & OOM_HAVE_RESERVED_UNALLOC)
		size_text(o->reserved_unalloc, u, sizeof(u));
	if (others >= 0)
		size_text(others, oth, sizeof(oth));
	if (o->have & OOM_HAVE_LARGEST_FREE)
		size_text(o->largest_free, b, sizeof(b));
	if (o->have & OOM_HAVE_PROGRAM)
		size_text(o->program, p, sizeof(p));
	if (o->form == OOM_FORM_GGML)
		return oom_ggml_evidence(o, gpu, lines, max);
	if (o->form != OOM_FORM_TORCH)
		return oom_pool_evidence(o, r, t, f, a, b, p, lines, max);
	char g[24] = "the GPU";

	if (gpu >= 0)
		snprintf(g, sizeof(g), "GPU %d", gpu);
	/* an allocator that gives only the GPU's numbers (XLA's cuMemAllocAsync) */
	if (!(o->have & (OOM_HAVE_ALLOCATED | OOM_HAVE_RESERVED_UNALLOC)) && others < 0)
		n = str_lines_add(*lines, OOM_EVIDENCE_LINE, n, max, "requested %s; %s total %s, free %s", r, g, t, f);
	else
		n = str_lines_add(*lines, OOM_EVIDENCE_LINE, n, max, "requested %s; %s total %s, free %s; PyTorch allocated "
			 "%s, reserved but unallocated %s; held outside this process %s%s", r, g, t, f, a, u, oth,
			 (o->have & OOM_HAVE_OTHERS) ? "" : " (derived)");
	switch (oom_classify(o)) {
	case OOM_CLASS_CAPACITY:
		n = str_lines_add(*lines, OOM_EVIDENCE_LINE, n, max, (o->have & OOM_HAVE_TOTAL) && o->requested > o->total
			 ? "the request alone is larger than the GPU"
			 : "this process's own data fills the GPU: little is free or cached, and others "
			   "hold little");
		break;
	case OOM_CLASS_OTHER_PROCESS:
		n = str_lines_add(*lines, OOM_EVIDENCE_LINE, n, max, "%s is held outside this process (other processes, or another "
			 "framework in this one)", oth);
		break;
	case OOM_CLASS_FRAGMENTATION:
		n = str_lines_add(*lines, OOM_EVIDENCE_LINE, n, max, "free + cached (%s + %s) would cover the request, but not in one "
			 "block", f, u);
		break;
	default:
		break;
	}
	if (hinted && !oom_expandable_helps(o))
		n = str_lines_add(*lines, OOM_EVIDENCE_LINE, n, max, "PyTorch's hint (expandable_segments) does not apply here: only "
			 "%s is reserved but unallocated", u);
	return n;
}
