/* The run context (cmd.h): the machine collected part by part the first time a command asks
 * and remembered for the run, and the one door from src/cmd/ to the probes. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "driver/nccl.h"
#include "facts/facts.h"
#include "facts/kb.h"
#include "facts/path.h"
#include "kb/kb.h"
#include "os/env.h"
#include "probe/amd.h"
#include "probe/arch_inputs.h"
#include "probe/cublas_find.h"
#include "probe/deploy.h"
#include "probe/gpu_caps.h"
#include "probe/gpus.h"
#include "probe/kmsg.h"
#include "probe/nccl_find.h"
#include "probe/platform.h"
#include "probe/python.h"
#include "probe/runtimes.h"
#include "probe/spawn.h"
#include "probe/toolkits.h"
#include "probe/topology.h"
#include "probe/win_exe.h"
#include "probe/windows.h"
#include "rules/amd.h"
#include "rules/rules.h"
#include "util/err.h"
#include "util/task.h"

/* The parts a getter collects through part_ask, in cmd.h's order; the host's four are the
 * prefetch's while it runs. */
enum part { PART_DRIVER, PART_PLATFORM, PART_PYTHON, PART_TOOLKITS, PART_RUNTIMES, PART_WINDOWS, PART_TOPOLOGY,
	    PART_DEPLOY, PART_AMD, PART_COUNT };

static bool host_part(enum part which)
{
	return which >= PART_PYTHON && which <= PART_WINDOWS;
}

/* One part's state: asked once, its answer kept. */
struct cd_part {
	bool asked;
	int rc;              /* CD_OK: known; else why it is unknown, in why */
	char why[CD_ERRMSG];
};

struct cd_run_parts {
	struct cd_part part[PART_COUNT];
	/* the driver libraries, loaded once whichever part asks first; the driver part's facts
	 * are run->cu, run->nv, run->probe */
	bool cu_tried, nv_tried;
	char cuda_load_error[CD_ERRMSG], nvml_load_error[CD_ERRMSG];
	bool judged;                 /* the driver findings went into a report */
	struct cd_part caps;         /* collected only while the driver part is not */
	bool caps_gpus;              /* caps_probe has the GPUs, not only the driver */
	struct gpu_probe caps_probe;
	struct platform_info pf;
	/* the host's files; Python's comes first (its site-packages are searched by the others)
	 * and finds where the Windows side is */
	bool py_kb, tk_kb, rt_kb;    /* given the kb's knowledge (on the calling thread only) */
	struct python_info py;
	struct toolkits tk;
	struct runtimes rt[RUNTIME_SETS_MAX];
	size_t n_rt;
	struct win_side win;
	bool win_located;
	struct win_side_opts wo;
	char win_root[FACTS_PATH], win_path[FACTS_PATH];
	char kb_error[CD_ERRMSG];    /* the kb did not load: the facts lack its knowledge */
	/* doctor's prefetch: the host parts are the task's until it is joined */
	bool prefetching;
	struct task task;
	void (*then)(void *arg, const struct facts *host);
	void *then_arg;
	struct topo_probe *topo;
	struct deploy_info *dep;
	struct amd_host *amd;
	bool amd_only, amd_only_asked; /* rules_amd_only of the driver and AMD parts */
};

static int parts_of(struct cd_run *run, char *err)
{
	if (!run->parts && !(run->parts = calloc(1, sizeof *run->parts)))
		return cd_fail(err, CD_ENOMEM, "out of memory");
	return CD_OK;
}

/* What a part's first ask answered. */
static int part_answer(const struct cd_part *part, char *err)
{
	if (part->rc != CD_OK)
		return cd_fail(err, part->rc, "%s", part->why);
	return CD_OK;
}

static int (*const collectors[PART_COUNT])(struct cd_run *run, char *why);

/* Collects a part on first ask; every ask answers what the first did. On whichever thread
 * owns the part (parts_of has run). */
static int part_get(struct cd_run *run, enum part which, char *err)
{
	struct cd_part *part = &run->parts->part[which];

	if (!part->asked) {
		part->asked = true;
		part->rc = collectors[which](run, part->why);
	}
	return part_answer(part, err);
}

static int host_add_kb(struct cd_run_parts *p, char *err);

