/* `cudoctor check`: whether this machine is deployed so that GPU work runs reliably (DCGM's
 * level-1 list): the kernel log's Xid events, nouveau, the environment, device nodes,
 * persistence, and each GPU's health as the driver reports it; then the load tests
 * (cmd/check/load.c) within a budget, unless --no-load. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/check/load.h"
#include "cmd/cmd.h"
#include "facts/facts.h"
#include "kb/kb.h"
#include "os/env.h"
#include "rules/deploy.h"
#include "rules/rules.h"
#include "show/gpu_facts.h"
#include "util/err.h"

static const char *kmsg_state_name(enum kmsg_state s)
{
	switch (s) {
	case KMSG_READ: return "read";
	case KMSG_MISSING: return "missing";
	case KMSG_DENIED: return "restricted to root";
	case KMSG_FAILED: return "read failed";
	case KMSG_UNREAD: break;
	}
	return "not read";
}

static const char *event_kind_name(enum xid_event_kind k)
{
	return k == XID_EVENT_SXID ? "SXid" : k == XID_EVENT_OFF_BUS ? "fallen off the bus" : "Xid";
}

/* What was read, beside the findings: the kernel log's events, a row each, and the modules. */
static int put_facts(struct report *r, const struct deploy_info *d, const struct facts *f)
{
	const struct gpu_probe *gp = f->driver;
	bool linux_kernel = !f->platform->windows;
	static const char *const headers[] = { "event", "device", "GPU", "count", "first (s)", "text" };
	struct report_rec top, log, events, ev, mods;
	int rc;

	report_rec_top(&top, r);
	/* Windows has neither file: JSON says "linux only", the text shows no Linux file at all */
	if (!linux_kernel)
		report_rec_text(&top, REPORT_TEXT_NONE);
	report_rec_section(&top, "Kernel log (/dev/kmsg)");
	report_rec_object(&top, "kernel_log", &log);
	report_field(&log, "state", "state", rv_str(linux_kernel ? kmsg_state_name(d->kmsg.state) : "linux only"));
	if (d->kmsg.state == KMSG_READ) {
		report_field(&log, "read", "bytes", rv_bytes(d->kmsg.bytes));
		report_field(&log, "NVIDIA events", "n_events", rv_int((long long)d->kmsg.n));
		/* said in the text only when it happened */
		report_fieldf(&log, d->kmsg.log_full ? "bound" : NULL, "bound_reached", rv_bool(d->kmsg.log_full), "%s",
			      "read to 8 MiB: older events may be missing");
		report_fieldf(&log, d->kmsg.truncated ? "events" : NULL, "events_truncated", rv_bool(d->kmsg.truncated),
			      "%s", "more distinct events than the 64 listed");
	}
	if (d->kmsg.n)
		report_rec_table(&log, "events", sizeof headers / sizeof headers[0], headers, &events);
	else
		report_rec_array(&log, "events", &events);
	for (size_t i = 0; i < d->kmsg.n; i++) {
		const struct xid_event *e = &d->kmsg.ev[i];
		int g = deploy_event_gpu(e, gp);

		char label[48];

		if (e->kind == XID_EVENT_OFF_BUS)
			snprintf(label, sizeof label, "%s", event_kind_name(e->kind));
		else
			snprintf(label, sizeof label, "%s %d", event_kind_name(e->kind), e->xid);
		report_rec_item(&events, &ev);
		report_fieldf(&ev, "event", "xid", e->kind == XID_EVENT_OFF_BUS ? rv_null() : rv_int(e->xid), "%s", label);
		report_field(&ev, NULL, "kind", rv_str(event_kind_name(e->kind)));
		report_field(&ev, "device", "pci", rv_str(e->pci[0] ? e->pci : NULL));
		report_field(&ev, "GPU", "gpu_index", g >= 0 && gp->gpus[g].cuda_ordinal >= 0 ? rv_int(gp->gpus[g].cuda_ordinal) : rv_null());
		report_field(&ev, "count", "count", rv_int((long long)e->count));
		if (e->first_usec >= 0)
			report_fieldf(&ev, "first (s)", "first_usec", rv_int(e->first_usec), "%.3f", (double)e->first_usec / 1e6);
		else
			report_field(&ev, "first (s)", "first_usec", rv_null());
		report_field(&ev, NULL, "last_usec", e->last_usec >= 0 ? rv_int(e->last_usec) : rv_null());
		report_field(&ev, NULL, "pid", e->pid >= 0 ? rv_int(e->pid) : rv_null());
		report_field(&ev, "text", "text", rv_str(e->text));
		if (report_rec_end(&ev) != CD_OK)
			break;
	}
	/* each end hands its error to the parent: top's end returns the first */
	rc = report_rec_end(&events);
	rc = report_rec_end(&log) != CD_OK && rc == CD_OK ? log.rc : rc;
	report_rec_section(&top, "Kernel modules (/proc/modules)");
	report_rec_object(&top, "modules", &mods);
	if (d->mods.read) {
		report_field(&mods, "nvidia", "nvidia", rv_bool(d->mods.nvidia));
		report_field(&mods, "nvidia_uvm", "nvidia_uvm", rv_bool(d->mods.nvidia_uvm));
		report_field(&mods, "nouveau", "nouveau", rv_bool(d->mods.nouveau));
	} else
		report_field(&mods, "state", "state", rv_str(linux_kernel ? "not readable" : "linux only"));
	rc = report_rec_end(&mods) != CD_OK && rc == CD_OK ? mods.rc : rc;
	return report_rec_end(&top) != CD_OK ? top.rc : rc;
}

