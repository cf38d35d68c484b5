/* `cudoctor mem probe [--max FRACTION] [--device N] [--demo]`: opt-in allocation
 * probe on each GPU (or one), through the tool's own primary context. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/mem/internal.h"
#include "mem/probe.h"
#include "rules/catalogue.h"
#include "util/units.h"
#include "util/err.h"

/* One GPU's probe: its lines, its object of "probe", its -q line and, when the free memory
 * is not one block, the oom-fragmentation finding. */
static void probe_fields(struct report_rec *w, const char *gpu, const struct mem_probe *p)
{
	const struct field_table *F = &mem_probe_field_table;
	char a[UNITS_BUF], b[UNITS_BUF], c[UNITS_BUF], d[UNITS_BUF];
	uint64_t gap = p->in_blocks > p->largest ? p->in_blocks - p->largest : 0;
	struct report *r = w->r;

	report_field(w, NULL, "gpu", rv_str(gpu));
	report_one_fieldf(w, F, MEM_PROBE_FREE, p, "%s / %s (cuMemGetInfo, with cudoctor's own context)",
			     units_fmt_bytes(p->free_before, a, sizeof a), units_fmt_bytes(p->total, b, sizeof b));
	report_one_json(w, F, MEM_PROBE_TOTAL, p);
	report_one_fieldf(w, F, MEM_PROBE_LIMIT, p, "%s (--max of the free memory)",
			     units_fmt_bytes(p->limit, a, sizeof a));
	if (p->largest_capped)
		report_one_fieldf(w, F, MEM_PROBE_LARGEST, p, "at least %s (the limit itself was granted)",
				     units_fmt_bytes(p->largest, a, sizeof a));
	else
		report_one_fieldf(w, F, MEM_PROBE_LARGEST, p, "%s (%s failed)", units_fmt_bytes(p->largest, a, sizeof a),
				     units_fmt_bytes(p->smallest_failed, b, sizeof b));
	report_one_json(w, F, MEM_PROBE_CAPPED, p);
	report_one_json(w, F, MEM_PROBE_SMALLEST_FAILED, p);
	report_one_fieldf(w, F, MEM_PROBE_IN_BLOCKS, p, "%s in %u blocks", units_fmt_bytes(p->in_blocks, a, sizeof a),
			     p->n_blocks);
	report_one_json(w, F, MEM_PROBE_BLOCKS, p);
	report_fieldf(w, "fragmentation", "fragmentation_bytes", rv_int((long long)gap), "%s (%.1f%% of what was allocatable): %s",
		      units_fmt_bytes(gap, a, sizeof a), p->in_blocks ? 100.0 * (double)gap / (double)p->in_blocks : 0.0,
		      gap * 10 > p->in_blocks ? "the driver cannot give the free memory as one block"
					      : "the driver gives the free memory as one block");
	report_one_json(w, F, MEM_PROBE_CALLS, p);
	report_one_fieldf(w, F, MEM_PROBE_ELAPSED, p,
			     "%.1f ms, %u cuMemAlloc calls, each block freed at once; free afterwards %s", p->held_ms,
			     p->n_calls, units_fmt_bytes(p->free_after, c, sizeof c));
	report_one_json(w, F, MEM_PROBE_FREE_AFTER, p);
	cmd_note(r, report_answer(r, "%s: largest block %s%s, %s in %u blocks, free %s of %s", gpu,
				  p->largest_capped ? "at least " : "", units_fmt_bytes(p->largest, a, sizeof a),
				  units_fmt_bytes(p->in_blocks, b, sizeof b), p->n_blocks,
				  units_fmt_bytes(p->free_before, c, sizeof c), units_fmt_bytes(p->total, d, sizeof d))); /* -q */
	if (gap * 10 > p->in_blocks) {
		struct finding_vars v;
		finding_vars_init(&v);
		finding_var(&v, "largest", "%s", units_fmt_bytes(p->largest, a, sizeof a));
		finding_var(&v, "in_blocks", "%s", units_fmt_bytes(p->in_blocks, b, sizeof b));
		struct finding *f = finding_make(r, SEV_WARN, "oom-fragmentation/probe", gpu, &v);
		if (f) {
			cmd_note(r, finding_evidence(f, "largest cuMemAlloc %" PRIu64 " bytes; %u blocks together %" PRIu64 " bytes",
					 p->largest, p->n_blocks, p->in_blocks));
		}
	}
}

