/* Every libcudart the loader or a framework could pick: LD_LIBRARY_PATH, the ld cache,
 * toolkit lib dirs, Python wheels, torch/lib, conda. Versions are read from names and
 * files beside the library, never by loading it. */
#ifndef CUDOCTOR_PROBE_RUNTIMES_H
#define CUDOCTOR_PROBE_RUNTIMES_H

#include <stdbool.h>
#include <stddef.h>

#include "kb/stack_rules.h"
#include "probe/paths.h"
#include "util/version.h"

struct runtime {
	char path[PROBE_PATH];      /* as found: the soname link when there is one */
	char real_path[PROBE_PATH]; /* resolved; one file found twice is one runtime */
	char soname[64];            /* "libcudart.so.12" */
	char version_text[64];      /* "12.4.127" or "12" */
	struct version version;
	const char *version_source; /* "file name", "version.json", "dist-info", "torch/version.py", "cuda_runtime_api.h", "soname" */
	enum runtime_origin origin;
	int rank;                   /* loader order for a program without RUNPATH; -1 not on it */
	bool from_ld_library_path;
	bool picked;                /* the lowest rank of its soname */
};

struct runtimes {
	struct runtime *r;
	size_t n;
	bool ldcache_ok;            /* /etc/ld.so.cache was read */
	char ldcache_error[256];
};

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
