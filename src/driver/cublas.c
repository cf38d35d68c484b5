/* Finding libcublas and binding the entry points the libraries lab calls. */
#include "driver/cublas.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/env.h"
#include "util/err.h"

#define SYM(field, name) { offsetof(struct cublas, field), { name } }

static const struct dl_symbol symbols[] = {
	SYM(Create, "cublasCreate_v2"),     SYM(Destroy, "cublasDestroy_v2"),
	SYM(SetStream, "cublasSetStream_v2"), SYM(GetVersion, "cublasGetVersion_v2"),
	SYM(SetMathMode, "cublasSetMathMode"), SYM(GemmEx, "cublasGemmEx"),
};

static int bind_all(struct cublas *b, char *err)
{
	dl_bind(&b->lib, symbols, sizeof symbols / sizeof symbols[0], b, NULL);
	if (!b->lib.missing[0])
		return CD_OK;
	return cd_fail(err, CD_ENOTFOUND, "%s is not libcublas: %s missing", b->lib.path, b->lib.missing);
}

/* libcublasLt.so.N in the directory of `path` (the same major), mapped so that the
 * loader finds it by soname when libcublas itself is opened by path. */
static void map_lt_beside(struct cublas *b, const char *path)
{
	const char *slash = strrchr(path, '/'), *so = strstr(path, ".so.");
	char lt[DL_PATH], scratch[CD_ERRMSG];
	if (!slash || !so)
		return;
	if (snprintf(lt, sizeof lt, "%.*s/libcublasLt.so.%d", (int)(slash - path), path, atoi(so + 4)) >= (int)sizeof lt)
		return;
	struct dl_spec spec = { lt, NULL, "cublasLtCreate", NULL, false };
	dl_open(&spec, &b->lt, scratch); /* optional: libcublas's own RUNPATH may find it */
}

int cublas_load(struct cublas *b, const char *const *paths, char *err)
{
	static const char *const sonames[] = { "libcublas.so.13", "libcublas.so.12" };
	const char *override = os_getenv("CUDOCTOR_LIBCUBLAS");
	char first[CD_ERRMSG] = "";
	int rc;

	memset(b, 0, sizeof *b);
	if (override && *override) {
		struct dl_spec spec = { "libcublas.so", "CUDOCTOR_LIBCUBLAS", "cublasCreate_v2", NULL, false };
		if ((rc = dl_open(&spec, &b->lib, err)) != CD_OK)
			return rc;
		if ((rc = bind_all(b, err)) != CD_OK)
			cublas_unload(b);
		return rc;
	}
	for (size_t i = 0; i < sizeof sonames / sizeof sonames[0]; i++) {
		struct dl_spec spec = { sonames[i], NULL, "cublasCreate_v2", NULL, false };
		char e[CD_ERRMSG];
		if (dl_open(&spec, &b->lib, e) == CD_OK) {
			if (bind_all(b, err) == CD_OK)
				return CD_OK;
			cublas_unload(b);
		} else if (!first[0]) {
			snprintf(first, sizeof first, "%s", e);
		}
	}
	size_t tried = 0;
	for (size_t i = 0; paths && paths[i]; i++, tried++) {
		struct dl_spec spec = { paths[i], NULL, "cublasCreate_v2", NULL, false };
		char e[CD_ERRMSG];
		map_lt_beside(b, paths[i]);
		if (dl_open(&spec, &b->lib, e) == CD_OK) {
			snprintf(b->lib.how, sizeof b->lib.how, "package place");
			if (bind_all(b, e) == CD_OK)
				return CD_OK;
		}
		cublas_unload(b);
	}
	if (!tried)
		return cd_fail(err, CD_ENOTFOUND, "%s; no other libcublas found (pip nvidia-cublas-cu12/cu13, torch, "
				   "toolkits); CUDOCTOR_LIBCUBLAS names one", first);
	return cd_fail(err, CD_ENOTFOUND, "%s; none of %zu other libcublas files loaded", first, tried);
}

void cublas_unload(struct cublas *b)
{
	dl_close(&b->lib);
	dl_close(&b->lt);
	memset(b, 0, sizeof *b);
}

const char *cublas_status_name(cublasStatus_t s)
{
	static const struct {
		cublasStatus_t s;
		const char *name;
	} names[] = {
		{ CUBLAS_STATUS_SUCCESS, "CUBLAS_STATUS_SUCCESS" },
		{ CUBLAS_STATUS_NOT_INITIALIZED, "CUBLAS_STATUS_NOT_INITIALIZED" },
		{ CUBLAS_STATUS_ALLOC_FAILED, "CUBLAS_STATUS_ALLOC_FAILED" },
		{ CUBLAS_STATUS_INVALID_VALUE, "CUBLAS_STATUS_INVALID_VALUE" },
		{ CUBLAS_STATUS_ARCH_MISMATCH, "CUBLAS_STATUS_ARCH_MISMATCH" },
		{ CUBLAS_STATUS_MAPPING_ERROR, "CUBLAS_STATUS_MAPPING_ERROR" },
		{ CUBLAS_STATUS_EXECUTION_FAILED, "CUBLAS_STATUS_EXECUTION_FAILED" },
		{ CUBLAS_STATUS_INTERNAL_ERROR, "CUBLAS_STATUS_INTERNAL_ERROR" },
		{ CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED" },
		{ CUBLAS_STATUS_LICENSE_ERROR, "CUBLAS_STATUS_LICENSE_ERROR" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].s == s)
			return names[i].name;
	return "CUBLAS_STATUS_(unnamed)";
}
