/* `cudoctor doctor`: every layer of the CUDA stack found, shown, and checked against the
 * others. The run context collects (cmd/run.c), src/rules judges, cmd/doctor/ reads the
 * frameworks found; this file wires them and renders. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/doctor/amd.h"
#include "cmd/doctor/frameworks.h"
#include "kb/kb.h"
#include "kb/links.h"
#include "os/fs.h"
#include "facts/deploy.h"
#include "facts/facts.h"
#include "facts/topology.h"
#include "facts/windows.h"
#include "rules/deploy.h"
#include "rules/rules.h"
#include "rules/topology.h"
#include "show/gpu_facts.h"
#include "show/topology.h"
#include "show/win_exe.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"
#include "util/units.h"

static const char doctor_help[] =
	"First the answer: will each framework and app found here run on each GPU (PyTorch, JAX, "
	"TensorFlow, CuPy, onnxruntime-gpu, ctranslate2, llama-cpp-python, bitsandbytes, xformers, "
	"flash-attn, vLLM, Ollama's runners, and what --binary/--path name), judged from the device "
	"code on disk (headers only) and the driver, with the one command that fixes it.\n"
	"Then one verdict across the CUDA stack. Finds and checks against each other:\n"
	"  Driver     the libcuda loaded and how, its version, the CUDA version it supports, "
	"the kernel module's version\n"
	"  GPUs       in CUDA's order and in nvidia-smi's (PCI) order, their MIG instances, "
	"with CUDA_VISIBLE_DEVICES\n"
	"  Toolkits   every nvcc, its version, which one a build uses, what it can target\n"
	"  Runtimes   every libcudart the loader or a framework could load, and which wins\n"
	"  Python     frameworks and NVIDIA wheels, read from disk without importing them\n"
	"  Platform   WSL2, containers, /dev/nvidia* nodes, nouveau, CUDA environment variables, "
	"the kernel log's Xid events (as check reads them)\n"
	"  AMD GPUs   on an AMD machine (no ROCm needed): the KFD topology's GPUs and their VRAM, the "
	"amdgpu module, /dev/kfd and /dev/dri/renderD* and the groups that own them, the ROCm install "
	"and HIP, HSA_OVERRIDE_GFX_VERSION and the visibility variables; and will each framework run "
	"on each AMD GPU\n"
	"then prints the findings with evidence and fixes. With -v it also asks the selected nvcc "
	"for --list-gpu-arch (runs it); with -q it prints the verdict line only.";

/* An array of records of t under key, JSON only ([] when n is 0). */
static void list_records(struct report_rec *w, const char *key, const struct field_table *t, const void *items,
		      size_t size, size_t n)
{
	struct report_rec list, it;

	report_rec_array(w, key, &list);
	report_rec_text(&list, REPORT_TEXT_NONE);
	for (size_t i = 0; i < n; i++) {
		report_rec_item(&list, &it);
		report_fields(&it, t, (const char *)items + i * size, FIELD_BRIEF);
		if (report_rec_end(&it) != CD_OK)
			break; /* the list's end hands the error up */
	}
	if (report_rec_end(&list) != CD_OK)
		return; /* and w has it now */
}

/* --- Driver and GPUs: the tables' brief view --------------------------------------- */

static int section_driver(struct report_rec *top, const struct facts *df)
{
	report_rec_section(top, "Driver");
	return gpu_facts_driver(top, df->driver, FIELD_BRIEF);
}