/* A getter's ask: a host part after the prefetch (if one runs) and with the kb's knowledge. */
static int part_ask(struct cd_run *run, enum part which, char *err)
{
	int rc;

	TRY(parts_of(run, err));
	if (host_part(which))
		TRY(cd_run_host_join(run, err));
	TRY(part_get(run, which, err));
	if (host_part(which))
		rc = host_add_kb(run->parts, err);
out:
	return rc;
}

/* ---- the driver ---- */

static int load_cuda(struct cd_run *run, char *err)
{
	struct cd_run_parts *p = run->parts;

	if (p->cu_tried)
		return CD_OK;
	p->cu_tried = true;
	if (!(run->cu = calloc(1, sizeof *run->cu)))
		return cd_fail(err, CD_ENOMEM, "out of memory loading the driver libraries");
	if (cudrv_load(run->cu, p->cuda_load_error) != CD_OK) {
		free(run->cu);
		run->cu = NULL;
	}
	return CD_OK;
}

static int load_nvml(struct cd_run *run, char *err)
{
	struct cd_run_parts *p = run->parts;

	if (p->nv_tried)
		return CD_OK;
	p->nv_tried = true;
	if (!(run->nv = calloc(1, sizeof *run->nv)))
		return cd_fail(err, CD_ENOMEM, "out of memory loading the driver libraries");
	if (nvml_load(run->nv, p->nvml_load_error) != CD_OK) {
		free(run->nv);
		run->nv = NULL;
	}
	return CD_OK;
}

static int collect_driver(struct cd_run *run, char *err)
{
	struct cd_run_parts *p = run->parts;
	int rc;

	TRY(load_cuda(run, err));
	TRY(load_nvml(run, err));
	snprintf(run->probe.cuda_load_error, sizeof run->probe.cuda_load_error, "%s", p->cuda_load_error);
	snprintf(run->probe.nvml_load_error, sizeof run->probe.nvml_load_error, "%s", p->nvml_load_error);
	TRY(gpu_probe_collect(&run->probe, run->cu, run->nv, err));
	/* the kb's knowledge beside the driver facts before any rule reads them; without the
	 * kb the rules run on the collected facts alone */
	if (facts_add_kb(&run->probe, NULL, NULL, 0, NULL, p->kb_error) == CD_ENOMEM)
		return cd_fail(err, CD_ENOMEM, "out of memory loading the kb");
	run->cuda_usable = rules_cuda_usable(&run->probe);
out:
	return rc;
}

int cd_run_driver(struct cd_run *run, const struct gpu_probe **out, char *err)
{
	int rc = part_ask(run, PART_DRIVER, err);

	*out = rc == CD_OK ? &run->probe : NULL;
	return rc;
}

bool cd_run_amd_only(struct cd_run *run)
{
	const struct gpu_probe *d;
	const struct amd_host *h;
	char err[CD_ERRMSG];

	if (parts_of(run, err) != CD_OK)
		return false;
	if (run->parts->amd_only_asked)
		return run->parts->amd_only;
	run->parts->amd_only_asked = true;
	/* a driver that sees an NVIDIA GPU settles it without reading the AMD side */
	if (cd_run_driver(run, &d, err) != CD_OK || d->n_gpus > 0 || cd_run_amd(run, &h, err) != CD_OK)
		return false;
	run->parts->amd_only = rules_amd_only(h, d);
	return run->parts->amd_only;
}

int cd_run_judge_driver(struct cd_run *run, struct report *r, char *err)
{
	struct facts f;
	int rc;

	TRY(cd_run_facts(run, CD_FACTS_DRIVER, &f, err));
	if (run->parts->judged)
		return CD_OK;
	run->parts->judged = true;
	/* an AMD machine without NVIDIA hardware: no driver is the expected state, not a finding */
	if (cd_run_amd_only(run))
		return CD_OK;
	if ((rc = rules_driver(&f, r)) != CD_OK)
		return cd_fail(err, rc, "%s", cd_strerror(rc));
out:
	return rc;
}

