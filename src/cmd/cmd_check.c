/* `cudoctor check`: whether this machine is deployed so that GPU work runs reliably (DCGM's
 * level-1 list): the kernel log's Xid events, nouveau, the environment, device nodes,
 * persistence, and each GPU's health as the driver reports it; then the load tests
 * (cmd/check/load.c) within a budget, unless --no-load. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/fields.h"
#include "cmd/check/load.h"
#include "cmd/check/slurm.h"
#include "cmd/check/watchdog.h"
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

/* "verdict_findings": the ids of the findings that decided a GPU's verdict. */
static void ids_field(struct report_rec *g, const char *const *ids, size_t n)
{
	struct report_rec a;

	report_rec_array(g, "verdict_findings", &a);
	for (size_t k = 0; k < n; k++)
		report_rec_push(&a, rv_str(ids[k]));
	if (report_rec_end(&a) != CD_OK)
		return; /* the failure is g's now */
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
		size_t n, used;

		gpu_subject(gi, subject, sizeof subject);
		v = rules_gpu_verdict(r, gi, ids, sizeof ids / sizeof ids[0], &n);
		used = (size_t)snprintf(line, sizeof line, "%s", severity_name(v == SEV_INFO ? SEV_OK : v));
		for (size_t k = 0; k < n; k++)
			if (used < sizeof line)
				used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", k ? ", " : ": ", ids[k]);
		report_rec_item(&gpus, &g);
		report_rec_section(&g, "%s", subject);
		gpu_facts_gpu(&g, gi, FIELD_HEALTH);
		report_fieldf(&g, "verdict", "verdict", rv_str(severity_name(v == SEV_INFO ? SEV_OK : v)), "%s", line);
		ids_field(&g, ids, n);
		{
			struct check_gpu_health h = { gi, v < SEV_ERROR };

			report_fields(&g, &check_gpu_health_field_table, &h, FIELD_ALL);
		}
		rc = report_rec_end(&g);
		if (rc == CD_OK)
			rc = report_answer(r, "%s: %s", subject, line);
	}
	rc = report_rec_end(&gpus) != CD_OK && rc == CD_OK ? gpus.rc : rc;
	return report_rec_end(&top) != CD_OK && rc == CD_OK ? top.rc : rc;
}

enum { O_LOAD = 1, O_NO_LOAD, O_QUICK, O_DURATION, O_TIMEOUT, O_SLURM_DRAIN, O_DRY_RUN, O_EXPECT_GPUS, O_IGNORE, O_GEMM };

/* budgets for all GPUs together */
#define LOAD_DEFAULT_S 300.0
#define LOAD_QUICK_S 60.0
/* the whole run's bound: under Slurm's 60 s kill for a HealthCheckProgram with --no-load; the
 * load budget and time to open every GPU otherwise */
#define TIMEOUT_NO_LOAD_S 50.0
#define TIMEOUT_LOAD_EXTRA_S 120.0
#define IGNORE_MAX 32

