/* Every libnccl.so.2 doctor's runtime search sees (LD_LIBRARY_PATH, the ld cache, toolkits,
 * pip nvidia-nccl-cu* wheels, torch/lib, conda), and the directories of those the loader
 * would not find by itself, for driver/nccl's search. */
#ifndef CUDOCTOR_PROBE_NCCL_FIND_H
#define CUDOCTOR_PROBE_NCCL_FIND_H

#include <stddef.h>

#include "facts/python.h"
#include "probe/runtimes.h"

struct nccl_copies {
	struct runtimes rt;   /* every copy found, as doctor lists them */
	char **dirs;          /* NULL-terminated: directories of the copies off the loader's path, newest first */
	size_t n_dirs;
};

/* py: the Python environments whose site-packages are searched too (NULL: none). */
int nccl_find(struct nccl_copies *out, const struct python_info *py, char *err);
void nccl_copies_free(struct nccl_copies *c);

#endif
