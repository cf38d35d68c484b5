/* The GEMM stress's verdicts: a result that differs from the reference is an error; a
 * sustained rate well below what the GPU computes at the clock it ran is a warning. */
#include <stdio.h>

#include "check/judge.h"
#include "rules/catalogue.h"
#include "util/err.h"

double check_gemm_theory(const struct check_gemm_result *g)
{
	if (g->flops_per_clk_sm <= 0 || g->sm_count <= 0 || g->sm_mhz <= 0)
		return 0;
	return g->flops_per_clk_sm * g->sm_count * g->sm_mhz * 1e6;
}

static int mismatch(struct report *r, const char *subject, const struct check_gemm_result *g)
{
	bool oom = false;
	struct finding_vars v;
	struct finding *f;

	finding_vars_init(&v);
	finding_var(&v, "mismatches", "%llu", g->mismatches);
	finding_var(&v, "gemms", "%llu", g->gemms);
	finding_var(&v, "dtype", "%s", g->dtype);
	f = finding_make(r, SEV_ERROR, "load-gemm-mismatch", subject, &v);
	if (!f)
		return CD_ENOMEM;
	oom |= finding_evidence(f, "%s %d x %d x %d, computed %llu times; %llu differed; largest element difference %.3g",
				g->dtype, g->n, g->n, g->n, g->gemms, g->mismatches, g->worst_diff) != CD_OK;
	return oom ? CD_ENOMEM : CD_OK;
}

static int slow(struct report *r, const char *subject, const struct check_gemm_result *g, double theory)
{
	double ratio = g->flops / theory;
	bool oom = false;
	struct finding_vars v;
	struct finding *f;

	finding_vars_init(&v);
	finding_var(&v, "dtype", "%s", g->dtype);
	finding_var(&v, "share", "%.0f%%", ratio * 100);
	f = finding_make(r, SEV_WARN, "load-gemm-slow", subject, &v);
	if (!f)
		return CD_ENOMEM;
	oom |= finding_evidence(f, "%s %d^3: %.1f TFLOP/s sustained; theory %.1f TFLOP/s (%d SMs x %.0f MHz x %.0f "
				   "FLOP/clock/SM); ratio %.2f, expected >= %.2f",
				g->dtype, g->n, g->flops / 1e12, theory / 1e12, g->sm_count, g->sm_mhz, g->flops_per_clk_sm,
				ratio, CHECK_GEMM_MIN_OF_THEORY) != CD_OK;
	return oom ? CD_ENOMEM : CD_OK;
}

int check_judge_gemm(struct report *r, const char *subject, const struct check_gemm_result *g)
{
	double theory = check_gemm_theory(g);
	int rc;

	if (g->mismatches && (rc = mismatch(r, subject, g)) != CD_OK)
		return rc;
	if (theory > 0 && g->flops > 0 && g->flops < CHECK_GEMM_MIN_OF_THEORY * theory)
		return slow(r, subject, g, theory);
	return CD_OK;
}
