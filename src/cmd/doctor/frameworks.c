/* doctor's "Will it run": the frameworks probe/python.c found (with the files that carry their
 * device code, by probe/fw_files.h, the finder arch --python uses), Ollama's runners and the
 * --binary/--path apps, found as arch finds them (probe/arch_inputs.c), mapped and read to their
 * fatbin headers only, judged by rules/framework. */
#include "cmd/doctor/frameworks.h"
#include "cmd/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfmt/devcode.h"
#include "facts/inputs.h"
#include "rules/arch.h"
#include "kb/kb.h"
#include "rules/driver_need.h"
#include "rules/framework.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"

#define MAX_FILES 64

/* One app's files, mapped and scanned while it is judged. */
struct app_files {
	struct arch_file f[MAX_FILES];
	struct mapped_file m[MAX_FILES];
	struct runtime_need need[MAX_FILES];
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

/* Maps and scans path; keeps it when it carries device code. CD_OK or CD_ENOMEM. */
static int add_file(struct app_files *af, const char *path)
{
	struct arch_file *f;
	char err[CD_ERRMSG] = "";
	int rc;

	if (af->n == MAX_FILES)
		return CD_OK;
	f = &af->f[af->n];
	memset(f, 0, sizeof(*f));
	f->path = path;
	dc_init(&f->inv);
	if ((rc = file_map(path, &af->m[af->n], err)) != CD_OK) {
		if (!af->unreadable[0])
			snprintf(af->unreadable, sizeof(af->unreadable), "%s", err);
		return rc == CD_ENOMEM ? rc : CD_OK;
	}
	f->data = af->m[af->n].data;
	f->size = af->m[af->n].size;
	rc = dc_scan(&f->inv, f->data, f->size, DC_SCAN_IF_CUDA, err);
	if (rc == CD_OK && !file_map_intact(&af->m[af->n]))
		rc = cd_fail(err, CD_EIO, "%s: cut short while it was read", path);
	if (rc != CD_OK || f->inv.format == DC_NO_DEVICE_CODE) {
		if (rc != CD_OK && rc != CD_ENOMEM && !af->unreadable[0])
			snprintf(af->unreadable, sizeof(af->unreadable), "%s: %s", path, err);
		dc_free(&f->inv);
		file_unmap(&af->m[af->n]);
		return rc == CD_ENOMEM ? rc : CD_OK;
	}
	/* the runtime it needs is read with its device code (a static runtime's release can take a
	 * read of the whole .nv_fatbin); then the pages read go, here on the host task, not at the
	 * end of the run, and the judge reads a few header pages again */
	runtime_need_of(f->data, f->size, &af->need[af->n]);
	f->need = &af->need[af->n];
	file_map_drop_pages(&af->m[af->n]);
	af->n++;
	return CD_OK;
}

struct judged {
	const struct arch_target *t;
	const struct gpu_spec *specs;
	struct report_rec *tab;
	struct fw_verdict *v;
	const size_t *driver_finding; /* per GPU: gpu-newer-than-driver's index in the report */
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
		j->failing += fw_run_fails(v->run);
	}
	return fw_findings(r, a, j->t, j->v, j->driver_finding);
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

/* One app found, its files mapped and read to their fatbin headers before any GPU is known. */
struct scanned_app {
	struct fw_app a;
	struct app_files af;
	struct arch_inputs in; /* owns the paths of Ollama's and the named apps' files */
	bool judge;            /* judged (a row or a line) even without device code */
	bool rocm;             /* a ROCm build: its rules here are python.c's, its judge doctor/amd.c's */
	char label[96];        /* a Windows-side framework's name and environment: "torch (python_embeded)" */
	char pip[FACTS_PATH + 16]; /* and the command that runs its pip */
};

static struct scanned_app *new_app(struct doctor_scan *s)
{
	struct scanned_app **grown, *sa;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;

		if (!(grown = realloc(s->apps, cap * sizeof(*grown))))
			return NULL;
		s->apps = grown;
		s->cap = cap;
	}
	if (!(sa = calloc(1, sizeof(*sa))))
		return NULL;
	s->apps[s->n++] = sa;
	return sa;
}

static int add_files(struct scanned_app *sa)
{
	int rc = CD_OK;

	for (size_t i = 0; i < sa->in.n && rc == CD_OK; i++)
		rc = add_file(&sa->af, sa->in.paths[i]);
	return rc;
}

