/* The nvcc a build here would use: $CUDA_HOME/bin/nvcc, else the first on PATH, else
 * /usr/local/cuda/bin/nvcc; and the release it reports. A fact, not a judgement. */
#ifndef CUDOCTOR_PROBE_NVCC_VERSION_H
#define CUDOCTOR_PROBE_NVCC_VERSION_H

#include "util/version.h"

struct nvcc_here {
	char path[4096];
	char how[32];            /* "CUDA_HOME", "PATH", "/usr/local/cuda" */
	struct version release;  /* "Cuda compilation tools, release 13.0" */
};

/* CD_OK, or CD_ENOTFOUND (err says where it looked), or CD_EFORMAT when nvcc --version
 * printed no release line. Runs nvcc once. */
int nvcc_here_find(struct nvcc_here *out, char *err);

#endif
