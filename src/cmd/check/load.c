/* check's load part: each CUDA GPU in turn gets its share of the budget for the memory test,
 * with NVML sampled while the kernels run; the kernel log is read again after the last. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/judge.h"
#include "check/load.h"
#include "cmd/check/load.h"
#include "lab/fatbin.h"
#include "lab/gpu.h"
#include "lab/nvml_dev.h"
#include "probe/kmsg.h"
#include "rules/rules.h"
#include "util/err.h"

/* The memory test's part of a GPU's share; the rest is left for the GEMM stress. */
#define MEM_SHARE 0.34

static const char *const headers[] = { "GPU", "tested (GiB)", "passes", "errors", "bandwidth (GB/s)", "seconds", "note" };

static int one_gpu(struct report *r, struct cd_run *run, const struct gpu_info *gi, const struct check_load_opts *o,
		   double share_s, struct check_samples *smp, struct report_rec *row)
{
	char lerr[CD_ERRMSG] = "", subject[320];
	struct check_mem_result m;
	struct check_mem_run mr;
	struct lab_nvml nv;
	struct lab_ctx c;
	int rc;

	gpu_subject(gi, subject, sizeof subject);
	report_field(row, "GPU", "gpu_index", rv_int(gi->cuda_ordinal));
	memset(&c, 0, sizeof c);
	c.seed = o->seed;
	c.nv = driver_nvml_ok(&run->probe) ? run->nv : NULL;
	c.probe = &run->probe;
	if (lab_open(&c, run->cu, gi->cuda_ordinal, lab_fatbin, lerr) != CD_OK) {
		report_field(row, "note", "error", rv_str(lerr));
		return CD_OK;
	}
	lab_nvml_open(&nv, c.nv, c.d, c.dev);
	smp->nv = &nv;
	smp->n = 0;
	smp->t0 = lab_now_s();
	struct check_mem_opts mo = { .seconds = share_s * MEM_SHARE, .inject = o->inject, .seed = o->seed, .samples = smp };
	if (check_memtest(&c, &mo, &m, &mr, lerr) != CD_OK) {
		report_field(row, "note", "error", rv_str(lerr));
		rc = CD_OK;
		goto out;
	}
	report_fieldf(row, "tested (GiB)", "bytes", rv_int((long long)m.bytes), "%.1f", (double)m.bytes / (1ull << 30));
	report_field(row, "passes", "passes", rv_int(mr.passes));
	report_field(row, "errors", "errors", rv_int((long long)m.errors));
	report_fieldf(row, "bandwidth (GB/s)", "bandwidth_bytes_per_s", rv_real(mr.bytes_per_s), "%.0f", mr.bytes_per_s / 1e9);
	report_fieldf(row, "seconds", "seconds", rv_real(mr.seconds), "%.1f", mr.seconds);
	report_field(row, NULL, "samples", rv_int((long long)smp->n));
	if (mr.injected)
		report_fieldf(row, "note", "injected_bitflips", rv_int(mr.injected), "%u bits flipped on purpose (CUDOCTOR_CHECK_INJECT)", mr.injected);
	if ((rc = check_judge_memory(r, subject, &m)) == CD_OK)
		rc = check_judge_throttle(r, subject, smp->s, smp->n);
out:
	lab_nvml_close(&nv);
	lab_close(&c);
	return rc;
}

int check_load(struct report *r, struct cd_run *run, const struct check_load_opts *o,
	       const struct kmsg_events *before, char *err)
{
	struct report_rec top, load, gpus, row;
	struct check_samples *smp = NULL;
	struct kmsg_events *after = NULL;
	const char *why = NULL;
	size_t n = 0;
	int rc = CD_OK;

	for (size_t i = 0; i < run->probe.n_gpus; i++)
		n += run->probe.gpus[i].cuda_ordinal >= 0;
	if (lab_fatbin_size == 0)
		why = "this cudoctor was built without its kernels (no nvcc when it was built)";
	else if (!run->cuda_usable || !run->cu || n == 0)
		why = "the load tests need a GPU that CUDA can use; only the deployment checks ran";
	report_rec_top(&top, r);
	report_rec_section(&top, "Load tests");
	report_rec_object(&top, "load", &load);
	report_fieldf(&load, "budget", "budget_s", rv_real(o->budget_s), "%.0f s for %zu GPU%s", o->budget_s, n, n == 1 ? "" : "s");
	if (why) {
		report_field(&load, "state", "state", rv_str("not run"));
		report_field(&load, "why", "why", rv_str(why));
		goto end;
	}
	report_field(&load, "state", "state", rv_str("run"));
	smp = malloc(sizeof *smp);
	after = malloc(sizeof *after);
	if (!smp || !after) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto end;
	}
	report_rec_table(&load, "gpus", sizeof headers / sizeof headers[0], headers, &gpus);
	for (size_t i = 0; i < run->probe.n_gpus && rc == CD_OK; i++) {
		if (run->probe.gpus[i].cuda_ordinal < 0)
			continue;
		report_rec_item(&gpus, &row);
		rc = one_gpu(r, run, &run->probe.gpus[i], o, o->budget_s / (double)n, smp, &row);
		if (report_rec_end(&row) != CD_OK && rc == CD_OK)
			rc = row.rc;
	}
	if (report_rec_end(&gpus) != CD_OK && rc == CD_OK)
		rc = gpus.rc;
	/* an Xid the load provoked: the log read again, compared with the read before */
	if (rc == CD_OK && (rc = kmsg_probe(after, NULL, err)) == CD_OK) {
		bool both = before->state == KMSG_READ && after->state == KMSG_READ;
		report_field(&load, "kernel log read again", "xids_checked", rv_bool(both));
		if (both)
			rc = check_judge_new_xid(r, before, after, &run->probe);
	}
end:
	free(smp);
	free(after);
	if (report_rec_end(&load) != CD_OK && rc == CD_OK)
		rc = load.rc;
	if (report_rec_end(&top) != CD_OK && rc == CD_OK)
		rc = top.rc;
	return rc;
}