/* amd_only: an AMD machine with nothing NVIDIA, where no NVIDIA GPU is a fact, not a fault */
static int section_gpus(struct report_rec *top, const struct facts *df, bool amd_only)
{
	const char *hdr[16];
	size_t ncols = report_fields_headers(&gpu_field_table, FIELD_BRIEF, hdr, 16);
	const struct platform_info *pf = df->platform;
	struct report_rec tab, row, text;

	report_rec_section(top, "GPUs");
	if (df->driver->n_gpus == 0) {
		report_rec_line(top, "%s", amd_only ? "no NVIDIA GPU: this is an AMD machine (AMD GPUs above), the CUDA "
							"driver's absence is expected"
					  : df->driver->cuda_loaded ? "no GPU visible to CUDA or NVML" : "none (no driver)");
		list_records(top, "gpus", &gpu_field_table, NULL, 0, 0);
	} else {
		/* the probe lists CUDA's order first, then the GPUs CUDA does not see */
		report_rec_table(top, "gpus", ncols, hdr, &tab);
		for (size_t i = 0; i < df->driver->n_gpus; i++) {
			report_rec_item(&tab, &row);
			gpu_facts_gpu(&row, &df->driver->gpus[i], FIELD_BRIEF);
			if (report_rec_end(&row) != CD_OK)
				break; /* the table's end hands the error up */
		}
		if (report_rec_end(&tab) != CD_OK)
			return top->rc;
	}
	/* MIG instances under their GPU: CUDA sees these, not the GPU, when MIG is on */
	report_rec_text_only(top, &text);
	for (size_t i = 0; i < df->driver->n_gpus; i++) {
		const struct gpu_info *g = &df->driver->gpus[i];
		char count[32] = "unknown";

		if (!gpu_has(g, GF_MIG_MODE) || !g->mig_mode_current)
			continue;
		if (gpu_has(g, GF_MIG_DEVICES))
			snprintf(count, sizeof count, "%zu", g->n_mig_devices);
		report_fieldf(&text, "MIG instances", NULL, rv_null(), "nvidia-smi GPU %d (%s): %s", g->nvml_index,
			      gpu_name(g) ? gpu_name(g) : "-", count);
		gpu_facts_mig(&text, g);
	}
	if (pf->visible.set)
		report_fieldf(&text, "CUDA_VISIBLE_DEVICES", NULL, rv_null(), "\"%s\"", pf->visible.raw ? pf->visible.raw : "");
	if (pf->device_order)
		report_fieldf(&text, "CUDA_DEVICE_ORDER", NULL, rv_null(), "%s", pf->device_order);
	else if (df->driver->n_gpus > 1)
		report_fieldf(&text, "CUDA_DEVICE_ORDER", NULL, rv_null(), "unset: CUDA orders FASTEST_FIRST, nvidia-smi by PCI bus");
	return report_rec_end(&text) != CD_OK ? top->rc : CD_OK;
}

/* --- Toolkits --------------------------------------------------------------------- */

/* "yes" / "no: needs R580" / "JIT-limited" for the driver column */
static const char *runs_here(const struct toolkit *t, const struct gpu_probe *d, char *buf, size_t n)
{
	enum cuda_fit fit;

	if (!rules_toolkit_driver_fit(t, d, &fit))
		return "-";
	if (fit == CUDA_FITS)
		return "yes";
	if (fit == CUDA_NEWER_MINOR)
		return "yes (minor-version compat; no PTX JIT)";
	snprintf(buf, n, "no: needs %s", t->kb.min_branch[0] ? t->kb.min_branch : "a newer driver");
	return buf;
}

static void targets_here(const struct toolkit *t, const struct facts *df, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	if (!t->kb.known) {
		snprintf(buf, n, "-");
		return;
	}
	if (df->driver->n_gpus == 0) {
		snprintf(buf, n, "sm_%d..sm_%d", t->kb.archs[0], t->kb.archs[t->kb.n_archs - 1]);
		return;
	}
	for (size_t i = 0; i < df->driver->n_gpus; i++) {
		const struct gpu_info *g = &df->driver->gpus[i];
		int w;
		if (gpu_sm(g) <= 0)
			continue;
		w = snprintf(buf + used, n - used, "%ssm_%d %s", used ? ", " : "", gpu_sm(g),
			     rules_toolkit_targets(t, (int)g->cc_major, (int)g->cc_minor) ? "yes" : "no");
		if (w < 0 || (size_t)w >= n - used)
			break;
		used += (size_t)w;
	}
	if (!used)
		snprintf(buf, n, "sm_%d..sm_%d", t->kb.archs[0], t->kb.archs[t->kb.n_archs - 1]);
}

#define MAX_COLS 12

/* A JSON array under key whose items are also the rows of a text table when shown is true
 * (a table with no row says nothing), else JSON only. */
static void rows_under(struct report_rec *w, const char *key, bool shown, size_t ncols, const char *const *hdr,
		       struct report_rec *tab)
{
	if (shown) {
		report_rec_table(w, key, ncols, hdr, tab);
		return;
	}
	report_rec_array(w, key, tab);
	report_rec_text(tab, REPORT_TEXT_NONE);
}

