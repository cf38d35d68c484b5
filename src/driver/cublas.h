/* libcublas loaded with dlopen (through driver/loader.h): our own declarations of the few
 * entry points and enum values the libraries lab uses, each pointer bound by name. */
#ifndef CUDOCTOR_CUBLAS_H
#define CUDOCTOR_CUBLAS_H

#include <stdbool.h>

#include "driver/cuda_types.h"
#include "driver/loader.h"

/* Values as cublas_api.h and library_types.h define them (tests/unit/test_cublas.c
 * compares them with the toolkit's headers where one is installed). */
typedef int cublasStatus_t;
typedef struct cublasContext *cublasHandle_t;
enum {
	CUBLAS_STATUS_SUCCESS = 0,
	CUBLAS_STATUS_NOT_INITIALIZED = 1,
	CUBLAS_STATUS_ALLOC_FAILED = 3,
	CUBLAS_STATUS_INVALID_VALUE = 7,
	CUBLAS_STATUS_ARCH_MISMATCH = 8,
	CUBLAS_STATUS_MAPPING_ERROR = 11,
	CUBLAS_STATUS_EXECUTION_FAILED = 13,
	CUBLAS_STATUS_INTERNAL_ERROR = 14,
	CUBLAS_STATUS_NOT_SUPPORTED = 15,
	CUBLAS_STATUS_LICENSE_ERROR = 16,
};
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };                     /* cublasOperation_t */
enum { CUBLAS_DEFAULT_MATH = 0, CUBLAS_PEDANTIC_MATH = 2 };     /* cublasMath_t */
enum { CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_64F = 70, CUBLAS_COMPUTE_32F_FAST_TF32 = 77 }; /* cublasComputeType_t */
enum { CUBLAS_GEMM_DEFAULT = -1 };                             /* cublasGemmAlgo_t */
enum { CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_R_16BF = 14 }; /* cudaDataType */

struct cublas {
	struct dl_lib lib;
	struct dl_lib lt;            /* libcublasLt mapped first from the same directory, when loaded by path */
	cublasStatus_t (*Create)(cublasHandle_t *h);                                   /* cublasCreate_v2 */
	cublasStatus_t (*Destroy)(cublasHandle_t h);                                   /* cublasDestroy_v2 */
	cublasStatus_t (*SetStream)(cublasHandle_t h, CUstream s);                     /* cublasSetStream_v2 */
	cublasStatus_t (*GetVersion)(cublasHandle_t h, int *version);                  /* cublasGetVersion_v2 */
	cublasStatus_t (*SetMathMode)(cublasHandle_t h, int mode);
	cublasStatus_t (*GemmEx)(cublasHandle_t h, int transa, int transb, int m, int n, int k, const void *alpha,
				 const void *A, int atype, int lda, const void *B, int btype, int ldb,
				 const void *beta, void *C, int ctype, int ldc, int compute, int algo);
};

/* Loads libcublas: $CUDOCTOR_LIBCUBLAS if set (only that file); else libcublas.so.13 then
 * .so.12 as the loader finds them (LD_LIBRARY_PATH, the ld cache); else each file of
 * `paths` (NULL-terminated, best first), mapping the libcublasLt beside it first. Every
 * entry point must bind: a library without them is not libcublas. CD_ENOTFOUND with err
 * naming what was tried. */
int cublas_load(struct cublas *b, const char *const *paths, char *err);
void cublas_unload(struct cublas *b);
/* "CUBLAS_STATUS_NOT_SUPPORTED", or "CUBLAS_STATUS_(unnamed)" */
const char *cublas_status_name(cublasStatus_t s);

#endif
