/* `cudoctor mem probe [--max FRACTION] [--device N] [--demo]`: opt-in allocation
 * probe on each GPU (or one), through the tool's own primary context. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/mem/internal.h"
#include "mem/probe.h"
#include "util/units.h"
#include "util/err.h"

static void show_probe(struct report *r, const char *gpu, const struct mem_probe *p, json_t *j)
{
	char a[48], b[48], c[48], d[48];
	report_kv(r, "free / total", "%s / %s (cuMemGetInfo, with cudoctor's own context)",
		  units_fmt_bytes(p->free_before, a, sizeof a), units_fmt_bytes(p->total, b, sizeof b));
	report_kv(r, "probe limit", "%s (--max of the free memory)", units_fmt_bytes(p->limit, a, sizeof a));
	if (p->largest_capped)
		report_kv(r, "largest block", "at least %s (the limit itself was granted)", units_fmt_bytes(p->largest, a, sizeof a));
	else
		report_kv(r, "largest block", "%s (%s failed)", units_fmt_bytes(p->largest, a, sizeof a),
			  units_fmt_bytes(p->smallest_failed, b, sizeof b));
	report_kv(r, "in blocks", "%s in %u blocks", units_fmt_bytes(p->in_blocks, a, sizeof a), p->n_blocks);
	cmd_note(r, report_answer(r, "%s: largest block %s%s, %s in %u blocks, free %s of %s", gpu,
				  p->largest_capped ? "at least " : "", units_fmt_bytes(p->largest, a, sizeof a),
				  units_fmt_bytes(p->in_blocks, b, sizeof b), p->n_blocks,
				  units_fmt_bytes(p->free_before, c, sizeof c), units_fmt_bytes(p->total, d, sizeof d))); /* -q */
	uint64_t gap = p->in_blocks > p->largest ? p->in_blocks - p->largest : 0;
	report_kv(r, "fragmentation", "%s (%.1f%% of what was allocatable): %s", units_fmt_bytes(gap, a, sizeof a),
		  p->in_blocks ? 100.0 * (double)gap / (double)p->in_blocks : 0.0,
		  gap * 10 > p->in_blocks ? "the driver cannot give the free memory as one block"
					  : "the driver gives the free memory as one block");
	report_kv(r, "probe ran", "%.1f ms, %u cuMemAlloc calls, each block freed at once; free afterwards %s",
		  p->held_ms, p->n_calls, units_fmt_bytes(p->free_after, c, sizeof c));
	json_object_set_new(j, "gpu", json_string(gpu));
	json_object_set_new(j, "free_bytes", json_integer((json_int_t)p->free_before));
	json_object_set_new(j, "total_bytes", json_integer((json_int_t)p->total));
	json_object_set_new(j, "limit_bytes", json_integer((json_int_t)p->limit));
	json_object_set_new(j, "largest_block_bytes", json_integer((json_int_t)p->largest));
	json_object_set_new(j, "largest_block_capped", json_boolean(p->largest_capped));
	json_object_set_new(j, "smallest_failed_bytes", json_integer((json_int_t)p->smallest_failed));
	json_object_set_new(j, "allocatable_in_blocks_bytes", json_integer((json_int_t)p->in_blocks));
	json_object_set_new(j, "blocks", json_integer(p->n_blocks));
	json_object_set_new(j, "fragmentation_bytes", json_integer((json_int_t)gap));
	json_object_set_new(j, "alloc_calls", json_integer(p->n_calls));
	json_object_set_new(j, "elapsed_ms", json_real(p->held_ms));
	json_object_set_new(j, "free_after_bytes", json_integer((json_int_t)p->free_after));
	if (gap * 10 > p->in_blocks) {
		struct finding *f = report_add_finding(r, SEV_WARN, "oom-fragmentation", gpu,
						       "free memory exists but not as one block: largest %s of %s",
						       units_fmt_bytes(p->largest, a, sizeof a), units_fmt_bytes(p->in_blocks, b, sizeof b));
		if (f) {
			cmd_note(r, finding_evidence(f, "largest cuMemAlloc %" PRIu64 " bytes; %u blocks together %" PRIu64 " bytes",
					 p->largest, p->n_blocks, p->in_blocks));
			cmd_note(r, finding_why(f, "Each cuMemAlloc needs one contiguous virtual range backed by the driver's pages; "
				       "when device memory is split between live allocations no single request can "
				       "take all of it."));
			cmd_note(r, finding_fix(f, "allocate the largest buffers first, once, and reuse them"));
			cmd_note(r, finding_fix(f, "PyTorch: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"));
		}
	}
}

