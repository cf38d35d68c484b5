/* Dotted version numbers ("12.4", "550.54.14") and the driver API's integer form (12040). */
#ifndef CUDOCTOR_VERSION_H
#define CUDOCTOR_VERSION_H

#include <stdbool.h>

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

#endif
