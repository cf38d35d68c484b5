/* doctor's facts: probes in the order that lets later ones use earlier results (Python's
 * site-packages feed the toolkit and runtime searches), then the kb enrichment. */
#include "cmd/doctor_facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/gpu_findings.h"
#include "kb/kb.h"
#include "util/err.h"
#include "util/str.h"

/* The oldest driver branch that runs CUDA v fully: its first release and its name. */
static bool branch_for(const struct version *v, bool kb_ok, char *min_driver, size_t n1, char *branch, size_t n2)
{
	const struct kb_driver_branch *b;

	if (!kb_ok || v->parts == 0 || !(b = kb_driver_branch_for_cuda(v)))
		return false;
	version_format(&b->first_version, 3, min_driver, n1);
	snprintf(branch, n2, "R%d", b->branch);
	return true;
}

static void fill_driver(struct doctor_facts *df, bool kb_ok)
{
	struct stack_driver *d = &df->sf.driver;
	struct version dv;

	gpu_stack_driver(&df->gp, &df->di, d);
	if (kb_ok && d->version && version_parse(d->version, &dv) == CD_OK) {
		const struct kb_driver_branch *b;
		bool exact;
		if (kb_driver_branch_of(&dv, &b, &exact) == CD_OK) {
			snprintf(df->driver_branch, sizeof df->driver_branch, "R%d", exact ? b->branch : dv.major);
			d->branch = df->driver_branch;
		}
	}
}

/* MIG devices for the CUDA_VISIBLE_DEVICES rule: known with MIG mode off (none) or
 * listed with it on; unknown otherwise. */
static void fill_migs(const struct gpu_info *g, struct stack_gpu *s, struct stack_mig *next)
{
	if (!gpu_has(g, GF_MIG_MODE))
		return;
	if (!g->mig_mode_current) {
		s->mig_listed = true;
		return;
	}
	if (!gpu_has(g, GF_MIG_DEVICES))
		return;
	s->mig_listed = true;
	s->migs = next;
	s->n_migs = g->n_mig_devices;
	for (size_t k = 0; k < g->n_mig_devices; k++) {
		next[k].uuid = g->mig_devices[k].uuid[0] ? g->mig_devices[k].uuid : NULL;
		next[k].gpu_instance_id = (int)g->mig_devices[k].gpu_instance_id;
		next[k].compute_instance_id = (int)g->mig_devices[k].compute_instance_id;
	}
}