static void show_demo(struct report *r, const struct mem_demo *m, json_t *j)
{
	char a[48], b[48], c[48], d[48];
	report_line(r, "Demonstration: %u segments x %u blocks of %s; blocks 1 and 3 of each segment freed "
		       "(%s free in total, largest hole %s); then a request of %s.",
		    m->segments, m->blocks_per_segment, units_fmt_bytes(m->block, a, sizeof a),
		    units_fmt_bytes(m->freed, b, sizeof b), units_fmt_bytes(m->largest_hole, c, sizeof c),
		    units_fmt_bytes(m->request, d, sizeof d));
	report_kv(r, "segments (cuMemAlloc each)", "reserved %s -> %s: the request fits no hole, so the allocator "
		  "asks the driver for a new segment while %s sit idle (driver: +%s used)",
		  units_fmt_bytes(m->seg_reserved_before, a, sizeof a), units_fmt_bytes(m->seg_reserved_after, b, sizeof b),
		  units_fmt_bytes(m->freed, c, sizeof c),
		  units_fmt_bytes(m->seg_driver_used_delta > 0 ? (uint64_t)m->seg_driver_used_delta : 0, d, sizeof d));
	if (m->vmm_supported)
		report_kv(r, "one reservation (cuMemMap)", "mapped %s -> %s: freed blocks were unmapped and their pages "
			  "returned; the request was mapped %s after the last block (driver: +%s used; granularity %s)",
			  units_fmt_bytes(m->vmm_mapped_before, a, sizeof a), units_fmt_bytes(m->vmm_mapped_after, b, sizeof b),
			  m->vmm_request_contiguous ? "contiguously" : "NOT",
			  units_fmt_bytes(m->vmm_driver_used_delta > 0 ? (uint64_t)m->vmm_driver_used_delta : 0, c, sizeof c),
			  units_fmt_bytes(m->granularity, d, sizeof d));
	else
		report_kv(r, "one reservation (cuMemMap)", "not shown: this driver/GPU lacks virtual memory management");
	report_line(r, "This is what PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True changes: one growing "
		       "reservation per stream instead of one cudaMalloc per segment.");
	json_t *o = json_object();
	json_object_set_new(o, "block_bytes", json_integer((json_int_t)m->block));
	json_object_set_new(o, "freed_bytes", json_integer((json_int_t)m->freed));
	json_object_set_new(o, "largest_hole_bytes", json_integer((json_int_t)m->largest_hole));
	json_object_set_new(o, "request_bytes", json_integer((json_int_t)m->request));
	json_object_set_new(o, "segments_reserved_after_bytes", json_integer((json_int_t)m->seg_reserved_after));
	json_object_set_new(o, "segments_driver_used_bytes", json_integer(m->seg_driver_used_delta));
	json_object_set_new(o, "vmm_supported", json_boolean(m->vmm_supported));
	if (m->vmm_supported) {
		json_object_set_new(o, "vmm_mapped_after_bytes", json_integer((json_int_t)m->vmm_mapped_after));
		json_object_set_new(o, "vmm_driver_used_bytes", json_integer(m->vmm_driver_used_delta));
		json_object_set_new(o, "vmm_granularity_bytes", json_integer((json_int_t)m->granularity));
	}
	json_object_set_new(j, "demo", o);
}

static int probe_device(const struct cudrv *d, int ordinal, double max, bool demo, struct report *r,
			json_t *arr, char *err)
{
	CUdevice dev;
	CUcontext ctx = NULL;
	char name[128] = "?", gpu[160];
	struct mem_probe p;
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
	report_section(r, "%s", gpu);
	json_t *j = json_object();
	json_array_append_new(arr, j);
	if ((rc = mem_probe_measure(d, max, &p, err)))
		goto out;
	show_probe(r, gpu, &p, j);
	if (demo) {
		struct mem_demo m;
		if ((rc = mem_demo_run(d, dev, p.limit, &m, err)))
			goto out;
		show_demo(r, &m, j);
	}
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
	int rc = cd_run_driver(run, r, err);
	if (rc != CD_OK)
		return rc;
	if (!run->cuda_usable) {
		cmd_note(r, report_answer_findings(r)); /* -q: why nothing was probed */
		return CD_OK;
	}
	const struct cudrv *d = run->cu;
	CUresult cr;
	if ((cr = d->DeviceGetCount(&count)) != CUDA_SUCCESS)
		return cudrv_fail(d, err, "cuDeviceGetCount", cr);
	if (only >= count)
		return cd_fail(err, CD_EUSAGE, "--device %d: this machine has %d CUDA device(s)", only, count);
	json_t *arr = json_array();
	report_json_set(r, "probe", arr);
	for (int i = 0; i < count && rc == CD_OK; i++)
		if (only < 0 || only == i)
			rc = probe_device(d, i, max, demo, r, arr, err);
	if (rc == CD_OK)
		cmd_note(r, report_answer_findings(r));
	return rc;
}