static int section_toolkits(struct report_rec *top, const struct facts *df)
{
	const char *hdr[MAX_COLS];
	size_t ncols = report_fields_headers(&toolkit_field_table, FIELD_BRIEF, hdr, MAX_COLS - 2);
	struct report_rec tab, row, text;

	hdr[ncols++] = "targets";
	hdr[ncols++] = "its builds run here";
	report_rec_section(top, "Toolkits");
	if (df->toolkits->n == 0 && df->platform->windows)
		report_rec_line(top, "no nvcc found (PATH, CUDACXX, CUDA_HOME, CUDA_PATH, conda, pip nvidia-cuda-nvcc; the "
				     "Windows section lists the toolkits installed)");
	else if (df->toolkits->n == 0)
		report_rec_line(top, "no nvcc found (PATH, CUDACXX, CUDA_HOME, CUDA_PATH, /usr/local/cuda*, /opt/cuda, conda, "
				     "pip nvidia-cuda-nvcc)");
	rows_under(top, "toolkits", df->toolkits->n > 0, ncols, hdr, &tab);
	for (size_t i = 0; i < df->toolkits->n; i++) {
		const struct toolkit *t = &df->toolkits->t[i];
		char tg[160], run[64];

		targets_here(t, df, tg, sizeof tg);
		report_rec_item(&tab, &row);
		report_fields(&row, &toolkit_field_table, t, FIELD_BRIEF);
		report_field(&row, "targets", NULL, rv_str(tg));
		report_field(&row, "its builds run here", NULL, rv_str(runs_here(t, df->driver, run, sizeof run)));
		if (report_rec_end(&row) != CD_OK)
			break; /* the table's end hands the error up */
	}
	if (report_rec_end(&tab) != CD_OK)
		return top->rc;
	report_rec_text_only(top, &text);
	for (size_t i = 0; i < df->toolkits->n; i++) {
		const struct toolkit *t = &df->toolkits->t[i];
		if (t->selected)
			report_fieldf(&text, "a build uses", NULL, rv_null(), "%s (first nvcc on PATH)", t->nvcc);
		if (t->gpu_archs)
			report_field(&text, "nvcc --list-gpu-arch", NULL, rv_str(t->gpu_archs));
	}
	if (df->toolkits->n > 0 && df->kb_error && df->kb_error[0])
		report_rec_line(&text, "kb unavailable (%s): targets not judged", df->kb_error);
	if (df->toolkits->spawned)
		report_rec_line(&text, "(some versions came from running nvcc --version: no version.json beside it)");
	return report_rec_end(&text) != CD_OK ? top->rc : CD_OK;
}

/* --- Runtimes --------------------------------------------------------------------- */

/* The copies of one set as rows of tab; library: the stem for "libraries", NULL for libcudart. */
static void runtime_rows(struct report_rec *tab, const struct runtimes *set, const char *library)
{
	struct report_rec row;

	for (size_t i = 0; i < set->n; i++) {
		report_rec_item(tab, &row);
		if (library)
			report_field(&row, NULL, "library", rv_str(library));
		report_fields(&row, &runtime_field_table, &set->r[i], FIELD_BRIEF);
		if (report_rec_end(&row) != CD_OK)
			return; /* the table's end hands the error up */
	}
}

