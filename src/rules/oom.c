/* The OOM classification rules of rules/oom.h, over numbers from a message or a probe. */
#include "rules/oom.h"

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

enum oom_class oom_classify(const struct oom_numbers *n)
{
	double others = oom_others(n), t = n->total, r = n->requested;
	double u = have_or_zero(n, OOM_HAVE_RESERVED_UNALLOC, n->reserved_unalloc);
	double f = have_or_zero(n, OOM_HAVE_FREE, n->free_bytes);

	if ((n->have & (OOM_HAVE_REQUESTED | OOM_HAVE_TOTAL)) != (OOM_HAVE_REQUESTED | OOM_HAVE_TOTAL))
		return OOM_CLASS_UNKNOWN;
	if (r > t)
		return OOM_CLASS_CAPACITY;
	if ((n->have & OOM_HAVE_FREE) && f >= r + max2(GIB, t / 10))
		return OOM_CLASS_UNKNOWN;
	if (others >= 0 && others >= max2(GIB, t / 10))
		return OOM_CLASS_OTHER_PROCESS;
	/* PyTorch frees its cache and retries before it raises: when free plus cached still
	 * covers the request, the memory exists but not in one block */
	if (u + f > 0 && u + f >= r && (u >= r / 4 || f >= r + OOM_SLACK))
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
