/* `cudoctor doctor`: every layer of the CUDA stack found, shown, and checked against the
 * others. Collection is doctor/facts.c, judgement src/rules; this file renders. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/doctor/facts.h"
#include "cmd/gpu_facts.h"
#include "cmd/topo_report.h"
#include "kb/links.h"
#include "probe/topology.h"
#include "rules/topology.h"
#include "rules/rules.h"
#include "util/err.h"
#include "util/str.h"
#include "util/units.h"

static const char doctor_help[] =
	"One verdict across the CUDA stack. Finds and checks against each other:\n"
	"  Driver     the libcuda loaded and how, its version, the CUDA version it supports, "
	"the kernel module's version\n"
	"  GPUs       in CUDA's order and in nvidia-smi's (PCI) order, their MIG instances, "
	"with CUDA_VISIBLE_DEVICES\n"
	"  Toolkits   every nvcc, its version, which one a build uses, what it can target\n"
	"  Runtimes   every libcudart the loader or a framework could load, and which wins\n"
	"  Python     frameworks and NVIDIA wheels, read from disk without importing them\n"
	"  Platform   WSL2, containers, /dev/nvidia* nodes\n"
	"then prints the findings with evidence and fixes. With -v it also asks the selected nvcc "
	"for --list-gpu-arch (runs it); with -q it prints the verdict line only.";

static json_t *jstr(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

/* --- Driver and GPUs: the tables' brief view --------------------------------------- */

static int section_driver(struct report_rec *top, const struct doctor_facts *df)
{
	report_rec_section(top, "Driver");
	return gpu_facts_driver(top, df->gp, FIELD_BRIEF);
}

