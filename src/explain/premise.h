/* What else a text says that decides between findings: the allocator in use, a pinned host
 * allocation, the platform (text_platform.h). A finding whose premise the text contradicts is
 * renamed to the cause the text supports, or dropped. Pure. */
#ifndef CUDOCTOR_EXPLAIN_PREMISE_H
#define CUDOCTOR_EXPLAIN_PREMISE_H

#include <stddef.h>

#include "explain/explain.h"

enum premise_hint {
	HINT_MALLOC_ASYNC = 1u << 0, /* the cudaMallocAsync allocator is in use */
	HINT_PINNED = 1u << 1,       /* a pinned (page-locked) host allocation: pin_memory, cudaHostAlloc */
	HINT_WSL = 1u << 2,          /* WSL named at all */
	HINT_LOST_LATER = 1u << 4,   /* the GPU worked and was lost later (daemon-reload, after a while) */
	HINT_ASYNC_APP = 1u << 3,    /* an app that turns cudaMallocAsync on by default (ComfyUI, Fooocus) */
};

struct premise_marker {
	const char *text; /* lower-case */
	unsigned hint;
};

/* The strings a scanner looks for; each hit ORs its hint into the result's hints. */
const struct premise_marker *premise_markers(size_t *n);

/* Re-reads r's findings by its platform and hints (after the platform is settled, before
 * findings that share an id are merged). */
void premise_settle(struct explain_result *r, unsigned hints);

#endif
