/* AMD's support window of the amdgpu kernel driver against the ROCm user space
 * (kb/amdgpu_drivers.tsv): per driver line, the version its DKMS module writes to
 * /sys/module/amdgpu/version and the ROCm releases AMD supports on it. */
#ifndef CUDOCTOR_KB_AMD_DRIVER_H
#define CUDOCTOR_KB_AMD_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#include "kb/embedded.h"

#define KB_AMDGPU_MAX_ROCM 12
struct kb_amdgpu_driver {
	const char *driver;           /* AMD's name of the line: "30.30", "6.4" */
	const char *module;           /* what its module writes ("6.16.13"), NULL unknown */
	const char *rocm[KB_AMDGPU_MAX_ROCM]; /* the ROCm releases it supports, "X.Y" */
	size_t n_rocm;
	const char *rocm_text;        /* the cell as written: "6.3 6.4 7.0" */
	bool uncertain;
	const char *source, *notes;
};

/* Parses the table once: CD_OK, or CD_EFORMAT / CD_ENOMEM with "file:line: why". */
int kb_amdgpu_load(char *err);
/* The same from a given blob (tests feed malformed tables). */
int kb_amdgpu_load_blob(const struct kb_blob *blob, char *err);
size_t kb_amdgpu_driver_count(void);
const struct kb_amdgpu_driver *kb_amdgpu_driver_at(size_t i);
/* The driver line whose module writes version ("6.16.13", trailing text after the third part
 * ignored), or NULL. */
const struct kb_amdgpu_driver *kb_amdgpu_driver_of_module(const char *version);
/* Whether driver d supports the ROCm user space rocm ("6.4.1-120", "7.14.0": its X.Y). */
bool kb_amdgpu_supports(const struct kb_amdgpu_driver *d, const char *rocm);

#endif
