/* Dotted version numbers ("12.4", "550.54.14") and the driver API's integer form (12040). */
#ifndef CUDOCTOR_VERSION_H
#define CUDOCTOR_VERSION_H

#include <stdbool.h>
#include <stddef.h>

struct version {
	int major, minor, patch; /* absent parts are 0 */
	int parts;               /* how many parts the text had (1..3) */
};

/* Accepts "12", "12.4", "550.54.14", leading 'v' or "V", trailing text after the
 * numbers is ignored ("12.4.1 (build)"). Returns CD_OK or CD_EFORMAT. */
int version_parse(const char *text, struct version *v);
int version_cmp(const struct version *a, const struct version *b);
/* 12040 -> 12.4 ; as cuDriverGetVersion and cudaRuntimeGetVersion encode it */
struct version version_from_cuda_int(int v);
int version_to_cuda_int(const struct version *v);
/* The one version formatter: at most max_parts of v's parts ("12.4" from 12.4.127 with 2).
 * A driver's numbering (major 100 and up) keeps its two-digit minor and patch ("528.02",
 * "470.57.02"), which parsing dropped; no parts is "unknown". Returns buf. */
const char *version_format(const struct version *v, int max_parts, char *buf, size_t n);

/* The CUDA release the name of a Windows DLL of family gives ("cudart", "cublas"): the family,
 * "64_" or "32_" (or "_", nvJitLink's), a number and ".dll", any case, the number optionally
 * followed by "_0" (nvrtc64_120_0.dll). cudart64_12.dll is 12, cudart64_110.dll 11.0,
 * cudart64_101.dll 10.1, cudart64_90.dll 9.0, nvrtc64_120_0.dll 12.0. */
bool version_of_dll_name(const char *name, const char *family, struct version *v);

#endif