static void fill_gpus(struct doctor_facts *df, bool kb_ok)
{
	size_t used_migs = 0;

	for (size_t i = 0; i < df->gp.n_gpus; i++) {
		const struct gpu_info *g = &df->gp.gpus[i];
		struct stack_gpu *s = &df->gpus[i];

		s->cuda_index = g->cuda_ordinal;
		s->pci_index = g->nvml_index >= 0 ? g->nvml_index : g->cuda_ordinal;
		s->name = gpu_has(g, GF_NAME) ? g->name : NULL;
		if (gpu_has(g, GF_CC)) {
			s->cc_major = (int)g->cc_major;
			s->cc_minor = (int)g->cc_minor;
		}
		s->pci_bus_id = gpu_has(g, GF_PCI_BUS_ID) ? g->pci_bus_id : NULL;
		s->uuid = gpu_has(g, GF_UUID) ? g->uuid : NULL;
		s->persistence = gpu_has(g, GF_PERSISTENCE) ? g->persistence_mode : -1;
		fill_migs(g, s, df->migs + used_migs);
		used_migs += s->n_migs;
		if (kb_ok && s->cc_major > 0) {
			const struct kb_toolkit *first = NULL, *last = NULL;
			struct kb_arch a = { .num = s->cc_major * 10 + s->cc_minor, .suffix = 0 };
			if (kb_arch_toolkit_range(a, &first, &last) == CD_OK) {
				s->first_toolkit = first ? first->release_text : NULL;
				s->last_toolkit = last ? last->release_text : NULL;
			}
		}
	}
	df->sf.gpus = df->gpus;
	df->sf.n_gpus = df->gp.n_gpus;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void fill_toolkits(struct doctor_facts *df, bool kb_ok)
{
	for (size_t i = 0; i < df->tk.n; i++) {
		const struct toolkit *t = &df->tk.t[i];
		struct stack_toolkit *s = &df->toolkits[i];
		const struct kb_toolkit *kt;

		s->path = t->root;
		s->nvcc = t->nvcc;
		s->version = t->version;
		s->selected = t->selected;
		if (branch_for(&t->version, kb_ok, df->tk_min_driver[i], sizeof df->tk_min_driver[i], df->tk_branch[i], sizeof df->tk_branch[i])) {
			s->min_driver = df->tk_min_driver[i];
			s->min_branch = df->tk_branch[i];
		}
		if (!kb_ok || t->version.parts == 0 || !(kt = kb_toolkit_find(&t->version)) || !kt->archs_known)
			continue;
		size_t n = 0;
		for (size_t k = 0; k < kt->n_archs && n < DOCTOR_MAX_ARCHS; k++) {
			bool dup = false;
			if (kt->archs[k].suffix != 0)
				continue;
			for (size_t j = 0; j < n; j++)
				dup |= df->archs[i][j] == kt->archs[k].num;
			if (!dup)
				df->archs[i][n++] = kt->archs[k].num;
		}
		qsort(df->archs[i], n, sizeof df->archs[i][0], cmp_int);
		s->archs = df->archs[i];
		s->n_archs = n;
		s->kb_known = n > 0;
	}
	df->sf.toolkits = df->toolkits;
	df->sf.n_toolkits = df->tk.n;
}

static void fill_one_runtime(struct doctor_facts *df, const struct runtime *r, bool kb_ok)
{
	size_t i = df->n_runtimes++;
	struct stack_runtime *s = &df->runtimes[i];
	char branch[16];

	s->path = r->path;
	s->real_path = r->real_path;
	s->soname = r->soname;
	s->version = r->version;
	s->version_text = r->version_text[0] ? r->version_text : NULL;
	s->origin = r->origin;
	s->rank = r->rank;
	s->from_ld_library_path = r->from_ld_library_path;
	if (str_starts_with(r->soname, "libcudart") &&
	    branch_for(&r->version, kb_ok, df->rt_min_driver[i], sizeof df->rt_min_driver[i], branch, sizeof branch))
		s->min_driver = df->rt_min_driver[i];
}

static void fill_runtimes(struct doctor_facts *df, bool kb_ok)
{
	for (size_t i = 0; i < df->rt.n; i++)
		fill_one_runtime(df, &df->rt.r[i], kb_ok);
	for (size_t l = 0; l < df->n_libs; l++)
		for (size_t i = 0; i < df->libs[l].n; i++)
			fill_one_runtime(df, &df->libs[l].r[i], kb_ok);
	df->sf.runtimes = df->runtimes;
	df->sf.n_runtimes = df->n_runtimes;
}

static void fill_frameworks(struct doctor_facts *df, bool kb_ok)
{
	char branch[16];

	for (size_t i = 0; i < df->py.n_fw; i++) {
		const struct py_framework *f = &df->py.fw[i];
		struct stack_framework *s = &df->frameworks[i];
		struct version v;

		s->name = f->name;
		s->version = f->version[0] ? f->version : NULL;
		s->cuda = f->cuda[0] && strchr(f->cuda, '.') ? f->cuda : NULL; /* a bare major (cupy-cuda12x) is not judged */
		s->cpu_only = f->cpu_only;
		s->path = f->path;
		if (s->cuda && version_parse(s->cuda, &v) == CD_OK &&
		    branch_for(&v, kb_ok, df->fw_min_driver[i], sizeof df->fw_min_driver[i], branch, sizeof branch))
			s->min_driver = df->fw_min_driver[i];
	}
	df->sf.frameworks = df->frameworks;
	df->sf.n_frameworks = df->py.n_fw;
}

#define ALLOC(ptr, n) \
	do { \
		(ptr) = calloc((n) ? (n) : 1, sizeof *(ptr)); \
		if (!(ptr)) \
			goto oom; \
	} while (0)

int doctor_collect(struct doctor_facts *df, const struct doctor_opts *o, char *err)
{
	struct toolkits_opts to = { 0 };
	struct runtimes_opts ro = { 0 };
	struct python_opts po = { .home = getenv("HOME") };
	struct driver_seen seen = { 0 };
	bool kb_ok;
	size_t total;
	int rc;

	memset(df, 0, sizeof *df);
	rc = gpu_probe_run(&df->gp, err);
	if (rc != CD_OK)
		return rc;
	gpu_driver_seen(&df->gp, &seen);
	driver_info_collect(&df->di, &seen, o->root);

	if ((rc = platform_probe(&df->pf, o->root, err)) != CD_OK)
		goto fail;
	if ((rc = python_probe(&df->py, &po, err)) != CD_OK)
		goto fail;
	to.root = o->root;
	to.site_dirs = (const char *const *)df->py.site_dirs;
	to.n_site_dirs = df->py.n_site_dirs;
	to.list_archs = o->list_archs;
	if ((rc = toolkits_probe(&df->tk, &to, err)) != CD_OK)
		goto fail;
	ro.root = o->root;
	ro.site_dirs = to.site_dirs;
	ro.n_site_dirs = to.n_site_dirs;
	if ((rc = runtimes_probe(&df->rt, &ro, err)) != CD_OK)
		goto fail;
	total = df->rt.n;
	for (size_t l = 0; runtime_libraries[l] && l < sizeof df->libs / sizeof df->libs[0]; l++) {
		ro.library = runtime_libraries[l];
		if ((rc = runtimes_probe(&df->libs[l], &ro, err)) != CD_OK)
			goto fail;
		df->n_libs = l + 1;
		total += df->libs[l].n;
	}

	kb_ok = kb_load(df->kb_error) == CD_OK;
	ALLOC(df->gpus, df->gp.n_gpus);
	size_t n_migs = 0;
	for (size_t i = 0; i < df->gp.n_gpus; i++)
		n_migs += df->gp.gpus[i].n_mig_devices;
	ALLOC(df->migs, n_migs);
	ALLOC(df->toolkits, df->tk.n);
	ALLOC(df->archs, df->tk.n);
	ALLOC(df->tk_min_driver, df->tk.n);
	ALLOC(df->tk_branch, df->tk.n);
	ALLOC(df->runtimes, total);
	ALLOC(df->rt_min_driver, total);
	ALLOC(df->frameworks, df->py.n_fw);
	ALLOC(df->fw_min_driver, df->py.n_fw);
	fill_driver(df, kb_ok);
	fill_gpus(df, kb_ok);
	fill_toolkits(df, kb_ok);
	fill_runtimes(df, kb_ok);
	fill_frameworks(df, kb_ok);
	platform_stack_facts(&df->pf, &df->sf.platform);
	return CD_OK;
oom:
	rc = cd_fail(err, CD_ENOMEM, "doctor: out of memory");
fail:
	doctor_facts_free(df);
	return rc;
}

void doctor_facts_free(struct doctor_facts *df)
{
	gpu_probe_free(&df->gp);
	toolkits_free(&df->tk);
	runtimes_free(&df->rt);
	for (size_t l = 0; l < df->n_libs; l++)
		runtimes_free(&df->libs[l]);
	python_free(&df->py);
	free(df->gpus);
	free(df->migs);
	free(df->toolkits);
	free(df->archs);
	free(df->tk_min_driver);
	free(df->tk_branch);
	free(df->runtimes);
	free(df->rt_min_driver);
	free(df->frameworks);
	free(df->fw_min_driver);
	memset(df, 0, sizeof *df);
}