static int section_runtimes(struct report_rec *top, const struct facts *df, bool verbose)
{
	const char *hdr[MAX_COLS];
	size_t ncols = report_fields_headers(&runtime_field_table, FIELD_BRIEF, hdr, MAX_COLS);
	struct report_rec tab, libs;
	struct strbuf sb;
	size_t copies = 0;
	int rc;

	report_rec_section(top, "Runtimes");
	if (df->runtimes[0].n == 0 && df->platform->windows)
		report_rec_line(top, "no libcudart.so (Linux's CUDA runtime; the Windows section judges the CUDA DLLs "
				     "Python loads)");
	else if (df->runtimes[0].n == 0)
		report_rec_line(top, "no libcudart found (LD_LIBRARY_PATH, ld.so.cache, toolkits, Python wheels, torch/lib, conda)");
	rows_under(top, "runtimes", df->runtimes[0].n > 0, ncols, hdr, &tab);
	runtime_rows(&tab, &df->runtimes[0], NULL);
	if (report_rec_end(&tab) != CD_OK)
		return top->rc;
	if (!df->runtimes[0].ldcache_ok && df->runtimes[0].ldcache_error[0])
		report_rec_line(top, "ld.so.cache not read: %s", df->runtimes[0].ldcache_error);

	/* the other CUDA libraries: in JSON always, in text with -v (a summary otherwise) */
	sb_init(&sb);
	for (size_t l = 0; l + 1 < df->n_runtime_sets; l++)
		if (df->runtimes[1 + l].n) {
			sb_printf(&sb, "%s%s x%zu", copies ? ", " : "", df->runtimes[1 + l].library, df->runtimes[1 + l].n);
			copies += df->runtimes[1 + l].n;
		}
	rows_under(top, "libraries", copies && verbose, ncols, hdr, &libs);
	for (size_t l = 0; l + 1 < df->n_runtime_sets; l++)
		runtime_rows(&libs, &df->runtimes[1 + l], df->runtimes[1 + l].library);
	rc = report_rec_end(&libs);
	if (rc == CD_OK && copies && !verbose) {
		char *s = sb_detach(&sb);
		if (s)
			report_fieldf(top, "other CUDA libraries", NULL, rv_null(), "%s (cudoctor -v doctor lists each copy)", s);
		free(s);
	}
	sb_free(&sb);
	return top->rc;
}

/* --- Python ----------------------------------------------------------------------- */

