/* The lab kernels (kernels/NAME.cu) as one fatbin embedded at build time; size 0 without nvcc. */
#ifndef CUDOCTOR_LAB_FATBIN_H
#define CUDOCTOR_LAB_FATBIN_H

#include <stddef.h>

extern const unsigned char lab_fatbin[];
extern const size_t lab_fatbin_size;

#endif