int cd_run_caps(struct cd_run *run, bool want_gpus, const struct gpu_probe **out, char *err)
{
	struct cd_run_parts *p;
	int rc;

	*out = NULL;
	TRY(parts_of(run, err));
	p = run->parts;
	if (p->part[PART_DRIVER].asked)
		return cd_run_driver(run, out, err);
	if (p->caps.asked && (p->caps_gpus || !want_gpus)) {
		*out = p->caps.rc == CD_OK ? &p->caps_probe : NULL;
		return part_answer(&p->caps, err);
	}
	gpu_probe_free(&p->caps_probe);
	memset(&p->caps_probe, 0, sizeof p->caps_probe);
	memset(&p->caps, 0, sizeof p->caps);
	p->caps.asked = true;
	p->caps_gpus = want_gpus;
	if (want_gpus) {
		if (gpu_caps_from_proc(&p->caps_probe, true))
			goto done;
		if ((p->caps.rc = load_nvml(run, p->caps.why)) != CD_OK)
			return cd_fail(err, p->caps.rc, "%s", p->caps.why);
		if (gpu_caps_from_nvml(&p->caps_probe, run->nv, true))
			goto done;
		/* which GPUs CUDA would see takes cuInit: the whole driver part, loaded once */
		return cd_run_driver(run, out, err);
	}
	/* the driver alone: libcuda's cuDriverGetVersion, no cuInit */
	if ((p->caps.rc = load_cuda(run, p->caps.why)) != CD_OK)
		return cd_fail(err, p->caps.rc, "%s", p->caps.why);
	snprintf(p->caps_probe.cuda_load_error, sizeof p->caps_probe.cuda_load_error, "%s", p->cuda_load_error);
	gpu_caps_from_cuda(&p->caps_probe, run->cu);
done:
	*out = &p->caps_probe;
out:
	return rc;
}

static int collect_platform(struct cd_run *run, char *err)
{
	return platform_probe(&run->parts->pf, NULL, err);
}

int cd_run_platform(struct cd_run *run, const struct platform_info **out, char *err)
{
	int rc = part_ask(run, PART_PLATFORM, err);

	*out = rc == CD_OK ? &run->parts->pf : NULL;
	return rc;
}

/* ---- the host's files ---- */

static int collect_python(struct cd_run *run, char *err)
{
	struct cd_run_parts *p = run->parts;
	struct python_opts po = { .home = os_getenv("HOME") };

	/* the Windows side's drive and PATH, where this machine has one it can read (WSL2's /mnt/c) */
	p->win_located = win_side_locate(&p->wo, p->win_root, p->win_path, FACTS_PATH);
	po.win_root = p->win_located ? p->wo.root : NULL;
	po.win_registry = p->win_located && p->wo.registry;
	return python_probe(&p->py, &po, err);
}

static int collect_toolkits(struct cd_run *run, char *err)
{
	struct cd_run_parts *p = run->parts;
	struct toolkits_opts o = { 0 };
	int rc;

	TRY(part_get(run, PART_PYTHON, err));
	o.site_dirs = (const char *const *)p->py.site_dirs;
	o.n_site_dirs = p->py.n_site_dirs;
	o.list_archs = run->toolkit_archs;
	rc = toolkits_probe(&p->tk, &o, err);
out:
	return rc;
}

static int collect_runtimes(struct cd_run *run, char *err)
{
	struct cd_run_parts *p = run->parts;
	struct runtimes_opts o = { 0 };
	int rc;

	TRY(part_get(run, PART_PYTHON, err));
	o.site_dirs = (const char *const *)p->py.site_dirs;
	o.n_site_dirs = p->py.n_site_dirs;
	TRY(runtimes_probe(&p->rt[0], &o, err));
	p->n_rt = 1;
	for (size_t l = 0; runtime_libraries[l] && p->n_rt < RUNTIME_SETS_MAX; l++) {
		o.library = runtime_libraries[l];
		TRY(runtimes_probe(&p->rt[p->n_rt], &o, err));
		p->n_rt++;
	}
out:
	return rc;
}

static int collect_windows(struct cd_run *run, char *err)
{
	struct cd_run_parts *p = run->parts;
	int rc;

	TRY(part_get(run, PART_PYTHON, err));
	p->wo.py = &p->py;
	if (p->win_located)
		rc = win_side_probe(&p->win, &p->wo, err);
out:
	return rc;
}

/* The kb's knowledge beside each host part known and not given it yet: on the calling
 * thread, never on the prefetch's task. */
