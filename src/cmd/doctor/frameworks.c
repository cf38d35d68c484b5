/* doctor's "Will it run": the frameworks probe/python.c found (with the files that carry their
 * device code), Ollama's runners and the --binary/--path apps, found as arch finds them
 * (probe/arch_inputs.c), mapped and read to their fatbin headers only, judged by rules/framework. */
#include "cmd/doctor/frameworks.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binfmt/devcode.h"
#include "probe/arch_inputs.h"
#include "rules/arch.h"
#include "kb/kb.h"
#include "rules/framework.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"

#define MAX_FILES 64

/* One app's files, mapped and scanned while it is judged. */
struct app_files {
	struct arch_file f[MAX_FILES];
	struct mapped_file m[MAX_FILES];
	size_t n;
	char unreadable[CD_ERRMSG];   /* the first file that could not be read */
};

static void files_free(struct app_files *af)
{
	for (size_t i = 0; i < af->n; i++) {
		dc_free(&af->f[i].inv);
		file_unmap(&af->m[i]);
	}
	af->n = 0;
}

/* One file's scan, done on its own thread: mapped and read to its fatbin headers. */
struct scan_slot {
	const char *path;
	struct arch_file f;
	struct mapped_file m;
	int rc;                /* CD_OK, or why it was not read */
	bool keep;             /* it carries device code */
	char err[CD_ERRMSG];
};

/* Maps the slot's file: on the calling thread, since the SIGBUS guard's slots are claimed
 * without a lock. */
static void map_one(struct scan_slot *s)
{
	memset(&s->f, 0, sizeof(s->f));
	s->f.path = s->path;
	dc_init(&s->f.inv);
	if ((s->rc = file_map(s->path, &s->m, s->err)) != CD_OK)
		return;
	s->f.data = s->m.data;
	s->f.size = s->m.size;
}

/* Reads a mapped slot to its fatbin headers: any thread. */
static void scan_one(struct scan_slot *s)
{
	if (s->rc != CD_OK)
		return;
	s->rc = dc_scan(&s->f.inv, s->f.data, s->f.size, DC_SCAN_IF_CUDA, s->err);
	if (s->rc == CD_OK && !file_map_intact(&s->m))
		s->rc = cd_fail(s->err, CD_EIO, "%s: cut short while it was read", s->path);
}

/* Keeps the slot when it carries device code, else unmaps it and names the file in its error. */
static void settle_one(struct scan_slot *s)
{
	if (s->rc == CD_OK && s->f.inv.format != DC_NO_DEVICE_CODE) {
		s->keep = true;
		return;
	}
	if (s->rc != CD_OK && s->rc != CD_ENOMEM) {
		char why[CD_ERRMSG];

		snprintf(why, sizeof(why), "%s", s->err);
		snprintf(s->err, sizeof(s->err), "%.100s: %.150s", s->path, why);
	}
	dc_free(&s->f.inv);
	file_unmap(&s->m);
}

struct scan_pool {
	struct scan_slot *slots;
	size_t n;
	atomic_size_t next;
};

static void *scan_worker(void *arg)
{
	struct scan_pool *p = arg;

	for (size_t i; (i = atomic_fetch_add(&p->next, 1)) < p->n;)
		scan_one(&p->slots[i]);
	return NULL;
}

/* Scans every slot, files side by side on up to SCAN_THREADS threads: the frameworks' files
 * are independent and each is a walk over its own mapping, so doctor's first answer costs
 * the largest file's scan rather than the sum. A thread that cannot start leaves its share
 * to the others and to this one. */
