/* check's load part: each CUDA GPU in turn gets its share of the budget for the memory test,
 * the GEMM stress and the host-device copies, with NVML sampled while the kernels run (a
 * progress line on a terminal; a bounded timeline per row, charted for --html); the kernel
 * log is read again after the last. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/fields.h"
#include "check/judge.h"
#include "check/load.h"
#include "cmd/check/load.h"
#include "driver/cublas.h"
#include "lab/fatbin.h"
#include "lab/gpu.h"
#include "lab/hostxfer.h"
#include "lab/nvml_dev.h"
#include "lab/sizing.h"
#include "lab/svg.h"
#include "report/progress.h"
#include "rules/rules.h"
#include "util/clock.h"
#include "util/err.h"

/* The parts of a GPU's share; the rest covers opening the context, allocating, loading
 * cuBLAS, the reference GEMM and the host<->device copies (COPY_REPS timed batches each way
 * of COPY_BYTES: well under a second on any PCIe link of gen 3 or later). */
#define MEM_SHARE 0.25
#define GEMM_SHARE 0.45
#define COPY_BYTES ((size_t)512 << 20)
#define COPY_REPS 5

/* The progress line on stderr (report/progress.h): which GPU, which test, the seconds spent
 * of the budget. */
struct load_progress {
	struct progress_line line;
	double budget_s;
	size_t gpu, n_gpus;         /* the GPU's place in the run, from 0 */
	int ordinal;                /* its CUDA ordinal, as the rows and findings name it */
	const char *phase;
};

static void progress_tick(void *user)
{
	struct load_progress *p = user;

	progress_say(&p->line, "check: GPU %d (%zu of %zu), %s, %.0f of %.0f s", p->ordinal, p->gpu + 1, p->n_gpus,
		     p->phase, cd_now_s() - p->line.start, p->budget_s);
}

static void progress_phase(struct check_samples *smp, const char *phase)
{
	struct load_progress *p = smp->tick_user;

	p->phase = phase;
	progress_tick(p);
}

static const char *const headers[] = { "GPU", "tested (GiB)", "errors", "bandwidth (GB/s)", "GEMM", "TFLOP/s",
				       "of theory", "mismatches", "H2D / D2H (GB/s)", "of link", "note" };

#define LT (&check_load_gpu_field_table)

/* One libcublas for every GPU, loaded when the first GPU's tests reach the GEMM stress (a run
 * whose GPUs never open loads none); without it the memory test still runs. */
struct blas_once {
	bool tried, ok;
	struct cublas b;
	char err[CD_ERRMSG];
};

static struct cublas *blas_get(struct blas_once *bo, struct cd_run *run)
{
	if (!bo->tried) {
		bo->tried = true;
		bo->ok = cd_run_load_cublas(run, &bo->b, bo->err) == CD_OK;
	}
	return bo->ok ? &bo->b : NULL;
}

/* One GEMM type's result on one GPU, kept for the table of types --gemm asks for. */
struct gemm_typed {
	int ordinal;
	const struct check_gemm_type *type;
	bool ran;
	struct check_gemm_result g;
	struct check_gemm_run run;
	char note[CD_ERRMSG];
};

static const char *const type_headers[] = { "GPU", "type", "size", "TFLOP/s", "of theory", "mismatches", "note" };

/* a GEMM result's rate against its theory: the same fields in a GPU's row and a type's row */
static void gemm_rate_fields(struct report_rec *w, const struct check_gemm_result *gr, const struct check_gemm_run *grun)
{
	double theory = check_gemm_theory(gr);

	if (theory > 0)
		report_fieldf(w, "of theory", "gemm_of_theory", rv_real(gr->flops / theory), "%.0f%% at %.0f MHz",
			      gr->flops / theory * 100, gr->sm_mhz);
	else
		report_fieldf(w, "of theory", "gemm_of_theory", rv_null(), "%s", "unknown");
	report_field(w, NULL, "gemm_theory_flops", theory > 0 ? rv_real(theory) : rv_null());
	report_field(w, NULL, "gemm_sm_mhz", gr->sm_mhz > 0 ? rv_real(gr->sm_mhz) : rv_null());
	report_field(w, NULL, "gemms", rv_int((long long)gr->gemms));
	report_field(w, NULL, "gemm_seconds", rv_real(grun->seconds));
	report_field(w, NULL, "gemm_first_flops", rv_real(grun->first_flops));
	report_field(w, NULL, "gemm_last_flops", rv_real(grun->last_flops));
}