static int host_add_kb(struct cd_run_parts *p, char *err)
{
	const struct cd_part *part = p->part;
	struct toolkits *tk = part[PART_TOOLKITS].asked && !part[PART_TOOLKITS].rc && !p->tk_kb ? &p->tk : NULL;
	struct runtimes *rt = part[PART_RUNTIMES].asked && !part[PART_RUNTIMES].rc && !p->rt_kb ? p->rt : NULL;
	struct python_info *py = part[PART_PYTHON].asked && !part[PART_PYTHON].rc && !p->py_kb ? &p->py : NULL;
	char kerr[CD_ERRMSG] = "";

	if (!tk && !rt && !py)
		return CD_OK;
	p->tk_kb |= tk != NULL;
	p->rt_kb |= rt != NULL;
	p->py_kb |= py != NULL;
	/* without the kb the rules still run, on the collected facts alone */
	if (facts_add_kb(NULL, tk, rt, rt ? p->n_rt : 0, py, kerr) == CD_ENOMEM)
		return cd_fail(err, CD_ENOMEM, "out of memory loading the kb");
	if (kerr[0] && !p->kb_error[0])
		snprintf(p->kb_error, sizeof p->kb_error, "%s", kerr);
	return CD_OK;
}

int cd_run_python(struct cd_run *run, const struct python_info **out, char *err)
{
	int rc = part_ask(run, PART_PYTHON, err);

	*out = rc == CD_OK ? &run->parts->py : NULL;
	return rc;
}

int cd_run_toolkits(struct cd_run *run, const struct toolkits **out, char *err)
{
	int rc = part_ask(run, PART_TOOLKITS, err);

	*out = rc == CD_OK ? &run->parts->tk : NULL;
	return rc;
}

int cd_run_runtimes(struct cd_run *run, const struct runtimes **out, size_t *n_sets, char *err)
{
	int rc = part_ask(run, PART_RUNTIMES, err);

	*out = rc == CD_OK ? run->parts->rt : NULL;
	*n_sets = rc == CD_OK ? run->parts->n_rt : 0;
	return rc;
}

int cd_run_windows(struct cd_run *run, const struct win_side **out, char *err)
{
	int rc = part_ask(run, PART_WINDOWS, err);

	*out = rc == CD_OK ? &run->parts->win : NULL;
	return rc;
}

/* ---- the prefetch ---- */

static void prefetch_task(void *arg)
{
	struct cd_run *run = arg;
	struct cd_run_parts *p = run->parts;
	struct facts host = { 0 };
	char why[CD_ERRMSG];

	/* the parts' own state, touched by this task alone until the join; the kb's knowledge
	 * waits for the join, on the calling thread */
	for (enum part which = PART_PYTHON; which <= PART_WINDOWS; which++)
		if (part_get(run, which, why) != CD_OK)
			return;
	if (!p->then)
		return;
	host.python = &p->py;
	host.toolkits = &p->tk;
	host.runtimes = p->rt;
	host.n_runtime_sets = p->n_rt;
	host.windows = &p->win;
	p->then(p->then_arg, &host);
}

int cd_run_host_prefetch(struct cd_run *run, void (*then)(void *arg, const struct facts *host), void *arg,
			 char *err)
{
	int rc;

	TRY(parts_of(run, err));
	if (run->parts->prefetching)
		return cd_fail(err, CD_EINTERNAL, "internal error: the host's files are being collected already");
	/* loaded once, here, before two threads could both ask for it (then may read it) */
	kb_load(NULL);
	run->parts->then = then;
	run->parts->then_arg = arg;
	run->parts->prefetching = true;
	rc = task_start(&run->parts->task, prefetch_task, run);
out:
	return rc;
}

int cd_run_host_join(struct cd_run *run, char *err)
{
	int rc;

	TRY(parts_of(run, err));
	if (run->parts->prefetching) {
		task_wait(&run->parts->task);
		run->parts->prefetching = false;
	}
	rc = host_add_kb(run->parts, err);
out:
	return rc;
}

/* ---- the rest of the machine ---- */

static int collect_topology(struct cd_run *run, char *err)
{
	struct cd_run_parts *p = run->parts;
	const struct gpu_probe *gp;
	int rc;

	TRY(cd_run_driver(run, &gp, err));
	if (!(p->topo = calloc(1, sizeof *p->topo)))
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if ((rc = topo_probe_collect(p->topo, gp, run->cu, run->nv, NULL, err)) != CD_OK) {
		free(p->topo);
		p->topo = NULL;
	}
out:
	return rc;
}

