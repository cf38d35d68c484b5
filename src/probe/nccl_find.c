/* Where libnccl.so.2 lives besides the loader's own search: the runtime probe run for
 * "libnccl" over the Python environments the caller found (the run context's, doctor's). */
#include "probe/nccl_find.h"
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"

static int newest_first(const void *a, const void *b)
{
	const struct runtime *x = *(const struct runtime *const *)a, *y = *(const struct runtime *const *)b;

	return version_cmp(&y->version, &x->version);
}

int nccl_find(struct nccl_copies *out, const struct python_info *py, char *err)
{
	struct runtimes_opts ro = { .library = "libnccl" };
	const struct runtime **order = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	ro.site_dirs = py ? (const char *const *)py->site_dirs : NULL;
	ro.n_site_dirs = py ? py->n_site_dirs : 0;
	if ((rc = runtimes_probe(&out->rt, &ro, err)) != CD_OK)
		return rc;
	order = calloc(out->rt.n + 1, sizeof *order);
	out->dirs = calloc(out->rt.n + 1, sizeof *out->dirs);
	if (!order || !out->dirs) {
		rc = cd_fail(err, CD_ENOMEM, "nccl search: out of memory");
		goto out;
	}
	for (size_t i = 0; i < out->rt.n; i++)
		order[i] = &out->rt.r[i];
	cd_qsort(order, out->rt.n, sizeof *order, newest_first);
	for (size_t i = 0; i < out->rt.n; i++) {
		char dir[PROBE_PATH];
		bool seen = false;

		if (order[i]->rank >= 0)
			continue; /* dlopen("libnccl.so.2") finds it already */
		snprintf(dir, sizeof dir, "%s", order[i]->path);
		path_parent(dir);
		for (size_t k = 0; k < out->n_dirs && !seen; k++)
			seen = strcmp(out->dirs[k], dir) == 0;
		if (seen)
			continue;
		if (!(out->dirs[out->n_dirs] = strdup(dir))) {
			rc = cd_fail(err, CD_ENOMEM, "nccl search: out of memory");
			goto out;
		}
		out->n_dirs++;
	}
out:
	free(order);
	if (rc != CD_OK)
		nccl_copies_free(out);
	return rc;
}

void nccl_copies_free(struct nccl_copies *c)
{
	for (size_t i = 0; c->dirs && i < c->n_dirs; i++)
		free(c->dirs[i]);
	free(c->dirs);
	runtimes_free(&c->rt);
	memset(c, 0, sizeof *c);
}
