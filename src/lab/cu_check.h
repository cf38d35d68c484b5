/* Checked driver calls for lab code without the CU macro. */
#ifndef CUDOCTOR_LAB_CU_CHECK_H
#define CUDOCTOR_LAB_CU_CHECK_H

#include "lab/lab.h"

/* CD_OK when r is CUDA_SUCCESS, else CD_EDRIVER with "cuName: CUDA_ERROR_X (n)" in err. */
int lab_cu(struct lab_ctx *c, CUresult r, const char *call, char *err);

#endif