int doctor_scan(struct doctor_scan *s, const struct python_info *py, const struct doctor_apps *apps, char *err)
{
	struct scanned_app *sa;
	char ierr[CD_ERRMSG];
	int rc = CD_OK;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < py->n_fw && rc == CD_OK; i++) {
		const struct py_framework *fw = &py->fw[i];

		if (fw->cpu_only)
			continue;
		if (!(sa = new_app(s)))
			goto oom;
		sa->rocm = fw->rocm; /* judged on AMD GPUs only (doctor/amd.c) */
		sa->a = (struct fw_app){ .name = fw->name, .version = fw->version, .cuda = fw->cuda,
					 .plan = fw_plan_of(fw->name), .alternatives = fw->code_alternatives };
		if (fw->win_env) {
			/* a Windows environment is not on PATH: its fix runs its own python.exe */
			snprintf(sa->label, sizeof(sa->label), "%s (%s)", fw->name, fw->win_env);
			sa->a.name = sa->label;
			/* a python.exe whose name cmd.exe cannot quote gets no pip line of its own */
			if (str_quote_cmd(fw->win_python, SHQ_NONE, sa->pip, sizeof(sa->pip) - 8) == CD_OK) {
				strcat(sa->pip, " -m pip");
				sa->a.pip = sa->pip;
			}
		}
		for (size_t k = 0; k < fw->n_code && rc == CD_OK; k++)
			rc = add_file(&sa->af, fw->code[k]);
		sa->judge = sa->af.n || (fw->cuda[0] && strchr(fw->cuda, '.'));
	}
	/* Ollama's runners, where its installer put them: it picks the build that runs */
	if (rc == CD_OK) {
		if (!(sa = new_app(s)))
			goto oom;
		sa->a = (struct fw_app){ .name = "ollama", .version = "", .cuda = "", .plan = PLAN_FW_OLLAMA, .alternatives = true };
		if (cd_run_input_ollama(&sa->in, NULL, ierr) == CD_OK)
			rc = add_files(sa);
		sa->judge = sa->af.n > 0;
	}
	for (size_t k = 0; k < apps->n_binaries + apps->n_paths && rc == CD_OK; k++) {
		const char *what = k < apps->n_binaries ? apps->binaries[k] : apps->paths[k - apps->n_binaries];

		if (!(sa = new_app(s)))
			goto oom;
		sa->a = (struct fw_app){ .name = what, .version = "", .cuda = "", .plan = PLAN_FW_NONE };
		sa->judge = true;
		if (k < apps->n_binaries)
			rc = cd_run_input_add(&sa->in, what, true);
		else if (cd_run_input_dir(&sa->in, what, true, ierr) != CD_OK)
			snprintf(sa->af.unreadable, sizeof(sa->af.unreadable), "%s", ierr);
		if (rc == CD_OK)
			rc = add_files(sa);
		if (rc == CD_OK && sa->af.n == 0 && !sa->af.unreadable[0])
			snprintf(sa->af.unreadable, sizeof(sa->af.unreadable), "%s: no device code found", what);
	}
	for (size_t i = 0; i < s->n; i++) {
		s->apps[i]->a.files = s->apps[i]->af.f;
		s->apps[i]->a.n_files = s->apps[i]->af.n;
	}
	if (rc == CD_OK)
		return CD_OK;
	doctor_scan_free(s);
	return cd_fail(err, rc, "doctor: %s", cd_strerror(rc));
oom:
	doctor_scan_free(s);
	return cd_fail(err, CD_ENOMEM, "doctor: out of memory");
}

void doctor_scan_free(struct doctor_scan *s)
{
	for (size_t i = 0; i < s->n; i++) {
		files_free(&s->apps[i]->af);
		cd_run_inputs_free(&s->apps[i]->in);
		free(s->apps[i]);
	}
	free(s->apps);
	memset(s, 0, sizeof(*s));
}

const struct fw_app *doctor_scan_app(const struct doctor_scan *s, size_t i)
{
	return i < s->n ? &s->apps[i]->a : NULL;
}

int doctor_frameworks(struct report *r, const struct facts *f, const struct doctor_scan *s, bool amd_only, char *err)
{
	struct arch_target *t = NULL;
	struct gpu_spec *specs = NULL;
	struct report_rec top, tab;
	struct judged j = { 0 };
	size_t *driver_finding = NULL;
	static const char *const hdr[] = { "framework", "GPU", "will it run", "fix" };
	int rc = CD_OK;

	if (kb_load(NULL) != CD_OK)
		return CD_OK; /* the kb's error is said in the toolkit section */
	if (!(t = calloc(1, sizeof(*t))) || !(specs = calloc(ARCH_MAX_GPUS, sizeof(*specs))) ||
	    !(j.v = calloc(ARCH_MAX_GPUS, sizeof(*j.v))) || !(driver_finding = calloc(ARCH_MAX_GPUS, sizeof(*driver_finding)))) {
		rc = CD_ENOMEM;
		goto out;
	}
	arch_target_init(t);
	arch_target_add_probe(t, f->driver);
	specs_of(t, f->driver, specs);
	/* a branch that predates a GPU is the driver's one finding, whatever runs on it */
	if ((rc = fw_driver_findings(r, t, driver_finding)) != CD_OK)
		goto out;
	j.t = t;
	j.specs = specs;
	j.driver_finding = driver_finding;
	report_rec_top(&top, r);
	report_rec_section(&top, "Will it run");
	report_rec_table(&top, "will_it_run", 4, hdr, &tab);
	j.tab = &tab;
	for (size_t i = 0; i < s->n && rc == CD_OK && t->n_gpus; i++) {
		const struct scanned_app *sa = s->apps[i];

		if (sa->judge && !sa->rocm)
			rc = judge_app(r, &j, &sa->a, sa->af.unreadable[0] ? sa->af.unreadable : NULL, err);
	}
	if (rc == CD_OK) {
		rc = report_rec_end(&tab);
		/* top's end below hands tab's error up too */
		if (!t->n_gpus)
			report_rec_line(&top, "%s", amd_only ? "no NVIDIA GPU: an AMD machine, judged under \"Will it run on "
								     "the AMD GPUs\""
							   : "no GPU to judge against");
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
	free(specs);
	free(j.v);
	free(driver_finding);
	return rc;
}
