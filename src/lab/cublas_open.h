/* libcublas for the libraries lab, looked for where doctor looks for CUDA libraries. */
#ifndef CUDOCTOR_LAB_CUBLAS_OPEN_H
#define CUDOCTOR_LAB_CUBLAS_OPEN_H

#include "driver/cublas.h"

/* cublas_load with the libcublas files runtimes_probe finds (LD_LIBRARY_PATH, the ld
 * cache, toolkits, pip nvidia-cublas wheels, torch/lib, conda), newest version first. */
int lab_cublas_open(struct cublas *b, char *err);

#endif
