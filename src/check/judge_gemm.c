/* The GEMM stress's verdicts: a result that differs from the reference is an error; a
 * sustained rate well below what the GPU computes at the clock it ran is a warning. */
#include <stdio.h>

#include "check/judge.h"
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
	struct finding *f;

	f = report_add_finding(r, SEV_ERROR, "load-gemm-mismatch", subject,
			       "%llu of %llu %s GEMM results differed from the reference", g->mismatches, g->gemms,
			       g->dtype);
	if (!f)
		return CD_ENOMEM;
	oom |= finding_evidence(f, "%s %d x %d x %d, computed %llu times; %llu differed; largest element difference %.3g",
				g->dtype, g->n, g->n, g->n, g->gemms, g->mismatches, g->worst_diff) != CD_OK;
	oom |= finding_why(f, "The same product of the same matrices must come out the same every time: a GPU that "
			      "returns a different result under sustained load has a faulty SM, memory or power "
			      "delivery, and corrupts training or inference without an error.") != CD_OK;
	oom |= finding_fix(f, "drain the GPU and run cudoctor check again; results that differ again are a hardware "
			      "fault: contact the vendor") != CD_OK;
	return oom ? CD_ENOMEM : CD_OK;
}

static int slow(struct report *r, const char *subject, const struct check_gemm_result *g, double theory)
{
	double ratio = g->flops / theory;
	bool oom = false;
	struct finding *f;

	f = report_add_finding(r, SEV_WARN, "load-gemm-slow", subject,
			       "%s GEMM ran at %.0f%% of what the GPU computes at its clock", g->dtype, ratio * 100);
	if (!f)
		return CD_ENOMEM;
	oom |= finding_evidence(f, "%s %d^3: %.1f TFLOP/s sustained; theory %.1f TFLOP/s (%d SMs x %.0f MHz x %.0f "
				   "FLOP/clock/SM); ratio %.2f, expected >= %.2f",
				g->dtype, g->n, g->flops / 1e12, theory / 1e12, g->sm_count, g->sm_mhz, g->flops_per_clk_sm,
				ratio, CHECK_GEMM_MIN_OF_THEORY) != CD_OK;
	oom |= finding_why(f, "The theory is taken at the clock the GPU ran during the stress, so lowered clocks do "
			      "not explain the gap: another process on the GPU, a degraded SM or memory, or a cuBLAS "
			      "that does not use this GPU's tensor cores do.") != CD_OK;
	oom |= finding_fix(f, "nvidia-smi --query-compute-apps=pid,used_memory --format=csv   # nothing else should run") != CD_OK;
	oom |= finding_fix(f, "cudoctor lab run libraries   # the same cuBLAS rate against the peak, per type") != CD_OK;
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
