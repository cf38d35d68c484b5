/* libcublas for what runs cuBLAS, looked for where doctor looks. */
#ifndef CUDOCTOR_PROBE_CUBLAS_FIND_H
#define CUDOCTOR_PROBE_CUBLAS_FIND_H

#include "driver/cublas.h"
#include "facts/python.h"

/* cublas_load with the libcublas files runtimes_probe finds (LD_LIBRARY_PATH, the ld cache,
 * toolkits, pip nvidia-cublas wheels in py's site-packages (NULL: none), torch/lib, conda),
 * newest version first. */
int cublas_find_load(struct cublas *b, const struct python_info *py, char *err);

#endif
