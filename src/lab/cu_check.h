/* One checked driver call for new lab code: the result of a call becomes CD_OK, or
 * CD_EDRIVER with "cuName: CUDA_ERROR_X (n)" in err. */
#ifndef CUDOCTOR_LAB_CU_CHECK_H
#define CUDOCTOR_LAB_CU_CHECK_H

#include "lab/lab.h"

/* TRY(lab_cu(c, c->d->MemAlloc(&p, n), "cuMemAlloc", err)); the caller has made sure the
 * entry point exists. */
int lab_cu(const struct lab_ctx *c, CUresult r, const char *call, char *err);

#endif