static const struct cli_opt check_opts[] = {
	CMD_OPT_FORMAT_ENTRY,
	{ .id = O_LOAD, .long_name = "load", .help = "run the load tests in at most 5 minutes for all GPUs (the default)" },
	{ .id = O_NO_LOAD, .long_name = "no-load",
	  .help = "the deployment checks alone: read only, no load tests and no GPU work" },
	{ .id = O_QUICK, .long_name = "quick", .help = "the load tests in at most 60 s for all GPUs" },
	{ .id = O_DURATION, .long_name = "duration", .arg = CLI_REQUIRED, .metavar = "S",
	  .help = "the load tests in at most S seconds for all GPUs" },
	{ .id = O_GEMM, .long_name = "gemm", .arg = CLI_REQUIRED, .metavar = "TYPES",
	  .help = "the GEMM stress in each of these types, comma-separated (bf16, fp16, tf32, fp32, fp64) or all, "
		  "sharing its time; default the GPU's fastest (bf16 from compute capability 8.0)" },
	{ .id = O_TIMEOUT, .long_name = "timeout", .arg = CLI_REQUIRED, .metavar = "S",
	  .help = "end the whole run after S seconds, naming the driver call that hung (an error, "
		  "check-timeout); default 50 with --no-load, else the load budget plus 120" },
	{ .id = O_SLURM_DRAIN, .long_name = "slurm-drain",
	  .help = "drain this Slurm node (scontrol) on node-health errors, reason \"cudoctor: IDS\"; "
		  "resume it when the checks pass, only if its reason starts with \"cudoctor:\"" },
	{ .id = O_DRY_RUN, .long_name = "dry-run", .help = "with --slurm-drain: print the scontrol line instead of running it" },
	{ .id = O_EXPECT_GPUS, .long_name = "expect-gpus", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "this node should have N GPUs: fewer listed is an error (gpu-missing)" },
	{ .id = O_IGNORE, .long_name = "ignore", .arg = CLI_REQUIRED, .metavar = "IDS",
	  .help = "finding ids (comma-separated) to report as info only: no error, drain or failed status" },
	{ 0 },
};

/* the load tests' budget from the options: 5 minutes unless --quick or --duration says
 * otherwise, 0 with --no-load (which no load option may join); the GEMM types --gemm names
 * (0: the GPU's fastest) */
static int load_budget(const struct cd_globals *g, double *budget, unsigned *gemm_types, char *err)
{
	const char *asked = NULL;
	bool no_load = false;
	int rc;

	*budget = LOAD_DEFAULT_S;
	*gemm_types = 0;
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
		case O_GEMM:
			if ((rc = check_gemm_types_parse(v, gemm_types, err)) != CD_OK)
				return rc;
			asked = asked ? asked : "--gemm";
			break;
		}
	}
	if (no_load && asked)
		return cd_fail(err, CD_EUSAGE, "--no-load and %s contradict each other: choose one", asked);
	if (no_load)
		*budget = 0;
	return CD_OK;
}

/* The health-check options: the bound, Slurm, the GPUs expected, the ids ignored. */
struct health_opts {
	double timeout_s;
	bool slurm_drain, dry_run;
	long long expect_gpus;
	char ignore_buf[1024];
	const char *ignore[IGNORE_MAX];
	size_t n_ignore;
};

static int health_options(const struct cd_globals *g, double budget, struct health_opts *h, char *err)
{
	bool timeout_given = false;

	memset(h, 0, sizeof *h);
	for (size_t i = 0; i < g->args->n; i++) {
		const char *v = g->args->v[i].value;
		char *end;

		switch (g->args->v[i].opt->id) {
		case O_TIMEOUT:
			h->timeout_s = strtod(v, &end);
			if (end == v || *end || !(h->timeout_s >= 1 && h->timeout_s <= 86400))
				return cd_fail(err, CD_EUSAGE, "--timeout wants seconds from 1 to 86400, not '%.40s'", v);
			timeout_given = true;
			break;
		case O_SLURM_DRAIN: h->slurm_drain = true; break;
		case O_DRY_RUN: h->dry_run = true; break;
		case O_EXPECT_GPUS:
			h->expect_gpus = strtoll(v, &end, 10);
			if (end == v || *end || h->expect_gpus < 1 || h->expect_gpus > 4096)
				return cd_fail(err, CD_EUSAGE, "--expect-gpus wants a count from 1 to 4096, not '%.40s'", v);
			break;
		case O_IGNORE: {
			size_t used = strlen(h->ignore_buf);

			if (used + strlen(v) + 2 > sizeof h->ignore_buf)
				return cd_fail(err, CD_EUSAGE, "--ignore: too many ids");
			snprintf(h->ignore_buf + used, sizeof h->ignore_buf - used, "%s%s", used ? "," : "", v);
			break;
		}
		}
	}
	if (h->dry_run && !h->slurm_drain)
		return cd_fail(err, CD_EUSAGE, "--dry-run goes with --slurm-drain");
	for (char *p = h->ignore_buf; *p;) {
		size_t n = strcspn(p, ",");

		if (n && h->n_ignore < IGNORE_MAX)
			h->ignore[h->n_ignore++] = p;
		if (!p[n])
			break;
		p[n] = '\0';
		p += n + 1;
	}
	if (!timeout_given)
		h->timeout_s = budget > 0 ? budget + TIMEOUT_LOAD_EXTRA_S : TIMEOUT_NO_LOAD_S;
	return CD_OK;
}