static int section_python(struct report_rec *top, const struct facts *df)
{
	const struct python_info *py = df->python;
	const char *hdr[MAX_COLS];
	size_t ncols = report_fields_headers(&py_framework_field_table, FIELD_BRIEF, hdr, MAX_COLS);
	struct report_rec o, tab, row, sites;
	struct strbuf sb;

	report_rec_section(top, "Python");
	report_rec_object(top, "python", &o);
	if (py->n_envs == 0)
		report_rec_line(&o, "no python3 found (PATH, VIRTUAL_ENV, CONDA_PREFIX)");
	for (size_t i = 0; i < py->n_envs; i++)
		report_fieldf(&o, py->envs[i].kind, NULL, rv_null(), "%s", py->envs[i].prefix);
	list_records(&o, "environments", &py_env_field_table, py->envs, sizeof py->envs[0], py->n_envs);
	report_rec_array(&o, "site_packages", &sites);
	for (size_t i = 0; i < py->n_site_dirs; i++)
		report_rec_push(&sites, rv_str(py->site_dirs[i]));
	if (report_rec_end(&sites) == CD_OK && py->n_fw == 0 && py->n_envs > 0) /* else the error is o's */
		report_rec_line(&o, "no CUDA framework installed (torch, jax, cupy, tensorflow, onnxruntime-gpu, ...)");
	rows_under(&o, "frameworks", py->n_fw > 0, ncols, hdr, &tab);
	for (size_t i = 0; i < py->n_fw; i++) {
		report_rec_item(&tab, &row);
		report_fields(&row, &py_framework_field_table, &py->fw[i], FIELD_BRIEF);
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	if (report_rec_end(&tab) == CD_OK && py->n_wheels > 0) {
		sb_init(&sb);
		for (size_t i = 0; i < py->n_wheels; i++)
			sb_printf(&sb, "%s%s %s", i ? ", " : "", py->wheels[i].name, py->wheels[i].version);
		char *s = sb_detach(&sb);
		report_fieldf(&o, "NVIDIA wheels", NULL, rv_null(), "%s", s ? s : "");
		free(s);
	}
	list_records(&o, "nvidia_wheels", &py_wheel_field_table, py->wheels, sizeof py->wheels[0], py->n_wheels);
	return report_rec_end(&o) != CD_OK ? top->rc : CD_OK;
}

/* --- Platform --------------------------------------------------------------------- */

static int section_platform(struct report_rec *top, const struct facts *df)
{
	const struct platform_info *pf = df->platform;
	struct report_rec o;
	struct strbuf sb;

	report_rec_section(top, "Platform");
	report_rec_object(top, "platform", &o);
	report_fields(&o, &platform_field_table, pf, FIELD_BRIEF);
	sb_init(&sb);
	for (size_t i = 0; i < pf->n_nodes; i++) {
		const struct device_node *n = &pf->nodes[i];
		sb_printf(&sb, "%s%s %s", i ? ", " : "", n->path, !n->exists ? "missing" : n->accessible ? "ok" : "no access");
	}
	char *s = sb_detach(&sb);
	if (s && *s)
		report_fieldf(&o, "device nodes", NULL, rv_null(), "%s", s);
	free(s);
	list_records(&o, "device_nodes", &device_node_field_table, pf->nodes, sizeof pf->nodes[0], pf->n_nodes);
	return report_rec_end(&o) != CD_OK ? top->rc : CD_OK;
}

/* --- Windows ---------------------------------------------------------------------- */

/* The Windows side, where there is one to read (WSL2's /mnt/c): its toolkits and which nvcc.exe
 * PATH runs. JSON null elsewhere. */
static int section_windows(struct report_rec *top, const struct facts *df, bool verbose)
{
	const struct win_side *w = df->windows;
	const char *hdr[MAX_COLS];
	size_t ncols = report_fields_headers(&win_toolkit_field_table, FIELD_BRIEF, hdr, MAX_COLS);
	struct report_rec o, tab, row;

	if (!w->read) {
		report_field(top, NULL, "windows", rv_null());
		return top->rc;
	}
	report_rec_section(top, "Windows");
	report_rec_object(top, "windows", &o);
	report_fields(&o, &win_side_field_table, w, FIELD_BRIEF);
	if (w->n == 0)
		report_rec_line(&o, "no CUDA toolkit found (%sC:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA, "
				    "PATH's nvcc.exe)", w->env_visible ? "CUDA_PATH, CUDA_PATH_V*, " : "");
	rows_under(&o, "toolkits", w->n > 0, ncols, hdr, &tab);
	for (size_t i = 0; i < w->n; i++) {
		report_rec_item(&tab, &row);
		report_fields(&row, &win_toolkit_field_table, &w->t[i], FIELD_BRIEF);
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	if (report_rec_end(&tab) != CD_OK)
		return top->rc;
	for (size_t i = 0; i < w->n; i++)
		if (w->t[i].wins)
			report_fieldf(&o, "nvcc runs", NULL, rv_null(), "%s\\bin\\nvcc.exe (first on PATH)", w->t[i].path);
	/* where each Windows-side framework's CUDA DLLs load from: in JSON always, in text with -v */
	ncols = report_fields_headers(&win_dll_load_field_table, FIELD_BRIEF, hdr, MAX_COLS);
	rows_under(&o, "dll_loads", w->n_dll > 0 && verbose, ncols, hdr, &tab);
	for (size_t i = 0; i < w->n_dll; i++) {
		report_rec_item(&tab, &row);
		report_fields(&row, &win_dll_load_field_table, &w->dll[i], FIELD_BRIEF);
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	if (report_rec_end(&tab) == CD_OK && w->n_dll > 0 && !verbose)
		report_fieldf(&o, "CUDA DLLs", NULL, rv_null(), "%zu import%s of the Python frameworks' modules followed "
			      "(cudoctor -v doctor lists where each loads from)", w->n_dll, w->n_dll == 1 ? "" : "s");
	return report_rec_end(&o) != CD_OK ? top->rc : CD_OK;
}

enum { OPT_BINARY = 1, OPT_PATH };

static const struct cli_opt doctor_opts[] = {
	{ .id = OPT_BINARY, .long_name = "binary", .arg = CLI_REQUIRED, .metavar = "FILE", .complete = CLI_C_FILE,
	  .flags = CLI_REPEAT,
	  .help = "also judge this program or library: will its device code run on each GPU here, and, for a "
		  "Windows .exe, where Windows would load each CUDA DLL it imports (repeatable)" },
	{ .id = OPT_PATH, .long_name = "path", .arg = CLI_REQUIRED, .metavar = "DIR", .complete = CLI_C_DIR,
	  .flags = CLI_REPEAT,
	  .help = "also judge the files with device code under DIR as one app (an install folder; repeatable)" },
	CMD_OPT_FORMAT_ENTRY,
	{ 0 },
};

/* -q's answer: one line, the verdict and what decided it. */
static int verdict_line(struct report *r)
{
	size_t n[4] = { 0 };
	const struct finding *worst = NULL;

	for (size_t i = 0; i < r->n_findings; i++) {
		n[r->findings[i].severity]++;
		if (!worst || r->findings[i].severity > worst->severity)
			worst = &r->findings[i];
	}
	if (n[SEV_ERROR] || n[SEV_WARN])
		return report_answer(r, "%s: %zu error%s, %zu warning%s; first: %s: %s", n[SEV_ERROR] ? "error" : "warn",
				     n[SEV_ERROR], n[SEV_ERROR] == 1 ? "" : "s", n[SEV_WARN], n[SEV_WARN] == 1 ? "" : "s",
				     worst->id, worst->title);
	return report_answer(r, "ok: %s", worst ? worst->title : "nothing to report");
}

/* With two or more GPUs: how they connect, one line per pair, and the topology findings
 * (nvlink-down, p2p-unsupported, numa-affinity), from the run's topology part. */
static int section_topology(struct report *r, struct cd_run *run, const struct gpu_probe *gp, char *err)
{
	const struct topo_probe *t;
	int rc;

	if (gp->n_gpus < 2)
		return CD_OK;
	if ((rc = kb_links_load(err)) != CD_OK || (rc = cd_run_topology(run, &t, err)) != CD_OK)
		return rc;
	if ((rc = topo_report_summary(r, t)) == CD_OK)
		rc = topo_rules(r, t);
	return rc;
}

/* Each --binary that is a Windows program: where Windows would load each CUDA DLL it imports
 * (arch shows the same for a file it is given), and rules_win_exe's findings. */
static int section_programs(struct report_rec *top, const struct doctor_apps *apps, char *err)
{
	struct report_rec list, item;
	bool any = false;
	int rc = CD_OK;

	for (size_t i = 0; i < apps->n_binaries && rc == CD_OK; i++) {
		struct win_exe x;

		if ((rc = cd_run_program_dlls(&x, apps->binaries[i], NULL, 0, err)) != CD_OK) {
			rc = rc == CD_ENOMEM ? rc : CD_OK; /* the framework section says why it was not read */
			continue;
		}
		if (x.n > 0 || x.n_malformed > 0) {
			if (!any)
				report_rec_array(top, "programs", &list);
			any = true;
			report_rec_item(&list, &item);
			report_field(&item, NULL, "path", rv_str(apps->binaries[i]));
			if ((rc = rules_win_exe(&x, top->r)) == CD_OK)
				rc = show_win_exe(&item, &x);
			if (report_rec_end(&item) != CD_OK && rc == CD_OK)
				rc = CD_ENOMEM;
		}
		cd_run_program_dlls_free(&x);
	}
	if (any && report_rec_end(&list) != CD_OK && rc == CD_OK)
		rc = CD_ENOMEM;
	return rc;
}

/* The device code of every app the host's files name, read on the run context's prefetch
 * task once its host parts are collected (then is not run when they could not be). */
struct app_scan {
	struct doctor_scan scan;
	const struct doctor_apps *apps;
	bool ran;
	int rc;
	char err[CD_ERRMSG];
};

static void scan_apps(void *arg, const struct facts *host)
{
	struct app_scan *a = arg;

	a->ran = true;
	a->rc = doctor_scan(&a->scan, host->python, a->apps, a->err);
}

/* Frees the scan once the task is done with it (the join waits for it, whatever it answers). */
static void scan_free(struct cd_run *run, struct app_scan *a)
{
	char jerr[CD_ERRMSG];

	(void)cd_run_host_join(run, jerr);
	if (a->ran && a->rc == CD_OK)
		doctor_scan_free(&a->scan);
}

/* Whether a --binary can be opened (a regular file); if not, why is said on stderr and the
 * run will exit 3. */
static bool input_readable(struct report *r, const char *path)
{
	char ferr[CD_ERRMSG];
	size_t size;
	int fd;

	if (file_open_input(path, &fd, &size, ferr) != CD_OK) {
		cmd_input_error(r, "doctor", ferr);
		return false;
	}
	os_close(fd);
	return true;
}

static int doctor_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct doctor_apps apps = { 0 };
	struct app_scan host = { .apps = &apps };
	const struct deploy_info *deploy;
	struct report_rec top;
	struct facts df;
	int rc;

	if (argc > 1)
		return cd_fail(err, CD_EUSAGE, "doctor takes no arguments (got '%.60s')", argv[1]);
	for (size_t i = 0; i < g->args->n; i++) {
		const char *val = g->args->v[i].value;
		int id = g->args->v[i].opt->id;

		if (id == OPT_BINARY || id == OPT_PATH) {
			const char **list = id == OPT_BINARY ? apps.binaries : apps.paths;
			size_t *n = id == OPT_BINARY ? &apps.n_binaries : &apps.n_paths;

			if (*n == sizeof(apps.binaries) / sizeof(apps.binaries[0]))
				return cd_fail(err, CD_EUSAGE, "at most 16 --%s", id == OPT_BINARY ? "binary" : "path");
			/* one that cannot be read is said on stderr, as arch and explain say it, and
			 * exits 3; the rest of doctor still runs */
			if (id == OPT_BINARY && !input_readable(r, val))
				continue;
			if (id == OPT_PATH && !path_is_dir(val)) {
				char msg[CD_ERRMSG];

				snprintf(msg, sizeof msg, "--path %.200s: %s", val,
					 path_is_file(val) ? "not a directory (--binary judges one file)"
							   : "no such directory");
				cmd_input_error(r, "doctor", msg);
				continue;
			}
			list[(*n)++] = val;
		}
	}
	/* the host's files are read while the driver initialises: cuInit is most of doctor's time */
	g->run->toolkit_archs = g->render.verbosity > 0;
	if ((rc = cd_run_host_prefetch(g->run, scan_apps, &host, err)) != CD_OK)
		return rc;
	rc = cd_run_judge_driver(g->run, r, err);
	if (rc == CD_OK)
		rc = cd_run_host_join(g->run, err);
	if (rc == CD_OK)
		rc = cd_run_facts(g->run, CD_FACTS_DRIVER | CD_FACTS_HOST, &df, err);
	if (rc == CD_OK && host.rc != CD_OK)
		rc = cd_fail(err, host.rc, "%s", host.err);
	if (rc != CD_OK) {
		scan_free(g->run, &host);
		return rc;
	}
	/* the answer first: will what is installed run on these GPUs */
	if ((rc = doctor_frameworks(r, &df, &host.scan, cd_run_amd_only(g->run), err)) != CD_OK ||
	    (rc = doctor_amd(r, g->run, &host.scan, err)) != CD_OK)
		goto out;
	/* every section's error is top's too: its end is checked */
	report_rec_top(&top, r);
	if (section_driver(&top, &df) == CD_OK)
		section_gpus(&top, &df, cd_run_amd_only(g->run));
	if ((rc = report_rec_end(&top)) != CD_OK || (rc = section_topology(r, g->run, df.driver, err)) != CD_OK)
		goto out;
	report_rec_top(&top, r);
	if (section_toolkits(&top, &df) == CD_OK && section_runtimes(&top, &df, g->render.verbosity > 0) == CD_OK &&
	    section_python(&top, &df) == CD_OK && section_platform(&top, &df) == CD_OK)
		section_windows(&top, &df, g->render.verbosity > 0);
	if ((rc = report_rec_end(&top)) != CD_OK)
		goto out;
	report_rec_top(&top, r);
	rc = section_programs(&top, &apps, err);
	if (report_rec_end(&top) != CD_OK && rc == CD_OK)
		rc = CD_ENOMEM;
	if (rc != CD_OK)
		goto out;
	if ((rc = rules_stack(&df, r)) != CD_OK)
		goto out;
	if ((rc = rules_gpu_health(df.driver, r)) != CD_OK)
		goto out;
	/* check's cheap deployment checks: the kernel log's Xids, nouveau, the environment */
	if ((rc = cd_run_deploy(g->run, &deploy, err)) != CD_OK || (rc = rules_deploy(deploy, df.driver, false, r)) != CD_OK)
		goto out;
	if ((rc = rules_verdict(&df, r)) != CD_OK)
		goto out;
	rc = verdict_line(r);
out:
	scan_free(g->run, &host);
	if (rc != CD_OK)
		return cd_fail(err, rc, "doctor: %s", cd_strerror(rc));
	return CD_OK;
}

const struct cd_command cmd_doctor = {
	.name = "doctor",
	.summary = "check driver, GPUs, toolkits, runtimes, Python and platform against each other",
	.usage = "cudoctor [GLOBAL OPTIONS] doctor [--binary FILE] [--path DIR]\n"
		 "         [--format prometheus]",
	.help = doctor_help,
	.opts = doctor_opts,
	.needs = NEEDS_DRIVER_GENTLY, /* opened by doctor_run while the host is probed */
	.run = doctor_run,
};
