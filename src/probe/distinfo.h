/* Installed Python distributions read from their *.dist-info directory names. */
#ifndef CUDOCTOR_PROBE_DISTINFO_H
#define CUDOCTOR_PROBE_DISTINFO_H

#include <stddef.h>

enum distinfo_suffix {
	DI_ANY,        /* stem or stem_cuNN */
	DI_CU_SUFFIX,  /* only stem_cuNN: CUDA 11/12 wheels (site-packages/nvidia/cuda_runtime) */
};

/* In dir, the version of the distribution whose normalized name is stem or
 * stem_cuNN ("nvidia_cuda_runtime" matches nvidia_cuda_runtime-13.0.96 and
 * nvidia_cuda_runtime_cu12-12.4.127). want_major > 0 keeps only versions of that
 * major. The newest match wins. CD_ENOTFOUND when none. */
int distinfo_find(const char *dir, const char *stem, int want_major, enum distinfo_suffix which,
		  char *ver, size_t n);

#endif