/* The GEMM stress's part of a row and its verdicts: the GPU's fastest type, or each type of
 * o->gemm_types in turn within the share, the row showing the first that ran and typed[] (one
 * slot per type) keeping each. */
static int gemm_part(struct report *r, struct lab_ctx *c, struct blas_once *bo, const struct check_load_opts *o,
		     double seconds, struct check_samples *smp, const char *subject, struct report_rec *row,
		     struct check_load_gpu *lg, struct gemm_typed *typed)
{
	struct check_gemm_opts go = { .seconds = seconds, .n = c->info.free_mem > (4ull << 30) ? 8192 : 4096,
				      .samples = smp };
	struct check_gemm_result gr;
	struct check_gemm_run grun;
	struct cublas *blas = blas_get(bo, c->machine);
	char lerr[CD_ERRMSG] = "";
	unsigned ntypes = 0;
	bool shown = false;
	int cc = c->info.cc_major * 10 + c->info.cc_minor, rc = CD_OK;

	for (size_t t = 0; t < CHECK_GEMM_TYPES; t++)
		ntypes += (o->gemm_types >> t) & 1;
	if (!blas) {
		report_field(row, "note", "gemm_error", rv_str(bo->err));
		return CD_OK;
	}
	progress_phase(smp, "GEMM stress");
	for (size_t t = 0; t < (ntypes ? CHECK_GEMM_TYPES : 1) && rc == CD_OK; t++) {
		struct gemm_typed *slot = ntypes ? &typed[t] : NULL;

		if (ntypes && !((o->gemm_types >> t) & 1))
			continue;
		go.type = ntypes ? &check_gemm_types[t] : NULL;
		go.seconds = ntypes ? seconds / ntypes : seconds;
		if (slot) {
			slot->ordinal = c->ordinal;
			slot->type = go.type;
		}
		if (go.type && cc < go.type->min_cc) {
			snprintf(slot->note, sizeof slot->note, "needs compute capability %d.%d", go.type->min_cc / 10,
				 go.type->min_cc % 10);
			continue;
		}
		if (check_gemm(c, blas, &go, &gr, &grun, lerr) != CD_OK) {
			if (slot)
				snprintf(slot->note, sizeof slot->note, "%s", lerr);
			if (!shown)
				report_field(row, "note", "gemm_error", rv_str(lerr));
			continue;
		}
		if (slot) {
			slot->ran = true;
			slot->g = gr;
			slot->run = grun;
		}
		rc = check_judge_gemm(r, subject, &gr);
		if (shown)
			continue;
		shown = true;
		report_fieldf(row, "GEMM", "gemm_dtype", rv_str(gr.dtype), "%s %d^3", gr.dtype, gr.n);
		report_field(row, NULL, "gemm_n", rv_int(gr.n));
		lg->gemm_flops = gr.flops;
		lg->gemm_mismatches = (long long)gr.mismatches;
		report_one_fieldf(row, LT, CLF_GEMM_FLOPS, lg, "%.1f", gr.flops / 1e12);
		report_one_field(row, LT, CLF_GEMM_MISMATCHES, lg);
		gemm_rate_fields(row, &gr, &grun);
	}
	return rc;
}

/* --gemm's table: a row per GPU and type asked for, in the order they ran */
static int gemm_types_table(struct report_rec *load, const struct gemm_typed *typed, size_t n)
{
	struct report_rec table, row;
	int rc = CD_OK;

	report_rec_table(load, "gemm_types", sizeof type_headers / sizeof type_headers[0], type_headers, &table);
	for (size_t i = 0; i < n; i++) {
		const struct gemm_typed *x = &typed[i];

		if (!x->type)
			continue;
		report_rec_item(&table, &row);
		report_field(&row, "GPU", "gpu_index", rv_int(x->ordinal));
		report_field(&row, "type", "dtype", rv_str(x->type->name));
		if (x->ran) {
			report_fieldf(&row, "size", "n", rv_int(x->g.n), "%d^3", x->g.n);
			report_fieldf(&row, "TFLOP/s", "flops", rv_real(x->g.flops), "%.1f", x->g.flops / 1e12);
			report_field(&row, "mismatches", "mismatches", rv_int((long long)x->g.mismatches));
			gemm_rate_fields(&row, &x->g, &x->run);
		}
		if (x->note[0])
			report_field(&row, "note", "note", rv_str(x->note));
		if (report_rec_end(&row) != CD_OK) {
			rc = row.rc;
			break;
		}
	}
	if (report_rec_end(&table) != CD_OK && rc == CD_OK)
		rc = table.rc;
	return rc;
}