/* Each GPU the driver lists: its health facts (the field table's FIELD_HEALTH view) and its
 * verdict, the worst of the findings about it (rules_gpu_verdict), asked after every rule and
 * the load tests have judged; the verdict lines are -q's answer. */
static int put_gpus(struct report *r, const struct gpu_probe *gp, bool amd_only)
{
	struct report_rec top, gpus, g;
	int rc = CD_OK;

	report_rec_top(&top, r);
	report_rec_array(&top, "gpus", &gpus);
	if (gp->n_gpus == 0 && amd_only) {
		/* check's tests are NVIDIA's (Xid events, NVML, CUDA kernels): nothing here to test */
		report_rec_section(&top, "GPUs");
		report_rec_line(&top, "no NVIDIA GPU: this is an AMD machine; check tests NVIDIA GPUs (cudoctor doctor "
				      "judges the AMD ones)");
		rc = report_answer(r, "no NVIDIA GPU: an AMD machine");
	} else if (gp->n_gpus == 0) {
		report_rec_section(&top, "GPUs");
		report_rec_line(&top, "no GPU listed by NVML or CUDA (the findings say why)");
		rc = report_answer(r, "no GPU listed by NVML or CUDA");
	}
	for (size_t i = 0; i < gp->n_gpus && rc == CD_OK; i++) {
		const struct gpu_info *gi = &gp->gpus[i];
		const char *ids[16];
		char subject[320], line[512];
		enum severity v;
		json_t *arr = json_array();
		size_t n, used;

		gpu_subject(gi, subject, sizeof subject);
		v = rules_gpu_verdict(r, gi, ids, sizeof ids / sizeof ids[0], &n);
		used = (size_t)snprintf(line, sizeof line, "%s", severity_name(v == SEV_INFO ? SEV_OK : v));
		for (size_t k = 0; k < n && arr; k++) {
			if (used < sizeof line)
				used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", k ? ", " : ": ", ids[k]);
			if (json_array_append_new(arr, report_json_text(ids[k]))) {
				json_decref(arr);
				arr = NULL;
			}
		}
		report_rec_item(&gpus, &g);
		report_rec_section(&g, "%s", subject);
		gpu_facts_gpu(&g, gi, FIELD_HEALTH);
		report_fieldf(&g, "verdict", "verdict", rv_str(severity_name(v == SEV_INFO ? SEV_OK : v)), "%s", line);
		report_field(&g, NULL, "verdict_findings", rv_json(arr));
		rc = report_rec_end(&g);
		if (rc == CD_OK)
			rc = report_answer(r, "%s: %s", subject, line);
	}
	rc = report_rec_end(&gpus) != CD_OK && rc == CD_OK ? gpus.rc : rc;
	return report_rec_end(&top) != CD_OK && rc == CD_OK ? top.rc : rc;
}

