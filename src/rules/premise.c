/* A finding's premise against the text's numbers (premise.h). */
#include "rules/premise.h"

#include <stdio.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

static void size_text(double b, char *buf, size_t cap)
{
	if (b >= GIB)
		snprintf(buf, cap, "%.2f GiB", b / GIB);
	else
		snprintf(buf, cap, "%.0f MiB", b / (1024.0 * 1024.0));
}

bool premise_oom_contradicted(const struct oom_numbers *n, char *why, size_t cap)
{
	char req[32], free_text[32];
	double margin;

	if ((n->have & (OOM_HAVE_REQUESTED | OOM_HAVE_FREE | OOM_HAVE_TOTAL)) !=
	    (OOM_HAVE_REQUESTED | OOM_HAVE_FREE | OOM_HAVE_TOTAL) || n->form != OOM_FORM_TORCH)
		return false;
	margin = n->total / 10 > GIB ? n->total / 10 : GIB;
	if (n->free_bytes < n->requested + margin)
		return false;
	size_text(n->requested, req, sizeof req);
	size_text(n->free_bytes, free_text, sizeof free_text);
	snprintf(why, cap,
		 "the text's numbers: %s free for a %s request, so the GPU's memory was not short: the failed "
		 "allocation was likely host memory (pinned), a Windows (WDDM) limit or an allocator setting, "
		 "not device capacity",
		 free_text, req);
	return true;
}
