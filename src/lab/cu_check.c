/* Checked driver calls for the labs (lab_cu). */
#include "lab/cu_check.h"

#include "util/err.h"

int lab_cu(const struct lab_ctx *c, CUresult r, const char *call, char *err)
{
	return r == CUDA_SUCCESS ? CD_OK : cudrv_fail(c->d, err, call, r);
}