enum { O_LOAD = 1, O_NO_LOAD, O_QUICK, O_DURATION };

/* budgets for all GPUs together */
#define LOAD_DEFAULT_S 300.0
#define LOAD_QUICK_S 60.0

static const struct cli_opt check_opts[] = {
	CMD_OPT_FORMAT_ENTRY,
	{ .id = O_LOAD, .long_name = "load", .help = "run the load tests in at most 5 minutes for all GPUs (the default)" },
	{ .id = O_NO_LOAD, .long_name = "no-load",
	  .help = "the deployment checks alone: read only, no load tests and no GPU work" },
	{ .id = O_QUICK, .long_name = "quick", .help = "the load tests in at most 60 s for all GPUs" },
	{ .id = O_DURATION, .long_name = "duration", .arg = CLI_REQUIRED, .metavar = "S",
	  .help = "the load tests in at most S seconds for all GPUs" },
	{ 0 },
};

/* the load tests' budget from the options: 5 minutes unless --quick or --duration says
 * otherwise, 0 with --no-load (which no budget option may join) */
static int load_budget(const struct cd_globals *g, double *budget, char *err)
{
	const char *asked = NULL;
	bool no_load = false;

	*budget = LOAD_DEFAULT_S;
	for (size_t i = 0; i < g->args->n; i++) {
		const char *v = g->args->v[i].value;
		char *end;

		switch (g->args->v[i].opt->id) {
		case O_LOAD: asked = asked ? asked : "--load"; break;
		case O_NO_LOAD: no_load = true; break;
		case O_QUICK: *budget = LOAD_QUICK_S; asked = "--quick"; break;
		case O_DURATION:
			*budget = strtod(v, &end);
			if (end == v || *end || !(*budget >= 1 && *budget <= 86400))
				return cd_fail(err, CD_EUSAGE, "--duration wants seconds from 1 to 86400, not '%.40s'", v);
			asked = "--duration";
			break;
		}
	}
	if (no_load && asked)
		return cd_fail(err, CD_EUSAGE, "--no-load and %s contradict each other: choose one", asked);
	if (no_load)
		*budget = 0;
	return CD_OK;
}

static int check_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct cd_run *run = g->run; /* the driver judged by main.c */
	const struct deploy_info *d;
	struct facts f;
	double budget;
	int rc;

	if (argc > 1)
		return cd_fail(err, CD_EUSAGE, "check takes no arguments (got '%.60s')", argv[1]);
	if ((rc = load_budget(g, &budget, err)) != CD_OK)
		return rc;
	if ((rc = cd_run_facts(run, CD_FACTS_DRIVER, &f, err)) != CD_OK || (rc = cd_run_deploy(run, &d, err)) != CD_OK)
		return rc;
	/* the kb gives each Xid its meaning; without it the events are still shown */
	kb_load(NULL);
	if ((rc = rules_deploy(d, f.driver, true, r)) != CD_OK || (rc = rules_deploy_platform(&f, r)) != CD_OK ||
	    (rc = rules_gpu_health(f.driver, r)) != CD_OK || (rc = put_facts(r, d, &f)) != CD_OK)
		return cd_fail(err, rc, "check: %s", cd_strerror(rc));
	if (budget > 0) {
		const char *inj = os_getenv("CUDOCTOR_CHECK_INJECT");
		struct check_load_opts o = { .budget_s = budget, .inject = inj && strcmp(inj, "bitflip") == 0,
					     .progress = g->stderr_is_tty, .seed = (unsigned long long)time(NULL) };
		if ((rc = check_load(r, run, &o, &d->kmsg, err)) != CD_OK)
			return rc;
	}
	if ((rc = put_gpus(r, f.driver, cd_run_amd_only(run))) != CD_OK)
		return cd_fail(err, rc, "check: %s", cd_strerror(rc));
	return CD_OK;
}