/* The demonstration: its sentences and lines, and the "demo" object. */
static void demo_fields(struct report_rec *w, const struct mem_demo *m)
{
	const struct field_table *F = &mem_demo_field_table;
	char a[UNITS_BUF], b[UNITS_BUF], c[UNITS_BUF], d[UNITS_BUF];
	struct report_rec o;

	report_rec_object(w, "demo", &o);
	report_rec_line(&o, "Demonstration: %u segments x %u blocks of %s; blocks 1 and 3 of each segment freed "
			    "(%s free in total, largest hole %s); then a request of %s.",
			m->segments, m->blocks_per_segment, units_fmt_bytes(m->block, a, sizeof a),
			units_fmt_bytes(m->freed, b, sizeof b), units_fmt_bytes(m->largest_hole, c, sizeof c),
			units_fmt_bytes(m->request, d, sizeof d));
	for (int i = MEM_DEMO_BLOCK; i <= MEM_DEMO_REQUEST; i++)
		report_one_json(&o, F, i, m);
	report_one_fieldf(&o, F, MEM_DEMO_SEG_RESERVED_AFTER, m,
			     "reserved %s -> %s: the request fits no hole, so the allocator asks the driver for a new "
			     "segment while %s sit idle (driver: +%s used)",
			     units_fmt_bytes(m->seg_reserved_before, a, sizeof a),
			     units_fmt_bytes(m->seg_reserved_after, b, sizeof b), units_fmt_bytes(m->freed, c, sizeof c),
			     units_fmt_bytes(m->seg_driver_used_delta > 0 ? (uint64_t)m->seg_driver_used_delta : 0, d,
					     sizeof d));
	report_one_json(&o, F, MEM_DEMO_SEG_DRIVER_USED, m);
	if (m->vmm_supported)
		report_one_fieldf(&o, F, MEM_DEMO_VMM, m,
				     "mapped %s -> %s: freed blocks were unmapped and their pages returned; the request "
				     "was mapped %s after the last block (driver: +%s used; granularity %s)",
				     units_fmt_bytes(m->vmm_mapped_before, a, sizeof a),
				     units_fmt_bytes(m->vmm_mapped_after, b, sizeof b),
				     m->vmm_request_contiguous ? "contiguously" : "NOT",
				     units_fmt_bytes(m->vmm_driver_used_delta > 0 ? (uint64_t)m->vmm_driver_used_delta : 0, c,
						     sizeof c),
				     units_fmt_bytes(m->granularity, d, sizeof d));
	else
		report_one_fieldf(&o, F, MEM_DEMO_VMM, m,
				     "not shown: this driver/GPU lacks virtual memory management");
	for (int i = MEM_DEMO_VMM_MAPPED_AFTER; i <= MEM_DEMO_GRANULARITY; i++)
		report_one_json(&o, F, i, m);
	report_rec_line(&o, "This is what PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True changes: one growing "
			    "reservation per stream instead of one cudaMalloc per segment.");
	if (report_rec_end(&o) != CD_OK)
		return; /* the failure is w's now */
}

