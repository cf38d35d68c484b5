/* `cudoctor devices`: every GPU with what deviceQuery prints plus what NVML adds, as a
 * table per GPU or as JSON (every field, units in the key names), with health findings. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "rules/amd.h"
#include "rules/rules.h"
#include "show/amd.h"
#include "show/gpu_facts.h"
#include "util/err.h"
#include "util/units.h"

/* The driver, then a section per GPU: every fact from the tables (FIELD_FULL), their JSON
 * beside them. */
static int put_facts(struct report *r, const struct gpu_probe *p, bool amd_only)
{
	struct report_rec top, gpus, g;
	char subject[320];
	int rc;

	report_rec_top(&top, r);
	report_rec_section(&top, "Driver");
	if (amd_only)
		report_rec_line(&top, "no NVIDIA GPU: this is an AMD machine (AMD GPUs below), the CUDA driver's absence "
				      "is expected");
	if (gpu_facts_driver(&top, p, FIELD_FULL) != CD_OK)
		return report_rec_end(&top);
	report_rec_array(&top, "gpus", &gpus);
	for (size_t i = 0; i < p->n_gpus; i++) {
		report_rec_item(&gpus, &g);
		gpu_subject(&p->gpus[i], subject, sizeof subject);
		report_rec_section(&g, "%s", subject);
		gpu_facts_gpu(&g, &p->gpus[i], FIELD_FULL);
		if (report_rec_end(&g) != CD_OK)
			break;
	}
	rc = report_rec_end(&gpus); /* its error is top's too */
	return report_rec_end(&top) != CD_OK ? top.rc : rc;
}

/* -q: a line per GPU a script can read (which GPU, its arch, memory, the driver), then
 * the warn and error findings. */
static int put_answer(struct report *r, const struct gpu_probe *p, bool amd_only)
{
	char subject[320], cc[32], mem[48];
	int rc = CD_OK;

	if (!p->n_gpus && amd_only)
		rc = report_answer(r, "no NVIDIA GPU: an AMD machine");
	else if (!p->n_gpus)
		rc = report_answer(r, "no GPU: %d seen by CUDA, %d by NVML",
				   driver_has(p, DF_CUDA_DEVICE_COUNT) ? p->cuda_device_count : 0,
				   driver_has(p, DF_NVML_DEVICE_COUNT) ? p->nvml_device_count : 0);
	for (size_t i = 0; rc == CD_OK && i < p->n_gpus; i++) {
		const struct gpu_info *g = &p->gpus[i];

		gpu_subject(g, subject, sizeof(subject));
		if (gpu_has(g, GF_CC))
			snprintf(cc, sizeof(cc), "sm_%lld%lld", g->cc_major, g->cc_minor);
		else
			snprintf(cc, sizeof(cc), "compute capability unknown");
		if (gpu_has(g, GF_MEMORY_TOTAL))
			units_fmt_bytes((uint64_t)g->memory_total_bytes, mem, sizeof(mem));
		else if (gpu_has(g, GF_NVML_MEMORY))
			units_fmt_bytes((uint64_t)g->nvml_memory_total_bytes, mem, sizeof(mem));
		else
			snprintf(mem, sizeof(mem), "memory unknown");
		rc = report_answer(r, "%s: %s, %s, driver %s", subject, cc, mem,
				   driver_has(p, DF_VERSION) ? p->user_driver_version : "version unknown");
	}
	return rc;
}

/* An AMD machine's GPUs and device nodes (probe/amd.h), and their findings; nothing on one
 * that shows nothing AMD. */
static int put_amd(struct report *r, struct cd_run *run)
{
	const struct amd_host *h;
	struct report_rec top;
	char err[CD_ERRMSG];

	if (cd_run_amd(run, &h, err) != CD_OK)
		return CD_ENOMEM;
	if (!rules_amd_present(h))
		return CD_OK;
	report_rec_top(&top, r);
	(void)show_amd(&top, h, cd_run_amd_only(run), FIELD_FULL);
	for (size_t i = 0; i < h->n_gpus; i++)
		(void)report_answer(r, "AMD GPU %zu (%s): %s", i, h->gpus[i].product[0] ? h->gpus[i].product : h->gpus[i].gfx,
				    h->gpus[i].gfx);
	if (report_rec_end(&top) != CD_OK)
		return CD_ENOMEM;
	return rules_amd(r, h);
}

static const struct cli_opt devices_opts[] = { CMD_OPT_FORMAT_ENTRY, { 0 } };

static int devices_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	const struct gpu_probe *p; /* judged by main.c before this runs */
	bool amd_only;
	int rc;

	if (argc > 1)
		return cd_fail(err, CD_EUSAGE, "devices takes no arguments (got '%.60s')", argv[1]);
	if ((rc = cd_run_driver(g->run, &p, err)) != CD_OK)
		return rc;
	amd_only = cd_run_amd_only(g->run);
	if ((rc = rules_gpu_health(p, r)) != CD_OK || (rc = put_facts(r, p, amd_only)) != CD_OK ||
	    (rc = put_amd(r, g->run)) != CD_OK || (rc = put_answer(r, p, amd_only)) != CD_OK)
		rc = cd_fail(err, rc, "out of memory");
	return rc;
}

const struct cd_command cmd_devices = {
	.name = "devices",
	.summary = "every GPU: what deviceQuery prints plus NVML's state and health",
	.usage = "cudoctor devices [--format prometheus]",
	.opts = devices_opts,
	.help = "Lists every GPU the CUDA driver and NVML see, in CUDA order (GPUs hidden from CUDA "
		"by CUDA_VISIBLE_DEVICES follow, from NVML): name, compute capability, memory, SMs, "
		"clocks, limits per block and SM, caches, PCI location, UUID, compute mode; and from "
		"NVML the driver version, PCIe link, persistence, MIG mode and MIG devices (their "
		"GPU/compute instance, UUID and memory), power, temperature, clocks and clock event "
		"reasons, ECC counters, retired pages / remapped rows and processes. "
		"Reads only; creates no CUDA context.\n\n"
		"Findings: no-driver, no-device, driver-init-failed, system-not-ready, "
		"driver-library-mismatch, forward-compat-unsupported, nvml-unavailable (the same driver "
		"rules as doctor), gpu-lost, ecc-errors, retired-pages-pending, pcie-link-degraded, "
		"clocks-throttled. On an AMD machine also its GPUs (the KFD topology, VRAM), device nodes, "
		"ROCm and HIP, with rocm-kfd-access, amd-kfd-no-gpu, amd-hip-no-device, amd-visible-devices, "
		"amd-override-set and rocm-gfx-override-wrong; where nothing NVIDIA shows (no NVIDIA GPU on the "
		"PCI bus, no NVIDIA kernel module), no NVIDIA GPU is a fact, not a finding. "
		"--json carries every field, units in the key names (docs/json.md); unknown values are null. "
		"-q prints a line per GPU (GPU 0 (NAME): sm_90, memory, driver) and the warn and error "
		"findings, a line each.",
	.notes = "Environment: CUDOCTOR_LIBCUDA, CUDOCTOR_LIBNVML select the driver libraries, CUDOCTOR_LIBHIP "
		 "AMD's HIP runtime.",
	.needs = NEEDS_DRIVER,
	.run = devices_run,
};