/* pinned copies each way against the PCIe link, lab host-transfer's copy and band */
static int copy_part(struct report *r, struct lab_ctx *c, struct check_samples *smp, const char *subject,
		     struct report_rec *row, struct check_load_gpu *lg)
{
	struct check_copy_result cr = { 0 };
	struct lab_pinned_copy pc;
	char lerr[CD_ERRMSG] = "";
	size_t bytes = COPY_BYTES;
	const char *src;

	while (bytes > ((size_t)16 << 20) && bytes > c->info.free_mem / 4)
		bytes /= 2;
	progress_phase(smp, "host-device copies");
	if (lab_pinned_copy(c, bytes, COPY_REPS, &pc, lerr) != CD_OK) {
		report_field(row, "note", "copy_error", rv_str(lerr));
		return CD_OK;
	}
	lab_pcie_link_now(c, &cr.gen, &cr.width, &src);
	cr.bytes = pc.bytes;
	cr.h2d = pc.h2d;
	cr.d2h = pc.d2h;
	cr.h2d_same = pc.h2d_same;
	cr.d2h_same = pc.d2h_same;
	cr.link = lab_pcie_bytes_per_s(cr.gen, cr.width);
	lg->copy_h2d = cr.h2d;
	lg->copy_d2h = cr.d2h;
	report_one_fieldf(row, LT, CLF_COPY_H2D, lg, "%.1f / %.1f%s", cr.h2d / 1e9, cr.d2h / 1e9,
			  cr.h2d_same && cr.d2h_same ? "" : " (data differs)");
	report_one_json(row, LT, CLF_COPY_D2H, lg);
	report_field(row, NULL, "copy_bytes", rv_int((long long)cr.bytes));
	report_field(row, NULL, "copy_same", rv_bool(cr.h2d_same && cr.d2h_same));
	if (cr.link > 0)
		report_fieldf(row, "of link", "copy_of_link", rv_real(fmin(cr.h2d, cr.d2h) / cr.link),
			      "%.0f%% of gen %d x%d", fmin(cr.h2d, cr.d2h) / cr.link * 100, cr.gen, cr.width);
	else
		report_fieldf(row, "of link", "copy_of_link", rv_null(), "%s", "link unknown");
	report_field(row, NULL, "copy_link_bytes_per_s", cr.link > 0 ? rv_real(cr.link) : rv_null());
	return check_judge_copy(r, subject, &cr);
}

/* n values as an array under key of o, NaN as null */
static void numbers(struct report_rec *o, const char *key, const double *v, size_t n)
{
	struct report_rec a;

	report_rec_array(o, key, &a);
	for (size_t i = 0; i < n; i++)
		report_rec_push(&a, isnan(v[i]) ? rv_null() : rv_real(v[i]));
	if (report_rec_end(&a) != CD_OK)
		return; /* the failure is o's now */
}

/* the timeline in the row's JSON: parallel arrays of at most CHECK_TIMELINE_POINTS */
static void put_timeline(struct report_rec *row, const struct check_timeline *tl)
{
	struct report_rec o;

	report_rec_object(row, "timeline", &o);
	numbers(&o, "t_s", tl->t_s, tl->n);
	numbers(&o, "sm_mhz", tl->sm_mhz, tl->n);
	numbers(&o, "temperature_c", tl->temperature_c, tl->n);
	numbers(&o, "power_w", tl->power_w, tl->n);
	numbers(&o, "gemm_flops", tl->gemm_flops, tl->n);
	if (report_rec_end(&o) != CD_OK)
		return; /* the failure is row's now */
}

/* One chart (HTML only) of one quantity of a GPU's timeline over the seconds of its load;
 * none when no point is known. */
static int timeline_figure(struct report *r, const char *subject, const char *what, const char *unit,
			   const struct check_timeline *tl, const double *v, double scale)
{
	struct lab_plot *p = calloc(1, sizeof *p);
	char caption[400], *svg;
	bool any = false;
	int rc;

	if (!p)
		return CD_ENOMEM;
	for (size_t i = 0; i < tl->n; i++)
		if (!isnan(v[i])) {
			lab_plot_point(p, 0, what, tl->t_s[i], v[i] * scale);
			any = true;
		}
	snprintf(caption, sizeof caption, "%s: %s under load", subject, what);
	snprintf(p->title, sizeof p->title, "%s under load", what);
	snprintf(p->xlabel, sizeof p->xlabel, "seconds on this GPU");
	snprintf(p->ylabel, sizeof p->ylabel, "%s", unit);
	svg = any ? lab_svg_render(p) : NULL;
	rc = svg ? report_figure(r, caption, svg) : CD_OK;
	free(svg);
	free(p);
	return rc;
}