/* The ids --ignore names, kept in the report as info, so no status, drain or verdict counts them. */
static int ignore_findings(struct report *r, const struct health_opts *h)
{
	for (size_t i = 0; i < r->n_findings; i++) {
		struct finding *f = &r->findings[i];

		for (size_t k = 0; k < h->n_ignore; k++)
			if (strcmp(f->id, h->ignore[k]) == 0 && f->severity > SEV_INFO) {
				f->severity = SEV_INFO;
				if (finding_evidence(f, "ignored on the command line (--ignore)") != CD_OK)
					return CD_ENOMEM;
			}
	}
	return CD_OK;
}

/* --slurm-drain: drain on node-health errors, resume what cudoctor drained when none is left */
static int slurm_part(struct report *r, const struct health_opts *h)
{
	const char *ids[64];
	size_t n = slurm_drain_ids(r, ids, sizeof ids / sizeof ids[0]);
	struct slurm_plan plan;
	char err[CD_ERRMSG], msg[CD_ERRMSG + 32];
	bool acted = false;
	int rc;

	if ((rc = slurm_plan(ids, n, &plan, err)) == CD_OK && !h->dry_run) {
		rc = slurm_act(&plan, err);
		acted = rc == CD_OK && plan.line[0];
	}
	if (rc != CD_OK) {
		snprintf(msg, sizeof msg, "--slurm-drain: %s", err);
		cmd_input_error(r, "check", msg);
		if (plan.node[0] == '\0')
			return CD_OK;
	}
	return slurm_put(r, &plan, h->dry_run, acted);
}

static int gpu_count_part(struct report *r, const struct deploy_info *d, const struct gpu_probe *gp,
			  const struct health_opts *h)
{
	struct report_rec top, c;
	struct gpu_count count;
	int rc;

	if ((rc = rules_gpu_count(&d->pci, gp, h->expect_gpus, &count, r)) != CD_OK)
		return rc;
	report_rec_top(&top, r);
	report_rec_section(&top, "GPU count");
	report_rec_object(&top, "gpu_count", &c);
	report_fields(&c, &gpu_count_field_table, &count, FIELD_ALL);
	rc = report_rec_end(&c);
	return report_rec_end(&top) != CD_OK && rc == CD_OK ? top.rc : rc;
}

/* Everything check does within its bound: the driver judged, the deployment checks, the GPU
 * count, the load tests, then the verdicts and Slurm. */
static int check_body(struct report *r, struct cd_run *run, const struct cd_globals *g, double budget,
		      unsigned gemm_types, const struct health_opts *h, char *err)
{
	const struct deploy_info *d;
	struct facts f;
	int rc;

	if ((rc = cd_run_judge_driver(run, r, err)) != CD_OK)
		return rc;
	if ((rc = cd_run_facts(run, CD_FACTS_DRIVER, &f, err)) != CD_OK || (rc = cd_run_deploy(run, &d, err)) != CD_OK)
		return rc;
	/* the kb gives each Xid its meaning; without it the events are still shown */
	kb_load(NULL);
	if ((rc = rules_deploy(d, f.driver, true, r)) != CD_OK || (rc = rules_deploy_platform(&f, r)) != CD_OK ||
	    (rc = rules_gpu_health(f.driver, r)) != CD_OK || (rc = put_facts(r, d, &f)) != CD_OK ||
	    (rc = gpu_count_part(r, d, f.driver, h)) != CD_OK)
		return cd_fail(err, rc, "check: %s", cd_strerror(rc));
	if (budget > 0) {
		const char *inj = os_getenv("CUDOCTOR_CHECK_INJECT");
		struct check_load_opts o = { .budget_s = budget, .inject = inj && strcmp(inj, "bitflip") == 0,
					     .progress = g->stderr_is_tty, .seed = (unsigned long long)time(NULL),
					     .gemm_types = gemm_types };
		if ((rc = check_load(r, run, &o, &d->kmsg, err)) != CD_OK)
			return rc;
	}
	if ((rc = ignore_findings(r, h)) != CD_OK || (rc = put_gpus(r, f.driver, cd_run_amd_only(run))) != CD_OK ||
	    (h->slurm_drain && (rc = slurm_part(r, h)) != CD_OK))
		return cd_fail(err, rc, "check: %s", cd_strerror(rc));
	return CD_OK;
}

