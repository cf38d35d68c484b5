/* Peak arithmetic per SM per clock for an arch and data type (kb/sm_flops.tsv), from
 * which the labs compute a GPU's peak FLOP/s: SMs x clock x this. */
#ifndef CUDOCTOR_KB_SM_FLOPS_H
#define CUDOCTOR_KB_SM_FLOPS_H

#include <stdbool.h>

struct kb_sm_flops {
	int arch;                  /* 10 * major + minor */
	char dtype[8];             /* "fp32", "fp16", "bf16" */
	char unit[8];              /* "fma" (CUDA cores) or "tensor" */
	double flops_per_clk;      /* an FMA counts 2 */
	bool uncertain;
	char source[256];
};

/* CD_OK; CD_ENOTFOUND when the table has no row for (arch, dtype); CD_EFORMAT when the
 * embedded table is malformed (err says where). */
int kb_sm_flops_find(int arch, const char *dtype, struct kb_sm_flops *out, char *err);
/* Same, from a table's text (tests). */
int kb_sm_flops_find_in(const char *text, int arch, const char *dtype, struct kb_sm_flops *out, char *err);

#endif