/* GEMM throughput, SM clock, temperature and power over time, per GPU: charts the HTML page
 * draws (--html), from the timelines the rows keep */
static int timeline_figures(struct report *r, const struct gpu_probe *gp, const struct check_timeline *tls)
{
	int rc = CD_OK;

	for (size_t i = 0, k = 0; i < gp->n_gpus && rc == CD_OK; i++) {
		char subject[320];

		if (gp->gpus[i].cuda_ordinal < 0)
			continue;
		gpu_subject(&gp->gpus[i], subject, sizeof subject);
		if ((rc = timeline_figure(r, subject, "GEMM throughput", "TFLOP/s", &tls[k], tls[k].gemm_flops, 1e-12)) ==
			    CD_OK &&
		    (rc = timeline_figure(r, subject, "SM clock", "MHz", &tls[k], tls[k].sm_mhz, 1)) == CD_OK &&
		    (rc = timeline_figure(r, subject, "temperature", "C", &tls[k], tls[k].temperature_c, 1)) == CD_OK)
			rc = timeline_figure(r, subject, "power", "W", &tls[k], tls[k].power_w, 1);
		k++;
	}
	return rc;
}

/* the hottest sample and every clock event reason seen, over the GPU's samples */
static void sample_peaks(const struct check_samples *smp, struct check_load_gpu *lg)
{
	for (size_t i = 0; i < smp->n; i++) {
		if (smp->s[i].temperature_c > lg->max_temperature_c)
			lg->max_temperature_c = smp->s[i].temperature_c;
		if (smp->s[i].reasons >= 0)
			lg->clock_event_reasons = (lg->clock_event_reasons < 0 ? 0 : lg->clock_event_reasons) | smp->s[i].reasons;
	}
}

/* the copies' link where NVML cannot say it: the run's topology part */
static int sysfs_link(const struct lab_ctx *c, int *gen, int *width)
{
	char err[CD_ERRMSG];

	return cd_run_sysfs_link(c->machine, c->ordinal, gen, width, err);
}

static int one_gpu(struct report *r, struct cd_run *run, const struct gpu_info *gi, const struct check_load_opts *o,
		   double share_s, struct blas_once *bo, struct check_samples *smp,
		   struct report_rec *row, struct check_timeline *tl, struct gemm_typed *typed)
{
	char lerr[CD_ERRMSG] = "", subject[320];
	struct check_mem_result m;
	struct check_mem_run mr;
	struct check_load_gpu lg;
	struct lab_nvml nv;
	struct lab_ctx c;
	int rc;

	gpu_subject(gi, subject, sizeof subject);
	check_load_gpu_init(&lg, gi);
	report_field(row, "GPU", "gpu_index", rv_int(gi->cuda_ordinal));
	memset(&c, 0, sizeof c);
	c.seed = o->seed;
	c.nv = driver_nvml_ok(&run->probe) ? run->nv : NULL;
	c.probe = &run->probe;
	if (lab_open(&c, run->cu, gi->cuda_ordinal, lab_fatbin, lerr) != CD_OK) {
		report_field(row, "note", "error", rv_str(lerr));
		report_fields_keep(row, LT, &lg);
		return CD_OK;
	}
	lab_nvml_open(&nv, c.nv, c.d, c.dev);
	c.pcie_link = lab_nvml_link;
	c.clock_user = &nv;
	c.machine = run;
	c.sysfs_link = sysfs_link;
	smp->nv = &nv;
	smp->n = 0;
	smp->t0 = lab_now_s();
	progress_phase(smp, "memory test");
	struct check_mem_opts mo = { .seconds = share_s * MEM_SHARE, .inject = o->inject, .seed = o->seed, .samples = smp };
	if (check_memtest(&c, &mo, &m, &mr, lerr) != CD_OK) {
		report_field(row, "note", "error", rv_str(lerr));
		rc = CD_OK;
		goto out;
	}
	report_fieldf(row, "tested (GiB)", "bytes", rv_int((long long)m.bytes), "%.1f", (double)m.bytes / (1ull << 30));
	report_field(row, NULL, "passes", rv_int(mr.passes));
	lg.mem_errors = (long long)m.errors;
	lg.mem_bytes_per_s = mr.bytes_per_s;
	report_one_field(row, LT, CLF_MEM_ERRORS, &lg);
	report_one_fieldf(row, LT, CLF_MEM_BW, &lg, "%.0f", mr.bytes_per_s / 1e9);
	report_field(row, NULL, "seconds", rv_real(mr.seconds));
	if (mr.injected)
		report_fieldf(row, "note", "injected_bitflips", rv_int(mr.injected), "%u bits flipped on purpose (CUDOCTOR_CHECK_INJECT)", mr.injected);
	if ((rc = check_judge_memory(r, subject, &m)) == CD_OK &&
	    (rc = gemm_part(r, &c, bo, o, share_s * GEMM_SHARE, smp, subject, row, &lg, typed)) == CD_OK &&
	    (rc = check_judge_throttle(r, subject, smp->s, smp->n)) == CD_OK)
		rc = copy_part(r, &c, smp, subject, row, &lg);
	report_field(row, NULL, "samples", rv_int((long long)smp->n));
out:
	sample_peaks(smp, &lg);
	check_timeline_make(smp->s, smp->n, tl);
	put_timeline(row, tl);
	report_one_json(row, LT, CLF_MAX_TEMP, &lg);
	report_one_json(row, LT, CLF_REASONS, &lg);
	report_fields_keep(row, LT, &lg);
	lab_nvml_close(&nv);
	lab_close(&c);
	return rc;
}