int cd_run_topology(struct cd_run *run, const struct topo_probe **out, char *err)
{
	int rc = part_ask(run, PART_TOPOLOGY, err);

	*out = rc == CD_OK ? run->parts->topo : NULL;
	return rc;
}

int cd_run_sysfs_link(struct cd_run *run, int cuda_ordinal, int *gen, int *width, char *err)
{
	const struct topo_probe *t;
	int rc;

	*gen = *width = 0;
	TRY(cd_run_topology(run, &t, err));
	for (size_t i = 0; i < t->n_gpus; i++)
		if (t->gpus[i].cuda_ordinal == cuda_ordinal && t->gpus[i].sysfs_link_gen > 0 && t->gpus[i].sysfs_link_width > 0) {
			*gen = t->gpus[i].sysfs_link_gen;
			*width = t->gpus[i].sysfs_link_width;
			return CD_OK;
		}
	rc = cd_fail(err, CD_ENOTFOUND, "sysfs has no PCIe link for CUDA device %d", cuda_ordinal);
out:
	return rc;
}

static int collect_deploy(struct cd_run *run, char *err)
{
	struct cd_run_parts *p = run->parts;

	if (!(p->dep = calloc(1, sizeof *p->dep)))
		return cd_fail(err, CD_ENOMEM, "out of memory");
	return deploy_probe(p->dep, NULL, err);
}

int cd_run_deploy(struct cd_run *run, const struct deploy_info **out, char *err)
{
	int rc = part_ask(run, PART_DEPLOY, err);

	*out = rc == CD_OK ? run->parts->dep : NULL;
	return rc;
}

static int collect_amd(struct cd_run *run, char *err)
{
	struct cd_run_parts *p = run->parts;

	if (!(p->amd = calloc(1, sizeof *p->amd)))
		return cd_fail(err, CD_ENOMEM, "out of memory");
	amd_probe(p->amd, NULL);
	/* HIP is loaded only where there is something AMD to ask it about */
	if (rules_amd_present(p->amd) || p->amd->rocm_version[0])
		amd_probe_hip(p->amd);
	return CD_OK;
}

int cd_run_amd(struct cd_run *run, const struct amd_host **out, char *err)
{
	int rc = part_ask(run, PART_AMD, err);

	*out = rc == CD_OK ? run->parts->amd : NULL;
	return rc;
}

static int (*const collectors[PART_COUNT])(struct cd_run *run, char *why) = {
	[PART_DRIVER] = collect_driver,	    [PART_PLATFORM] = collect_platform, [PART_PYTHON] = collect_python,
	[PART_TOOLKITS] = collect_toolkits, [PART_RUNTIMES] = collect_runtimes, [PART_WINDOWS] = collect_windows,
	[PART_TOPOLOGY] = collect_topology, [PART_DEPLOY] = collect_deploy,	    [PART_AMD] = collect_amd,
};

int cd_run_facts(struct cd_run *run, unsigned parts, struct facts *out, char *err)
{
	const struct runtimes *rt;
	int rc = CD_OK;

	memset(out, 0, sizeof *out);
	if (parts & CD_FACTS_DRIVER) {
		TRY(cd_run_driver(run, &out->driver, err));
		TRY(cd_run_platform(run, &out->platform, err));
	}
	if (parts & CD_FACTS_HOST) {
		TRY(cd_run_python(run, &out->python, err));
		TRY(cd_run_toolkits(run, &out->toolkits, err));
		TRY(cd_run_runtimes(run, &rt, &out->n_runtime_sets, err));
		out->runtimes = rt;
		TRY(cd_run_windows(run, &out->windows, err));
		out->kb_error = run->parts->kb_error;
	}
out:
	return rc;
}

void cd_run_close(struct cd_run *run)
{
	struct cd_run_parts *p = run->parts;

	if (p) {
		if (p->prefetching)
			task_wait(&p->task);
		toolkits_free(&p->tk);
		for (size_t l = 0; l < p->n_rt; l++)
			runtimes_free(&p->rt[l]);
		python_free(&p->py);
		win_side_free(&p->win);
		gpu_probe_free(&p->caps_probe);
		if (p->topo)
			topo_probe_free(p->topo);
		free(p->topo);
		free(p->dep);
		free(p->amd);
		free(p);
	}
	if (run->nv) {
		if (driver_nvml_ok(&run->probe) && run->nv->Shutdown)
			run->nv->Shutdown();
		nvml_unload(run->nv);
		free(run->nv);
	}
	if (run->cu) {
		cudrv_unload(run->cu);
		free(run->cu);
	}
	gpu_probe_free(&run->probe);
	memset(run, 0, sizeof(*run));
}