static int section_gpus(struct report_rec *top, const struct doctor_facts *df)
{
	const char *hdr[16];
	size_t ncols = report_fields_headers(&gpu_field_table, FIELD_BRIEF, hdr, 16);
	const struct platform_info *pf = df->pf;
	struct report_rec tab, row, text;

	report_rec_section(top, "GPUs");
	if (df->gp->n_gpus == 0) {
		report_rec_line(top, "%s", df->gp->cuda_loaded ? "no GPU visible to CUDA or NVML" : "none (no driver)");
		report_field(top, NULL, "gpus", rv_json(json_array()));
	} else {
		/* the probe lists CUDA's order first, then the GPUs CUDA does not see */
		report_rec_table(top, "gpus", ncols, hdr, &tab);
		for (size_t i = 0; i < df->gp->n_gpus; i++) {
			report_rec_item(&tab, &row);
			gpu_facts_gpu(&row, &df->gp->gpus[i], FIELD_BRIEF);
			if (report_rec_end(&row) != CD_OK)
				break; /* the table's end hands the error up */
		}
		if (report_rec_end(&tab) != CD_OK)
			return top->rc;
	}
	/* MIG instances under their GPU: CUDA sees these, not the GPU, when MIG is on */
	report_rec_text_only(top, &text);
	for (size_t i = 0; i < df->gp->n_gpus; i++) {
		const struct gpu_info *g = &df->gp->gpus[i];
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
	else if (df->gp->n_gpus > 1)
		report_fieldf(&text, "CUDA_DEVICE_ORDER", NULL, rv_null(), "unset: CUDA orders FASTEST_FIRST, nvidia-smi by PCI bus");
	return report_rec_end(&text) != CD_OK ? top->rc : CD_OK;
}

/* --- Toolkits --------------------------------------------------------------------- */

/* "yes" / "no: needs R580" / "JIT-limited" for the driver column */
static const char *runs_here(const struct toolkit *t, const struct gpu_probe *d, char *buf, size_t n)
{
	struct version cuda;

	if (!d->cuda_loaded || !driver_has(d, DF_CUDA_VERSION) || d->cuda_driver_version <= 0 || t->version.parts == 0)
		return "-";
	cuda = version_from_cuda_int(d->cuda_driver_version);
	if (t->version.major < cuda.major || (t->version.major == cuda.major && t->version.minor <= cuda.minor))
		return "yes";
	if (t->version.major == cuda.major && t->version.major >= 11)
		return "yes (minor-version compat; no PTX JIT)";
	snprintf(buf, n, "no: needs %s", t->kb.min_branch[0] ? t->kb.min_branch : "a newer driver");
	return buf;
}

static void targets_here(const struct toolkit *t, const struct doctor_facts *df, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	if (!t->kb.known) {
		snprintf(buf, n, "-");
		return;
	}
	if (df->gp->n_gpus == 0) {
		snprintf(buf, n, "sm_%d..sm_%d", t->kb.archs[0], t->kb.archs[t->kb.n_archs - 1]);
		return;
	}
	for (size_t i = 0; i < df->gp->n_gpus; i++) {
		const struct gpu_info *g = &df->gp->gpus[i];
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

static int section_toolkits(struct report *r, const struct doctor_facts *df)
{
	static const char *const hdr[] = { "", "nvcc", "CUDA", "version from", "found by", "targets", "its builds run here" };
	json_t *arr = json_array();

	if (!arr)
		return CD_ENOMEM;
	report_section(r, "Toolkits");
	if (df->tk.n == 0)
		report_line(r, "no nvcc found (PATH, CUDACXX, CUDA_HOME, CUDA_PATH, /usr/local/cuda*, /opt/cuda, conda, pip nvidia-cuda-nvcc)");
	else
		report_table(r, 7, hdr);
	for (size_t i = 0; i < df->tk.n; i++) {
		const struct toolkit *t = &df->tk.t[i];
		char by[96], tg[160], run[64], ver[32];
		json_t *o = json_object(), *fb = json_array(), *archs = json_array();

		if (!o || !fb || !archs) {
			json_decref(o);
			json_decref(fb);
			json_decref(archs);
			return CD_ENOMEM;
		}
		toolkit_found_by_text(t->found_by, by, sizeof by);
		targets_here(t, df, tg, sizeof tg);
		snprintf(ver, sizeof ver, "%s", t->version_text[0] ? t->version_text : "unknown");
		const char *row[] = { t->selected ? "*" : "", t->nvcc, ver, or_dash(t->version_source), by, tg,
				      runs_here(t, df->gp, run, sizeof run) };
		report_table_row(r, row);

		json_object_set_new(o, "path", jstr(t->root));
		json_object_set_new(o, "nvcc", jstr(t->nvcc));
		json_object_set_new(o, "real_nvcc", jstr(t->real_nvcc));
		json_object_set_new(o, "version", jstr(t->version_text));
		json_object_set_new(o, "version_source", jstr(t->version_source));
		json_object_set_new(o, "selected", json_boolean(t->selected));
		for (char *p = by; *p;) {
			char *comma = strstr(p, ", ");
			json_array_append_new(fb, comma ? json_stringn(p, (size_t)(comma - p)) : json_string(p));
			p = comma ? comma + 2 : p + strlen(p);
		}
		json_object_set_new(o, "found_by", fb);
		for (size_t k = 0; k < t->kb.n_archs; k++) {
			char a[16];
			snprintf(a, sizeof a, "sm_%d", t->kb.archs[k]);
			json_array_append_new(archs, json_string(a));
		}
		json_object_set_new(o, "archs", t->kb.known ? archs : (json_decref(archs), json_null()));
		json_object_set_new(o, "min_driver", jstr(t->kb.min_driver));
		json_object_set_new(o, "nvcc_list_gpu_arch", jstr(t->gpu_archs));
		json_array_append_new(arr, o);
	}
	for (size_t i = 0; i < df->tk.n; i++) {
		const struct toolkit *t = &df->tk.t[i];
		if (t->selected)
			report_kv(r, "a build uses", "%s (first nvcc on PATH)", t->nvcc);
		if (t->gpu_archs)
			report_kv(r, "nvcc --list-gpu-arch", "%s", t->gpu_archs);
	}
	if (df->tk.n > 0 && df->kb_error[0])
		report_line(r, "kb unavailable (%s): targets not judged", df->kb_error);
	if (df->tk.spawned)
		report_line(r, "(some versions came from running nvcc --version: no version.json beside it)");
	return report_json_set(r, "toolkits", arr);
}

/* --- Runtimes --------------------------------------------------------------------- */

static const char *loader_text(const struct runtime *rt, char *buf, size_t n)
{
	if (rt->rank >= 0 && rt->picked)
		snprintf(buf, n, "picked (%s)", rt->from_ld_library_path ? "LD_LIBRARY_PATH" : "ld.so.cache");
	else if (rt->rank >= 0)
		snprintf(buf, n, "shadowed (%s)", rt->from_ld_library_path ? "LD_LIBRARY_PATH" : "ld.so.cache");
	else if (rt->origin == ORIGIN_PIP || rt->origin == ORIGIN_TORCH || rt->origin == ORIGIN_CONDA)
		snprintf(buf, n, "by its framework (RUNPATH)");
	else
		snprintf(buf, n, "not on the loader path");
	return buf;
}

static json_t *runtime_json(const struct runtime *rt, const char *library)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	if (library)
		json_object_set_new(o, "library", json_string(library));
	json_object_set_new(o, "path", jstr(rt->path));
	json_object_set_new(o, "real_path", jstr(rt->real_path));
	json_object_set_new(o, "soname", jstr(rt->soname));
	json_object_set_new(o, "version", jstr(rt->version_text));
	json_object_set_new(o, "version_source", jstr(rt->version_source));
	json_object_set_new(o, "origin", json_string(runtime_origin_name(rt->origin)));
	json_object_set_new(o, "picked", json_boolean(rt->picked));
	json_object_set_new(o, "from_ld_library_path", json_boolean(rt->from_ld_library_path));
	return o;
}

static void runtime_row(struct report *r, const struct runtime *rt)
{
	char ld[64];
	const char *row[] = { rt->path, or_dash(rt->version_text), or_dash(rt->version_source),
			      runtime_origin_name(rt->origin), loader_text(rt, ld, sizeof ld) };

	report_table_row(r, row);
}

static int section_runtimes(struct report *r, const struct doctor_facts *df, bool verbose)
{
	static const char *const hdr[] = { "library", "version", "version from", "origin", "loader" };
	json_t *arr = json_array(), *libs = json_array();
	struct strbuf sb;
	size_t copies = 0;

	if (!arr || !libs) {
		json_decref(arr);
		json_decref(libs);
		return CD_ENOMEM;
	}
	report_section(r, "Runtimes");
	if (df->rt[0].n == 0)
		report_line(r, "no libcudart found (LD_LIBRARY_PATH, ld.so.cache, toolkits, Python wheels, torch/lib, conda)");
	else
		report_table(r, 5, hdr);
	for (size_t i = 0; i < df->rt[0].n; i++) {
		runtime_row(r, &df->rt[0].r[i]);
		json_array_append_new(arr, runtime_json(&df->rt[0].r[i], NULL));
	}
	if (!df->rt[0].ldcache_ok && df->rt[0].ldcache_error[0])
		report_line(r, "ld.so.cache not read: %s", df->rt[0].ldcache_error);

	/* the other CUDA libraries: in JSON always, in text with -v (a summary otherwise) */
	sb_init(&sb);
	for (size_t l = 0; l + 1 < df->n_rt; l++) {
		const struct runtimes *set = &df->rt[1 + l];
		if (set->n == 0)
			continue;
		sb_printf(&sb, "%s%s x%zu", copies ? ", " : "", runtime_libraries[l], set->n);
		copies += set->n;
		for (size_t i = 0; i < set->n; i++)
			json_array_append_new(libs, runtime_json(&set->r[i], runtime_libraries[l]));
	}
	if (copies && verbose) {
		report_table(r, 5, hdr);
		for (size_t l = 1; l < df->n_rt; l++)
			for (size_t i = 0; i < df->rt[l].n; i++)
				runtime_row(r, &df->rt[l].r[i]);
	} else if (copies) {
		char *s = sb_detach(&sb);
		if (s)
			report_kv(r, "other CUDA libraries", "%s (cudoctor -v doctor lists each copy)", s);
		free(s);
	}
	sb_free(&sb);
	if (report_json_set(r, "libraries", libs) != CD_OK) {
		json_decref(arr);
		return CD_ENOMEM;
	}
	return report_json_set(r, "runtimes", arr);
}

/* --- Python ----------------------------------------------------------------------- */

static int section_python(struct report *r, const struct doctor_facts *df)
{
	static const char *const hdr[] = { "framework", "version", "CUDA", "path" };
	const struct python_info *py = &df->py;
	json_t *o = json_object(), *envs = json_array(), *sites = json_array(), *fws = json_array(), *wh = json_array();

	if (!o || !envs || !sites || !fws || !wh) {
		json_decref(o);
		json_decref(envs);
		json_decref(sites);
		json_decref(fws);
		json_decref(wh);
		return CD_ENOMEM;
	}
	report_section(r, "Python");
	if (py->n_envs == 0)
		report_line(r, "no python3 found (PATH, VIRTUAL_ENV, CONDA_PREFIX)");
	for (size_t i = 0; i < py->n_envs; i++) {
		json_t *e = json_object();
		report_kv(r, py->envs[i].kind, "%s", py->envs[i].prefix);
		json_object_set_new(e, "kind", json_string(py->envs[i].kind));
		json_object_set_new(e, "prefix", jstr(py->envs[i].prefix));
		json_object_set_new(e, "interpreter", jstr(py->envs[i].interpreter));
		json_array_append_new(envs, e);
	}
	for (size_t i = 0; i < py->n_site_dirs; i++)
		json_array_append_new(sites, json_string(py->site_dirs[i]));
	if (py->n_fw > 0)
		report_table(r, 4, hdr);
	else if (py->n_envs > 0)
		report_line(r, "no CUDA framework installed (torch, jax, cupy, tensorflow, onnxruntime-gpu, ...)");
	for (size_t i = 0; i < py->n_fw; i++) {
		const struct py_framework *f = &py->fw[i];
		const char *cuda = f->cpu_only ? "none (CPU-only build)" : f->rocm ? "none (ROCm build)" : or_dash(f->cuda);
		const char *row[] = { f->name, or_dash(f->version), cuda, f->path };
		json_t *e = json_object();
		report_table_row(r, row);
		json_object_set_new(e, "name", json_string(f->name));
		json_object_set_new(e, "version", jstr(f->version));
		json_object_set_new(e, "cuda", jstr(f->cuda));
		json_object_set_new(e, "cpu_only", json_boolean(f->cpu_only));
		json_object_set_new(e, "path", jstr(f->path));
		json_array_append_new(fws, e);
	}
	if (py->n_wheels > 0) {
		struct strbuf sb;
		sb_init(&sb);
		for (size_t i = 0; i < py->n_wheels; i++) {
			json_t *e = json_object();
			sb_printf(&sb, "%s%s %s", i ? ", " : "", py->wheels[i].name, py->wheels[i].version);
			json_object_set_new(e, "name", json_string(py->wheels[i].name));
			json_object_set_new(e, "version", json_string(py->wheels[i].version));
			json_object_set_new(e, "site", json_string(py->wheels[i].site));
			json_array_append_new(wh, e);
		}
		char *s = sb_detach(&sb);
		if (s)
			report_kv(r, "NVIDIA wheels", "%s", s);
		free(s);
	}
	json_object_set_new(o, "environments", envs);
	json_object_set_new(o, "site_packages", sites);
	json_object_set_new(o, "frameworks", fws);
	json_object_set_new(o, "nvidia_wheels", wh);
	return report_json_set(r, "python", o);
}

/* --- Platform --------------------------------------------------------------------- */

static int section_platform(struct report *r, const struct doctor_facts *df)
{
	const struct platform_info *pf = df->pf;
	json_t *o = json_object(), *nodes = json_array();
	struct strbuf sb;

	if (!o || !nodes) {
		json_decref(o);
		json_decref(nodes);
		return CD_ENOMEM;
	}
	report_section(r, "Platform");
	report_kv(r, "WSL2", "%s", pf->wsl ? (pf->wsl_libcuda1 ? "yes (/usr/lib/wsl/lib/libcuda.so.1 present)" : "yes (no /usr/lib/wsl/lib/libcuda.so.1)") : "no");
	report_kv(r, "container", "%s", pf->container ? pf->container : "none detected");
	if (pf->image_cuda_version)
		report_kv(r, "image CUDA_VERSION", "%s", pf->image_cuda_version);
	if (pf->nvidia_visible_devices)
		report_kv(r, "NVIDIA_VISIBLE_DEVICES", "%s", pf->nvidia_visible_devices);
	sb_init(&sb);
	for (size_t i = 0; i < pf->n_nodes; i++) {
		const struct device_node *n = &pf->nodes[i];
		json_t *e = json_object();
		sb_printf(&sb, "%s%s %s", i ? ", " : "", n->path, !n->exists ? "missing" : n->accessible ? "ok" : "no access");
		json_object_set_new(e, "path", json_string(n->path));
		json_object_set_new(e, "exists", json_boolean(n->exists));
		json_object_set_new(e, "accessible", json_boolean(n->accessible));
		json_array_append_new(nodes, e);
	}
	char *s = sb_detach(&sb);
	if (s && *s)
		report_kv(r, "device nodes", "%s", s);
	free(s);
	json_object_set_new(o, "wsl", json_boolean(pf->wsl));
	json_object_set_new(o, "container", jstr(pf->container));
	json_object_set_new(o, "device_nodes", nodes);
	json_object_set_new(o, "cuda_visible_devices", pf->visible.set ? json_string(pf->visible.raw ? pf->visible.raw : "") : json_null());
	json_object_set_new(o, "cuda_device_order", jstr(pf->device_order));
	json_object_set_new(o, "image_cuda_version", jstr(pf->image_cuda_version));
	return report_json_set(r, "platform", o);
}

static const struct cli_opt doctor_opts[] = { CMD_OPT_FORMAT_ENTRY, { 0 } };

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
 * (nvlink-down, p2p-unsupported, numa-affinity) through the run's libraries. */
static int section_topology(struct report *r, const struct cd_run *run, char *err)
{
	struct topo_probe *t;
	int rc;

	if (run->probe.n_gpus < 2)
		return CD_OK;
	if ((rc = kb_links_load(err)) != CD_OK)
		return rc;
	if (!(t = calloc(1, sizeof(*t))))
		return CD_ENOMEM;
	if ((rc = topo_probe_collect(t, &run->probe, run->cu, run->nv, NULL, err)) == CD_OK) {
		if ((rc = topo_report_summary(r, t)) == CD_OK)
			rc = topo_rules(r, t);
		topo_probe_free(t);
	}
	free(t);
	return rc;
}

static int doctor_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct doctor_opts o = { .root = NULL, .list_archs = g->render.verbosity > 0 };
	struct doctor_facts df;
	struct report_rec top;
	int rc;

	if (argc > 1)
		return cd_fail(err, CD_EUSAGE, "doctor takes no arguments (got '%.60s')", argv[1]);
	if ((rc = cmd_format_option(r, g, err)) != CD_OK)
		return rc;
	/* the driver was opened and judged by the run context (needs = NEEDS_DRIVER) */
	rc = doctor_collect(&df, g->run, &o, err);
	if (rc != CD_OK)
		return rc;
	report_rec_top(&top, r);
	section_driver(&top, &df);
	section_gpus(&top, &df);
	if ((rc = report_rec_end(&top)) != CD_OK || (rc = section_topology(r, g->run, err)) != CD_OK ||
	    (rc = section_toolkits(r, &df)) != CD_OK || (rc = section_runtimes(r, &df, g->render.verbosity > 0)) != CD_OK ||
	    (rc = section_python(r, &df)) != CD_OK || (rc = section_platform(r, &df)) != CD_OK)
		goto out;
	if ((rc = rules_stack(&df.f, r)) != CD_OK)
		goto out;
	if ((rc = rules_gpu_health(df.gp, r)) != CD_OK)
		goto out;
	if ((rc = rules_verdict(&df.f, r)) != CD_OK)
		goto out;
	rc = verdict_line(r);
out:
	doctor_facts_free(&df);
	if (rc != CD_OK)
		return cd_fail(err, rc, "doctor: %s", cd_strerror(rc));
	return CD_OK;
}

const struct cd_command cmd_doctor = {
	.name = "doctor",
	.summary = "check driver, GPUs, toolkits, runtimes, Python and platform against each other",
	.usage = "cudoctor [GLOBAL OPTIONS] doctor [--format prometheus]",
	.help = doctor_help,
	.opts = doctor_opts,
	.needs = NEEDS_DRIVER,
	.run = doctor_run,
};
