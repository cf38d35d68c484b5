/* libcublas found where doctor looks for CUDA libraries and loaded, newest first, for what
 * runs cuBLAS (lab libraries, check's GEMM stress). */
#include "probe/cublas_find.h"

#include <stdlib.h>
#include <string.h>

#include "probe/runtimes.h"
#include "util/err.h"
#include "util/sort.h"

static const struct runtime *sort_base;

static int newest_first(const void *a, const void *b)
{
	const struct runtime *x = &sort_base[*(const size_t *)a], *y = &sort_base[*(const size_t *)b];
	return version_cmp(&y->version, &x->version);
}

int cublas_find_load(struct cublas *b, const struct python_info *py, char *err)
{
	struct runtimes rt = { 0 };
	const char **paths = NULL;
	size_t *order = NULL;
	char perr[CD_ERRMSG];
	int rc;
	struct runtimes_opts ro = { NULL, py ? (const char *const *)py->site_dirs : NULL, py ? py->n_site_dirs : 0,
				    "libcublas" };

	if (runtimes_probe(&rt, &ro, perr) != CD_OK)
		memset(&rt, 0, sizeof rt);
	paths = calloc(rt.n + 1, sizeof *paths);
	order = calloc(rt.n + 1, sizeof *order);
	if (!paths || !order) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < rt.n; i++)
		order[i] = i;
	sort_base = rt.r;
	cd_qsort(order, rt.n, sizeof *order, newest_first);
	for (size_t i = 0; i < rt.n; i++)
		paths[i] = rt.r[order[i]].real_path;
	rc = cublas_load(b, paths, err);
out:
	free(paths);
	free(order);
	runtimes_free(&rt);
	return rc;
}