/* ---- the door: what is read per input, or again ---- */

int cd_run_kernel_log_again(struct kmsg_events *out, char *err)
{
	return kmsg_probe(out, NULL, err);
}

/* The Python environments whose wheels the library searches add; none when they are
 * unknown (the loader's own search still runs). */
static const struct python_info *search_python(struct cd_run *run)
{
	const struct python_info *py;
	char why[CD_ERRMSG];

	return cd_run_python(run, &py, why) == CD_OK ? py : NULL;
}

int cd_run_load_cublas(struct cd_run *run, struct cublas *b, char *err)
{
	return cublas_find_load(b, search_python(run), err);
}

/* every libnccl the search saw, so a user sees which one ran and which others exist */
static void copies_note(const struct nccl_copies *c, char *note, size_t cap)
{
	size_t used = (size_t)snprintf(note, cap, "libnccl copies found:");

	for (size_t i = 0; i < c->rt.n && used < cap; i++)
		used += (size_t)snprintf(note + used, cap - used, "%s %s (%s)", i ? "," : "", c->rt.r[i].path,
					 c->rt.r[i].version_text[0] ? c->rt.r[i].version_text : "version unknown");
	if (c->rt.n == 0)
		snprintf(note, cap, "libnccl copies found: none");
}

int cd_run_load_nccl(struct cd_run *run, struct nccl *nc, char *note, size_t note_cap, char *err)
{
	struct nccl_copies copies;
	int rc;

	TRY(nccl_find(&copies, search_python(run), err));
	rc = nccl_load(nc, (const char *const *)copies.dirs, err);
	if (note)
		copies_note(&copies, note, note_cap);
	nccl_copies_free(&copies);
out:
	return rc;
}

int cd_run_program_dlls(struct win_exe *x, const char *path, const unsigned char *data, size_t size, char *err)
{
	memset(x, 0, sizeof *x);
	if (data && !win_exe_is_program(data, size))
		return CD_OK;
	return win_exe_probe_file(x, path, err);
}

void cd_run_program_dlls_free(struct win_exe *x)
{
	win_exe_free(x);
}

int cd_run_input_add(struct arch_inputs *in, const char *path, bool explicit_input)
{
	return arch_inputs_add(in, path, explicit_input);
}

int cd_run_input_dir(struct arch_inputs *in, const char *dir, bool recursive, char *err)
{
	return arch_inputs_expand_dir(in, dir, recursive, err);
}

bool cd_run_input_is_pattern(const char *operand)
{
	return arch_inputs_is_pattern(operand);
}

int cd_run_input_glob(const char *pattern, char ***out, size_t *n, char *err)
{
	return arch_inputs_glob(pattern, out, n, err);
}

bool cd_run_input_is_python_tree(const char *path)
{
	return arch_inputs_is_python_tree(path);
}

int cd_run_input_python(struct arch_inputs *in, const char *interpreter, struct report *r, char *err)
{
	char prog[4096];
	int rc = arch_inputs_python(in, interpreter, prog, sizeof prog, err);

	if (rc != CD_ETIMEOUT)
		return rc;
	return rules_helper_timeout(r, prog, "-c 'import site; print(site.getsitepackages())'", spawn_timeout_ms()) == CD_OK
		       ? CD_OK : cd_fail(err, CD_ENOMEM, "out of memory");
}

int cd_run_input_ollama(struct arch_inputs *in, const char *root, char *err)
{
	return root && *root ? arch_inputs_ollama_under(in, root, err) : arch_inputs_ollama(in, err);
}

void cd_run_inputs_free(struct arch_inputs *in)
{
	arch_inputs_free(in);
}

int cd_run_program(const char *name, const char *const *args, char *out, size_t max, char *err)
{
	char path[4096];
	char *argv[16];
	size_t n = 0, len;

	if (spawn_find_program(name, path, sizeof path) != CD_OK)
		return cd_fail(err, CD_ENOTFOUND, "%s is not on PATH", name);
	argv[n++] = path;
	for (; args && *args && n + 1 < sizeof argv / sizeof argv[0]; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	return spawn_capture(argv, out, max, &len, err);
}