static int check_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct cd_run *run = g->run;
	struct check_watchdog wd = { 0 };
	struct health_opts h;
	double budget;
	unsigned gemm_types;
	int rc;

	if (argc > 1)
		return cd_fail(err, CD_EUSAGE, "check takes no arguments (got '%.60s')", argv[1]);
	if ((rc = load_budget(g, &budget, &gemm_types, err)) != CD_OK || (rc = health_options(g, budget, &h, err)) != CD_OK)
		return rc;
	/* armed before the driver is opened: nvmlInit and cuInit are the calls that hang */
	wd.seconds = h.timeout_s;
	wd.contract = g->exit_contract;
	wd.slurm_drain = h.slurm_drain;
	wd.dry_run = h.dry_run;
	watchdog_start(&wd);
	rc = check_body(r, run, g, budget, gemm_types, &h, err);
	watchdog_stop(&wd);
	return rc;
}

const struct cd_command cmd_check = {
	.name = "check",
	.summary = "is each GPU healthy: deployment checks, then a memory test, GEMM stress and copies under load",
	.usage = "cudoctor check [--quick | --duration S | --no-load] [OPTION...]",
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
		"fp32; --gemm TYPES runs each of bf16, fp16, tf32, fp32 and fp64 it names, or all, one "
		"after the other in the same share of the time, each in a table of its own row per GPU; "
		"every result compared on the GPU with the first; the rate per batch against "
		"SMs x the measured SM clock x the type's FLOP per clock, FP64 on the tensor cores where "
		"the GPU has them), with NVML's clock event "
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
		"doctor runs the kernel-log, nouveau and environment checks too.\n\n"
		"As a cluster's health check (docs/cluster.md): the whole run ends at --timeout S (50 s "
		"with --no-load, else the load budget plus 120 s), naming the NVML call or cuInit that "
		"has not returned (check-timeout: the status of an error, a line on stdout and stderr, "
		"no report). Each GPU's recovery action and drain state come from NVML where the driver "
		"has them (R575+: gpu-recovery-action), and the NVIDIA GPUs on the PCI bus (sysfs) are "
		"counted against NVML's and CUDA's (gpu-missing, naming the bus id NVML lacks; "
		"--expect-gpus N for a node that should have N). --slurm-drain drains this node with "
		"scontrol on errors a drain may name (reason \"cudoctor: IDS\") and resumes it when the "
		"checks pass, only if its reason starts with \"cudoctor:\"; --dry-run prints the line "
		"instead. --ignore IDS reports those ids as info. --format prometheus adds "
		"cudoctor_gpu_healthy per GPU and cudoctor_gpus_seen / cudoctor_gpus_expected.",
	.notes = "Files: /dev/kmsg (read without blocking, at most 8 MiB), /proc/modules and "
		 "/sys/bus/pci/devices, under "
		 "CUDOCTOR_HOST_ROOT when it is set. CUDOCTOR_CHECK_INJECT=bitflip (for tests) makes "
		 "the memory test flip 3 bits between writing and verifying, which it must report.",
	.needs = NEEDS_DRIVER_GENTLY, /* judged under check's own bound (--timeout) */
	.run = check_run,
};