static int probe_device(const struct cudrv *d, int ordinal, double max, bool demo, struct report_rec *arr,
			char *err)
{
	CUdevice dev;
	CUcontext ctx = NULL;
	char name[128] = "?", gpu[160];
	struct mem_probe p;
	struct report_rec w;
	CUresult cr = d->DeviceGet(&dev, ordinal);
	if (cr != CUDA_SUCCESS)
		return cudrv_fail(d, err, "cuDeviceGet", cr);
	if (d->DeviceGetName)
		d->DeviceGetName(name, sizeof name, dev);
	snprintf(gpu, sizeof gpu, "GPU %d (%s)", ordinal, name);
	if (!d->DevicePrimaryCtxRetain || !d->CtxSetCurrent || !d->DevicePrimaryCtxRelease)
		return cd_fail(err, CD_EDRIVER, "libcuda lacks the primary-context calls");
	if ((cr = d->DevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS)
		return cudrv_fail(d, err, "cuDevicePrimaryCtxRetain", cr);
	int rc = CD_OK;
	if ((cr = d->CtxSetCurrent(ctx)) != CUDA_SUCCESS) {
		rc = cudrv_fail(d, err, "cuCtxSetCurrent", cr);
		goto out;
	}
	report_rec_item(arr, &w);
	report_rec_section(&w, "%s", gpu);
	if ((rc = mem_probe_measure(d, max, &p, err)) == CD_OK) {
		probe_fields(&w, gpu, &p);
		if (demo) {
			struct mem_demo m;

			if ((rc = mem_demo_run(d, dev, p.limit, &m, err)) == CD_OK)
				demo_fields(&w, &m);
		}
	}
	if (report_rec_end(&w) != CD_OK && rc == CD_OK)
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
out:
	d->CtxSetCurrent(NULL);
	d->DevicePrimaryCtxRelease(dev);
	return rc;
}

enum { O_MAX = 1, O_DEMO, O_DEVICE };

const struct cli_opt mem_probe_opts[] = {
	{ .id = O_MAX, .long_name = "max", .arg = CLI_REQUIRED, .metavar = "FRACTION",
	  .help = "allocate at most this fraction of the free memory (default 0.9)" },
	{ .id = O_DEMO, .long_name = "demo",
	  .help = "also show fragmentation inside cudoctor's own context, and how a virtual reservation "
		  "(cuMemAddressReserve + cuMemMap) avoids it" },
	{ .id = O_DEVICE, .long_name = "device", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "only CUDA device N (default: every device)" },
	{ 0 },
};

int mem_probe_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	double max = 0.9;
	bool demo = false;
	int only = -1, count = 0;
	char *end;

	for (size_t i = 0; i < g->args->n; i++) {
		const char *optarg = g->args->v[i].value;

		switch (g->args->v[i].opt->id) {
		case O_MAX:
			max = strtod(optarg, &end);
			if (end == optarg || *end || !(max > 0 && max <= 1))
				return cd_fail(err, CD_EUSAGE, "--max: '%.40s' is not a fraction in (0, 1]", optarg);
			break;
		case O_DEMO: demo = true; break;
		case O_DEVICE:
			only = (int)strtol(optarg, &end, 10);
			if (end == optarg || *end || only < 0)
				return cd_fail(err, CD_EUSAGE, "--device: '%.40s' is not a device index", optarg);
			break;
		}
	}
	if (argc > 1)
		return cd_fail(err, CD_EUSAGE, "unexpected '%.60s'", argv[1]);
	/* the run's driver, judged as doctor and devices judge it; nothing to probe unless CUDA works */
	struct cd_run *run = g->run;
	int rc = cd_run_judge_driver(run, r, err);
	if (rc != CD_OK)
		return rc;
	if (!run->cuda_usable)
		return CD_OK; /* -q: the finding on stderr says why nothing was probed */
	const struct cudrv *d = run->cu;
	CUresult cr;
	if ((cr = d->DeviceGetCount(&count)) != CUDA_SUCCESS)
		return cudrv_fail(d, err, "cuDeviceGetCount", cr);
	if (only >= count)
		return cd_fail(err, CD_EUSAGE, "--device %d: this machine has %d CUDA device(s)", only, count);
	struct report_rec top, arr;

	report_rec_top(&top, r);
	report_rec_array(&top, "probe", &arr);
	for (int i = 0; i < count && rc == CD_OK; i++)
		if (only < 0 || only == i)
			rc = probe_device(d, i, max, demo, &arr, err);
	if (report_rec_end(&arr) != CD_OK || report_rec_end(&top) != CD_OK)
		rc = rc ? rc : cd_fail(err, CD_ENOMEM, "out of memory");
	return rc;
}