int check_load(struct report *r, struct cd_run *run, const struct check_load_opts *o,
	       const struct kmsg_events *before, char *err)
{
	struct report_rec top, load, gpus, row;
	struct check_samples *smp = NULL;
	struct check_timeline *tls = NULL; /* one per CUDA GPU, for the charts */
	struct gemm_typed *typed = NULL;   /* CHECK_GEMM_TYPES per CUDA GPU, with --gemm */
	struct blas_once bo = { 0 };
	struct kmsg_events *after = NULL;
	struct load_progress prog = { .budget_s = o->budget_s, .phase = "opening the GPU" };
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
	tls = calloc(n, sizeof *tls);
	typed = calloc(n * CHECK_GEMM_TYPES, sizeof *typed);
	if (!smp || !after || !tls || !typed) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto end;
	}
	smp->tick = progress_tick;
	smp->tick_user = &prog;
	prog.n_gpus = n;
	progress_start(&prog.line, o->progress, "check");
	report_rec_table(&load, "gpus", sizeof headers / sizeof headers[0], headers, &gpus);
	for (size_t i = 0, k = 0; i < run->probe.n_gpus && rc == CD_OK; i++) {
		if (run->probe.gpus[i].cuda_ordinal < 0)
			continue;
		report_rec_item(&gpus, &row);
		prog.ordinal = run->probe.gpus[i].cuda_ordinal;
		progress_phase(smp, "opening the GPU");
		rc = one_gpu(r, run, &run->probe.gpus[i], o, o->budget_s / (double)n, &bo,
			     smp, &row, &tls[k], &typed[k * CHECK_GEMM_TYPES]);
		k++;
		if (report_rec_end(&row) != CD_OK && rc == CD_OK)
			rc = row.rc;
		prog.gpu++;
	}
	progress_end(&prog.line);
	if (report_rec_end(&gpus) != CD_OK && rc == CD_OK)
		rc = gpus.rc;
	if (rc == CD_OK && o->gemm_types)
		rc = gemm_types_table(&load, typed, n * CHECK_GEMM_TYPES);
	/* an Xid the load provoked: the log read again, compared with the read before */
	if (rc == CD_OK && (rc = cd_run_kernel_log_again(after, err)) == CD_OK) {
		bool both = before->state == KMSG_READ && after->state == KMSG_READ;
		report_field(&load, "kernel log read again", "xids_checked", rv_bool(both));
		if (both)
			rc = check_judge_new_xid(r, before, after, &run->probe);
	}
end:
	if (bo.ok)
		cublas_unload(&bo.b);
	free(smp);
	free(after);
	free(typed);
	if (report_rec_end(&load) != CD_OK && rc == CD_OK)
		rc = load.rc;
	if (report_rec_end(&top) != CD_OK && rc == CD_OK)
		rc = top.rc;
	if (rc == CD_OK && tls)
		rc = timeline_figures(r, &run->probe, tls);
	free(tls);
	return rc;
}