#define SCAN_THREADS 8
static void scan_all(struct scan_slot *slots, size_t n)
{
	struct scan_pool p = { .slots = slots, .n = n };
	pthread_t th[SCAN_THREADS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t want = n < SCAN_THREADS ? n : SCAN_THREADS, started = 0;

	if (cpus > 0 && (size_t)cpus < want)
		want = (size_t)cpus;
	for (size_t i = 0; i < n; i++)
		map_one(&slots[i]);
	atomic_init(&p.next, 0);
	while (started + 1 < want && pthread_create(&th[started], NULL, scan_worker, &p) == 0)
		started++;
	scan_worker(&p);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	for (size_t i = 0; i < n; i++)
		settle_one(&slots[i]);
}

/* Moves the slots that carry device code into af (its files, in order, up to MAX_FILES) and
 * notes the first that could not be read; frees the rest. CD_OK or CD_ENOMEM. */
static int take_slots(struct app_files *af, struct scan_slot *slots, size_t n)
{
	int rc = CD_OK;

	for (size_t i = 0; i < n; i++) {
		struct scan_slot *s = &slots[i];

		if (s->rc == CD_ENOMEM)
			rc = CD_ENOMEM;
		else if (s->rc != CD_OK && !af->unreadable[0])
			snprintf(af->unreadable, sizeof(af->unreadable), "%s", s->err);
		if (!s->keep)
			continue;
		if (af->n == MAX_FILES) {
			dc_free(&s->f.inv);
			file_unmap(&s->m);
			continue;
		}
		af->f[af->n] = s->f;
		af->m[af->n] = s->m;
		af->f[af->n].data = af->m[af->n].data;
		af->n++;
	}
	return rc;
}

/* Maps and scans each path; keeps those that carry device code. CD_OK or CD_ENOMEM. */
static int add_files(struct app_files *af, char *const *paths, size_t n)
{
	struct scan_slot *slots;
	int rc;

	if (!n)
		return CD_OK;
	if (!(slots = calloc(n, sizeof(*slots))))
		return CD_ENOMEM;
	for (size_t i = 0; i < n; i++)
		slots[i].path = paths[i];
	scan_all(slots, n);
	rc = take_slots(af, slots, n);
	free(slots);
	return rc;
}

struct judged {
	const struct arch_target *t;
	const struct gpu_spec *specs;
	struct report_rec *tab;
	struct fw_verdict *v;
	size_t rows, failing;
};

static void verdict_text(const struct fw_verdict *v, const char *carries, char *buf, size_t n)
{
	switch (v->run) {
	case FW_RUN_NATIVE:
		snprintf(buf, n, "runs natively%s%s%s", v->image.image[0] ? " (" : "", v->image.image,
			 v->image.image[0] ? ")" : "");
		break;
	case FW_RUN_JIT:
		snprintf(buf, n, "runs through PTX JIT (%s): the first load compiles", v->image.image[0] ? v->image.image : "PTX");
		break;
	case FW_RUN_NO_IMAGE:
		snprintf(buf, n, "no kernel image for %s (carries %s)", v->missing, carries ? carries : "?");
		break;
	case FW_RUN_DRIVER_TOO_OLD:
		snprintf(buf, n, "driver too old: its CUDA %d.x runtime needs %s or newer", v->need.cuda.major,
			 v->need.min_driver_text[0] ? v->need.min_driver_text : "a newer driver");
		break;
	case FW_RUN_GPU_UNSUPPORTED:
		if (v->gpu_last_branch)
			snprintf(buf, n, "this driver's branch no longer supports the GPU (R%d is its last)", v->gpu_last_branch);
		else
			snprintf(buf, n, "this driver's branch predates the GPU");
		break;
	default:
		snprintf(buf, n, "%s", fw_run_text(v->run));
	}
}

/* Judges one app and writes its rows and findings. */
static int judge_app(struct report *r, struct judged *j, const struct fw_app *a, const char *unreadable, char *err)
{
	int rc;

	if ((rc = fw_judge(a, j->t, j->specs, j->v, err)) != CD_OK)
		return rc;
	for (size_t g = 0; g < j->t->n_gpus; g++) {
		const struct fw_verdict *v = &j->v[g];
		struct report_rec row;
		char what[160], verdict[400], *carries = NULL;

		if (v->run == FW_RUN_UNKNOWN && !unreadable)
			continue; /* no device code and nothing else to say */
		if (v->file >= 0 && v->run == FW_RUN_NO_IMAGE && !(carries = arch_carries(&a->files[v->file].inv)))
			return CD_ENOMEM;
		snprintf(what, sizeof(what), "%s%s%s", a->name, a->version[0] ? " " : "", a->version);
		if (v->run == FW_RUN_UNKNOWN)
			snprintf(verdict, sizeof(verdict), "not judged: %s", unreadable);
		else
			verdict_text(v, carries, verdict, sizeof(verdict));
		free(carries);
		report_rec_item(j->tab, &row);
		report_field(&row, "framework", "framework", rv_str(what));
		report_field(&row, "GPU", "gpu", rv_str(j->t->gpus[g].name));
		report_field(&row, NULL, "result", rv_str(fw_run_name(v->run)));
		report_field(&row, "will it run", "verdict", rv_str(verdict));
		report_field(&row, NULL, "missing", rv_str(v->missing[0] ? v->missing : NULL));
		report_field(&row, NULL, "file", rv_str(v->file >= 0 ? a->files[v->file].path : NULL));
		report_field(&row, "fix", "fix", rv_str(v->fix[0] ? v->fix : v->fix_why[0] ? v->fix_why : NULL));
		if ((rc = report_rec_end(&row)) != CD_OK)
			return rc;
		j->rows++;
		if (fw_run_fails(v->run)) {
			j->failing++;
			if ((rc = fw_finding(r, a, &j->t->gpus[g], v)) != CD_OK)
				return rc;
		}
	}
	return CD_OK;
}

/* The GPU specs of t's GPUs (by CUDA ordinal) as plan knows them. */
static void specs_of(const struct arch_target *t, const struct gpu_probe *gp, struct gpu_spec *specs)
{
	for (size_t i = 0; i < t->n_gpus; i++) {
		const char *name = NULL;

		for (size_t k = 0; k < gp->n_gpus; k++)
			if (gp->gpus[k].cuda_ordinal == t->gpus[i].ordinal)
				name = gpu_name(&gp->gpus[k]);
		plan_spec_of(t->gpus[i].cc, name, &specs[i]);
	}
}

static int ollama_and_apps(struct report *r, struct judged *j, const struct doctor_apps *apps, char *err)
{
	struct app_files *af = NULL;
	struct arch_inputs in = { 0 };
	char ierr[CD_ERRMSG];
	int rc = CD_OK;

	if (!(af = calloc(1, sizeof(*af))))
		return CD_ENOMEM;
	/* Ollama's runners, where its installer put them: it picks the build that runs */
	if (arch_inputs_ollama(&in, ierr) == CD_OK && in.n) {
		struct fw_app a = { .name = "ollama", .version = "", .cuda = "", .plan = PLAN_FW_OLLAMA, .alternatives = true };

		rc = add_files(af, in.paths, in.n);
		a.files = af->f;
		a.n_files = af->n;
		if (rc == CD_OK && af->n)
			rc = judge_app(r, j, &a, af->unreadable[0] ? af->unreadable : NULL, err);
		files_free(af);
	}
	arch_inputs_free(&in);
	for (size_t k = 0; k < apps->n_binaries + apps->n_paths && rc == CD_OK; k++) {
		const char *what = k < apps->n_binaries ? apps->binaries[k] : apps->paths[k - apps->n_binaries];
		struct fw_app a = { .name = what, .version = "", .cuda = "", .plan = PLAN_FW_NONE };

		memset(&in, 0, sizeof(in));
		af->unreadable[0] = '\0';
		if (k < apps->n_binaries)
			rc = arch_inputs_add(&in, what, true);
		else if (arch_inputs_expand_dir(&in, what, true, ierr) != CD_OK)
			snprintf(af->unreadable, sizeof(af->unreadable), "%s", ierr);
		rc = add_files(af, in.paths, in.n);
		a.files = af->f;
		a.n_files = af->n;
		if (rc == CD_OK && af->n == 0 && !af->unreadable[0])
			snprintf(af->unreadable, sizeof(af->unreadable), "%s: no device code found", what);
		if (rc == CD_OK)
			rc = judge_app(r, j, &a, af->unreadable[0] ? af->unreadable : NULL, err);
		files_free(af);
		arch_inputs_free(&in);
	}
	free(af);
	return rc;
}

/* Whether doctor judges this framework's device code (a CPU-only or ROCm build has none). */
static bool fw_judged(const struct py_framework *fw)
{
	return !fw->cpu_only && !fw->rocm;
}

int doctor_frameworks(struct report *r, const struct stack_facts *df, const struct doctor_apps *apps, char *err)
{
	const struct python_info *py = &df->py;
	struct arch_target *t = NULL;
	struct gpu_spec *specs = NULL;
	struct app_files *af = NULL;
	struct report_rec top, tab;
	struct judged j = { 0 };
	struct scan_slot *slots = NULL;
	size_t n_slots = 0;
	static const char *const hdr[] = { "framework", "GPU", "will it run", "fix" };
	int rc = CD_OK;

	if (kb_load(NULL) != CD_OK)
		return CD_OK; /* the kb's error is said in the toolkit section */
	for (size_t i = 0; i < py->n_fw; i++)
		n_slots += fw_judged(&py->fw[i]) ? py->fw[i].n_code : 0;
	if (!(t = calloc(1, sizeof(*t))) || !(af = calloc(1, sizeof(*af))) ||
	    !(slots = calloc(n_slots ? n_slots : 1, sizeof(*slots))) ||
	    !(specs = calloc(ARCH_MAX_GPUS, sizeof(*specs))) || !(j.v = calloc(ARCH_MAX_GPUS, sizeof(*j.v)))) {
		rc = CD_ENOMEM;
		goto out;
	}
	arch_target_init(t);
	arch_target_add_probe(t, df->gp);
	specs_of(t, df->gp, specs);
	j.t = t;
	j.specs = specs;
	report_rec_top(&top, r);
	report_rec_section(&top, "Will it run");
	report_rec_table(&top, "will_it_run", 4, hdr, &tab);
	j.tab = &tab;
	/* every framework's files scanned at once, side by side; judged one framework at a time */
	if (n_slots && t->n_gpus) {
		n_slots = 0;
		for (size_t i = 0; i < py->n_fw; i++)
			for (size_t k = 0; fw_judged(&py->fw[i]) && k < py->fw[i].n_code; k++)
				slots[n_slots++].path = py->fw[i].code[k];
		scan_all(slots, n_slots);
	}
	for (size_t i = 0, at = 0; i < py->n_fw && t->n_gpus; i++) {
		const struct py_framework *fw = &py->fw[i];
		struct fw_app a = { .name = fw->name, .version = fw->version, .cuda = fw->cuda, .plan = fw_plan_of(fw->name) };
		int taken;

		if (!fw_judged(fw))
			continue;
		af->unreadable[0] = '\0';
		/* every slot is taken (and freed) even after a failure */
		taken = take_slots(af, slots + at, fw->n_code);
		at += fw->n_code;
		if (rc == CD_OK)
			rc = taken;
		a.files = af->f;
		a.n_files = af->n;
		if (rc == CD_OK && (af->n || (fw->cuda[0] && strchr(fw->cuda, '.'))))
			rc = judge_app(r, &j, &a, af->unreadable[0] ? af->unreadable : NULL, err);
		files_free(af);
	}
	if (rc == CD_OK && t->n_gpus)
		rc = ollama_and_apps(r, &j, apps, err);
	if (rc == CD_OK) {
		rc = report_rec_end(&tab);
		/* top's end below hands tab's error up too */
		if (!t->n_gpus)
			report_rec_line(&top, "no GPU to judge against");
		else if (!j.rows)
			report_rec_line(&top, "no framework or app with device code found (Python site-packages, Ollama; "
					       "name others with --binary FILE or --path DIR)");
		else if (!j.failing)
			report_rec_line(&top, "every framework found runs on every GPU here");
		int end = report_rec_end(&top);

		if (rc == CD_OK)
			rc = end;
	}
out:
	free(t);
	free(af);
	free(specs);
	free(j.v);
	free(slots);
	return rc;
}