const struct cd_command cmd_check = {
	.name = "check",
	.summary = "is each GPU healthy: deployment checks, then a memory test, GEMM stress and copies under load",
	.usage = "cudoctor check [--quick | --duration S | --no-load] [--format prometheus]",
	.opts = check_opts,
	.help = "Checks whether this machine is set up so that GPU work runs reliably, the list of "
		"DCGM's deployment level (docs/check.md): the kernel log's NVIDIA events read from "
		"/dev/kmsg (Xid, NVSwitch SXid and \"fallen off the bus\", each with the GPU it names, "
		"what it means and what to do, from NVIDIA's Xid catalogue), the nouveau driver loaded "
		"beside or instead of nvidia (/proc/modules), environment variables that change how "
		"CUDA behaves (CUDA_LAUNCH_BLOCKING, CUDA_CACHE_DISABLE, CUDA_INJECTION64_PATH, ... and "
		"CUDA_VISIBLE_DEVICES), the /dev/nvidia* nodes, persistence mode, and each GPU's health "
		"as NVML reports it (lost, ECC errors, retired or remapped memory pending, PCIe link, "
		"clock throttling). With --no-load that is all: it reads only and starts no GPU work. "
		"Last, each GPU is listed with its health facts and a verdict line: ok, or warn or error "
		"with the ids of the findings about it (the load tests' too); -q prints those lines alone "
		"and --json has them as gpus[].verdict.\n\n"
		"Otherwise, when CUDA can use a GPU, check then runs the load tests within a budget "
		"for all GPUs together (5 minutes; --quick 60 s; --duration S; --load names the "
		"default), with a progress line on stderr when it is a terminal, on each GPU CUDA "
		"lists, one after the other: a memory test over most of the free memory (patterns 0, ~0, "
		"0x55.., 0xAA.., walking ones and address-in-address, every word verified on the GPU, "
		"the first errors recorded with their offsets and bits; its bandwidth reported), "
		"then a GEMM stress (cuBLAS in the GPU's fastest GemmEx type: bf16, else fp16, else "
		"fp32; every result compared on the GPU with the first; the rate per batch against "
		"SMs x the measured SM clock x the type's FLOP per clock), with NVML's clock event "
		"reasons, SM clock, temperature and power sampled while both run, pinned host-device "
		"copies each way against the PCIe link, and the kernel log read again after. Without "
		"a GPU that CUDA can use, one line says the load tests did not run.\n\n"
		"Findings: xid-errors, graded by the immediate action NVIDIA's Xid catalogue gives "
		"each Xid (error for a GPU reset, a reboot or a workflow, a fatal SXid and a GPU fallen "
		"off the bus; warn for RESTART_APP, an application's fault the GPU survives; info for "
		"IGNORE and Xid 45 alone), kernel-log-unread (info: the kernel "
		"restricts its log to root), nouveau-loaded, cuda-env, visible-devices-invalid, "
		"device-nodes, persistence-off, gpu-lost, ecc-errors, retired-pages-pending, "
		"pcie-link-degraded, clocks-throttled, and the driver rules every command runs. "
		"The load tests add load-memory-errors (error), load-gemm-mismatch (error), "
		"load-gemm-slow (warn: below 70% of the theory at the measured clock), load-throttled (warn for a hardware "
		"or thermal slowdown under load, info for the power cap), load-copy-corrupt (error), "
		"load-copy-slow (warn: below 63% of the PCIe link) and load-new-xid (error; info for an Xid the catalogue says to ignore). "
		"doctor runs the kernel-log, nouveau and environment checks too.",
	.notes = "Files: /dev/kmsg (read without blocking, at most 8 MiB) and /proc/modules, under "
		 "CUDOCTOR_HOST_ROOT when it is set. CUDOCTOR_CHECK_INJECT=bitflip (for tests) makes "
		 "the memory test flip 3 bits between writing and verifying, which it must report.",
	.needs = NEEDS_DRIVER,
	.run = check_run,
};
