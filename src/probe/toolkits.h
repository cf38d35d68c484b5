/* The toolkit probe: every nvcc on this machine into facts/toolkit.h, versions from files
 * when they exist, `nvcc --version` only when not. */
#ifndef CUDOCTOR_PROBE_TOOLKITS_H
#define CUDOCTOR_PROBE_TOOLKITS_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/toolkit.h"
#include "probe/paths.h"

struct toolkits_opts {
	const char *root;           /* prefix for fixed system paths (tests); NULL for / */
	const char *const *site_dirs; /* Python site-packages to search for the pip nvcc */
	size_t n_site_dirs;
	bool list_archs;            /* run `nvcc --list-gpu-arch` on the selected one (-v) */
	bool no_spawn;              /* never run nvcc (version stays unknown without files) */
};

int toolkits_probe(struct toolkits *out, const struct toolkits_opts *o, char *err);
void toolkits_free(struct toolkits *t);

/* Version of the toolkit rooted at root from its files only; CD_ENOTFOUND if none says. */
int toolkit_version_from_files(const char *root, char *out, size_t n, const char **source);

#endif
