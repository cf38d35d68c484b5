/* The runtime probe: every libcudart (or other CUDA library) the loader or a framework
 * could pick, into facts/runtime.h: LD_LIBRARY_PATH, the ld cache, toolkit lib dirs,
 * Python wheels, torch/lib, conda. Versions are read from names and files beside the
 * library, never by loading it. */
#ifndef CUDOCTOR_PROBE_RUNTIMES_H
#define CUDOCTOR_PROBE_RUNTIMES_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/runtime.h"
#include "probe/paths.h"

struct runtimes_opts {
	const char *root;            /* prefix for fixed system paths (tests); NULL for / */
	const char *const *site_dirs;/* Python site-packages */
	size_t n_site_dirs;
	const char *library;         /* stem to look for; NULL: "libcudart" */
};

/* The other CUDA libraries doctor checks for shadowed copies, NULL-terminated. */
extern const char *const runtime_libraries[];

int runtimes_probe(struct runtimes *out, const struct runtimes_opts *o, char *err);
void runtimes_free(struct runtimes *r);

#endif
