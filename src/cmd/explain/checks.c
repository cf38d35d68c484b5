/* explain's checks on this machine: the run context's parts each check reads, the binary
 * read once, and the judging of each check (rules/checks.h) for the matched error. */
#include "cmd/explain/checks.h"

#include <stdlib.h>
#include <string.h>

#include "binfmt/devcode.h"
#include "facts/amd.h"
#include "facts/toolkit.h"
#include "os/env.h"
#include "rules/rules.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"

/* A binary the checks and the values read: mapped at the first that names it, scanned at
 * the first check that judges its images. */
struct explain_read {
	char *path;
	bool map_failed, scanned, scan_failed;
	char why[CD_ERRMSG];      /* why it could not be mapped or scanned */
	struct mapped_file mf;
	struct arch_file f;
};

/* What binaries are judged against: the named GPUs and driver, the rest from this machine
 * as arch finds them (the run context's caps). */
static int ensure_target(struct explain_given *o, struct cd_run *run, bool amd, char *err)
{
	const struct gpu_probe *p;
	const struct amd_host *h;
	int rc;

	if (o->target_done || o->offline)
		return CD_OK;
	o->target_done = true;
	if (o->target.n_gpus && o->target.driver.known)
		return CD_OK;
	/* an AMD error is judged on the AMD GPUs here, as doctor sees them */
	if (amd && !o->target.n_gpus) {
		if ((rc = cd_run_amd(run, &h, err)) != CD_OK)
			return rc;
		for (size_t i = 0; i < h->n_gpus && o->target.n_gpus < ARCH_MAX_GPUS; i++)
			arch_amd_gpu_of(&h->gpus[i], i, &o->target.gpus[o->target.n_gpus++]);
		if (o->target.n_gpus)
			return CD_OK;
	}
	if ((rc = cd_run_caps(run, o->target.n_gpus == 0, &p, err)) != CD_OK)
		return rc;
	arch_target_add_probe(&o->target, p);
	return CD_OK;
}

void explain_given_init(struct explain_given *o)
{
	memset(o, 0, sizeof(*o));
	arch_target_init(&o->target);
}

void explain_given_free(struct explain_given *o)
{
	for (size_t i = 0; i < o->n_bins; i++) {
		if (o->bins[i].scanned)
			dc_free(&o->bins[i].f.inv);
		if (!o->bins[i].map_failed)
			file_unmap(&o->bins[i].mf);
		free(o->bins[i].path);
	}
	free(o->bins);
	o->bins = NULL;
	o->n_bins = 0;
	cd_run_inputs_free(&o->python_files);
}

/* What the checks judge of the text, read from the match. */
static void text_of(const struct explain_match *m, struct check_text *t)
{
	memset(t, 0, sizeof(*t));
	t->finding = m->finding;
	t->has_arch = m->has_arch;
	t->arch = m->arch;
	t->supported = m->supported;
	t->supported_ptx = m->supported_ptx;
	t->n_supported = m->n_supported;
	t->block_threads = m->block_threads;
	t->has_oom = m->has_oom;
	t->oom = &m->oom.n;
	t->oom_gpu = m->oom.gpu;
}

/* The binary the checks read: --binary, else a path the text names. */
static const char *binary_of(const struct explain_match *m, const struct explain_given *o)
{
	return o->binary ? o->binary : m->path[0] ? m->path : NULL;
}

/* path as it was mapped the first time anything asked, or mapped now. CD_OK or CD_ENOMEM. */
static int binary_entry(struct explain_given *o, const char *path, struct explain_read **out, char *err)
{
	struct explain_read *b, *grown;

	for (size_t i = 0; i < o->n_bins; i++)
		if (strcmp(o->bins[i].path, path) == 0) {
			*out = &o->bins[i];
			return CD_OK;
		}
	if (!(grown = realloc(o->bins, (o->n_bins + 1) * sizeof(*grown))))
		return cd_fail(err, CD_ENOMEM, "out of memory");
	o->bins = grown;
	b = &o->bins[o->n_bins];
	memset(b, 0, sizeof(*b));
	if (!(b->path = cd_strdup(path)))
		return cd_fail(err, CD_ENOMEM, "out of memory");
	o->n_bins++;
	b->f.path = b->path;
	dc_init(&b->f.inv);
	if (file_map(path, &b->mf, b->why) != CD_OK) {
		b->map_failed = true;
	} else {
		b->f.data = b->mf.data;
		b->f.size = b->mf.size;
	}
	*out = b;
	return CD_OK;
}

const struct arch_file *explain_given_mapped(struct explain_given *o, const char *path)
{
	struct explain_read *b;
	char err[CD_ERRMSG];

	return binary_entry(o, path, &b, err) == CD_OK && !b->map_failed ? &b->f : NULL;
}

/* path mapped (once) and scanned (once) as arch reads a file named on its command line; a
 * file that cannot be read is a check of its own (skipped when it cannot be mapped,
 * problem_scan when its contents cannot be scanned) and *f NULL. CD_OK or CD_ENOMEM. */
static int read_binary(struct explain_given *o, const char *path, const char *check, enum check_result problem_scan,
		       struct arch_file **f, struct explain_checks *out, char *err)
{
	struct explain_read *b;
	int rc;

	*f = NULL;
	if ((rc = binary_entry(o, path, &b, err)) != CD_OK)
		return rc;
	if (!b->map_failed && !b->scanned && !b->scan_failed) {
		if (dc_scan(&b->f.inv, b->mf.data, b->mf.size, DC_SCAN_ALL_SECTIONS, b->why) == CD_OK) {
			b->scanned = true;
		} else {
			dc_free(&b->f.inv);
			b->scan_failed = true;
		}
	}
	if (b->map_failed)
		check_add(out, check, CHECK_SKIPPED, "%s", b->why);
	else if (b->scan_failed)
		check_add(out, check, problem_scan, "%s: %s", path, b->why);
	else
		*f = &b->f;
	return CD_OK;
}

/* --python without --binary: the frameworks' file the check reads is the first whose device
 * code misses a GPU of the target, else the first with device code; an AMD error reads only
 * files with HIP code objects. NULL when none has any. CD_OK or CD_ENOMEM. */
static int python_pick(struct explain_given *o, bool amd, const char **pick, char *err)
{
	struct arch_verdict *v = calloc(o->target.n_gpus ? o->target.n_gpus : 1, sizeof *v);
	const char *first = NULL;
	int rc = CD_OK;

	*pick = NULL;
	if (!v)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	for (size_t i = 0; i < o->python_files.n && !*pick && rc == CD_OK; i++) {
		struct explain_read *b;
		const char *path = o->python_files.paths[i];

		if ((rc = binary_entry(o, path, &b, err)) != CD_OK)
			break;
		if (!b->map_failed && !b->scanned && !b->scan_failed) {
			if (dc_scan(&b->f.inv, b->mf.data, b->mf.size, DC_SCAN_ALL_SECTIONS, b->why) == CD_OK) {
				b->scanned = true;
			} else {
				dc_free(&b->f.inv);
				b->scan_failed = true;
			}
		}
		if (!b->scanned || (amd ? !b->f.inv.n_hip_entries : !b->f.inv.n_images && !b->f.inv.n_hip_entries))
			continue;
		if (!first)
			first = path;
		if (!o->target.n_gpus || (rc = arch_judge(&b->f, &o->target, v, err)) != CD_OK)
			continue;
		for (size_t g = 0; g < o->target.n_gpus && !*pick; g++)
			if (v[g].verdict == VERDICT_NO_IMAGE && !v[g].other_vendor)
				*pick = path;
	}
	if (!*pick)
		*pick = first;
	free(v);
	return rc;
}

static int binary(const struct explain_match *m, struct explain_given *o, struct explain_checks *out, char *err)
{
	const char *path = binary_of(m, o);
	struct arch_file *f;
	int rc;

	if (!path && o->python) {
		if ((rc = python_pick(o, strncmp(m->finding, "rocm-", 5) == 0, &path, err)) != CD_OK)
			return rc;
		if (!path) {
			check_add(out, "binary", CHECK_SKIPPED, "--python: no framework file with device code%s found "
				  "in that environment", strncmp(m->finding, "rocm-", 5) == 0 ? " for AMD GPUs" : "");
			return CD_OK;
		}
	}
	if (!path) {
		check_add(out, "binary", CHECK_SKIPPED, "give --binary PATH (the program or library that "
			  "failed) to check which images it carries");
		return CD_OK;
	}
	if ((rc = read_binary(o, path, "binary", CHECK_PROBLEM, &f, out, err)) != CD_OK || !f)
		return rc;
	return check_binary(path, f, &o->target, out, err);
}

/* The block judged: --block, else the text's "Block [512x1x1]", else 1024. */
static int launch(const struct explain_match *m, struct explain_given *o, struct explain_checks *out, char *err)
{
	const char *path = binary_of(m, o);
	struct explain_launch *l = &out->launch;
	struct arch_file *f;
	int rc;

	l->block = o->block ? o->block : m->block_threads > 0 ? (unsigned)m->block_threads : 1024;
	l->block_from = o->block ? "--block" : m->block_threads > 0 ? "the text" : "the default";
	if (!path) {
		check_add(out, "launch", CHECK_SKIPPED, "give --binary PATH (and --block N) to name the kernels "
			  "that cannot launch with %u threads per block", l->block);
		return CD_OK;
	}
	if (!o->target.n_gpus) {
		check_add(out, "launch", CHECK_SKIPPED, "no GPU to judge %s against (name one with --gpu)", path);
		return CD_OK;
	}
	if ((rc = read_binary(o, path, "launch", CHECK_SKIPPED, &f, out, err)) != CD_OK || !f)
		return rc;
	return check_launch(path, f, &o->target, out, err);
}

int explain_checks_run(const struct explain_match *m, const char *checks, struct explain_given *o, struct cd_run *run,
		       struct explain_checks *out, char *err)
{
	const struct gpu_probe *gp = NULL;
	const struct toolkits *tk = NULL;
	const struct platform_info *pf = NULL;
	const char *p = checks;
	struct check_text t;
	int rc;

	text_of(m, &t);
	memset(out, 0, sizeof(*out));
	while (*p) {
		char name[24];
		size_t n = strcspn(p, " ");

		snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) - 1 ? n : sizeof(name) - 1), p);
		p += n + (p[n] == ' ');
		if (o->offline) {
			/* nothing of this machine: only a binary against the GPUs the user named */
			if (!strcmp(name, "binary") && o->target.n_gpus && (rc = binary(m, o, out, err)) != CD_OK)
				return rc;
			if (!strcmp(name, "launch") && o->target.n_gpus && (rc = launch(m, o, out, err)) != CD_OK)
				return rc;
			continue;
		}
		/* the parts each check reads, from the run context: collected at the first ask */
		if ((!strcmp(name, "driver") || !strcmp(name, "gpus") || !strcmp(name, "memory") || !strcmp(name, "ptx")) &&
		    (rc = cd_run_driver(run, &gp, err)) != CD_OK)
			return rc;
		if ((!strcmp(name, "nvcc") || !strcmp(name, "ptx")) && (rc = cd_run_toolkits(run, &tk, err)) != CD_OK)
			return rc;
		if ((!strcmp(name, "nodes") || !strcmp(name, "wsl") || !strcmp(name, "net")) &&
		    (rc = cd_run_platform(run, &pf, err)) != CD_OK)
			return rc;
		if ((!strcmp(name, "binary") || !strcmp(name, "launch")) &&
		    (rc = ensure_target(o, run, strncmp(m->finding, "rocm-", 5) == 0, err)) != CD_OK)
			return rc;
		if (!strcmp(name, "driver"))
			check_driver(gp, out);
		else if (!strcmp(name, "gpus"))
			check_gpus(&t, gp, os_getenv("CUDA_VISIBLE_DEVICES"), out);
		else if (!strcmp(name, "binary")) {
			if ((rc = binary(m, o, out, err)) != CD_OK)
				return rc;
		} else if (!strcmp(name, "launch")) {
			if ((rc = launch(m, o, out, err)) != CD_OK)
				return rc;
		} else if (!strcmp(name, "nvcc"))
			check_nvcc(&t, rules_build_nvcc(tk), out);
		else if (!strcmp(name, "ptx")) {
			struct arch_driver d;

			check_ptx(rules_build_nvcc(tk), check_ptx_driver(&o->target, gp, &d) ? &d : NULL, out);
		} else if (!strcmp(name, "env"))
			check_env(&t, os_getenv("CUDA_DISABLE_PTX_JIT") ? os_getenv("CUDA_DISABLE_PTX_JIT")
								: os_getenv("CUDA_DISABLE_JIT"),
				  os_getenv("PYTORCH_CUDA_ALLOC_CONF"), out);
		else if (!strcmp(name, "nodes"))
			check_nodes(pf, out);
		else if (!strcmp(name, "wsl"))
			check_wsl(pf, out);
		else if (!strcmp(name, "net"))
			check_nccl_ifname(os_getenv("NCCL_SOCKET_IFNAME"), pf->net_ifaces, pf->net_known, out);
		else if (!strcmp(name, "ldpath"))
			check_ldpath(os_getenv("LD_LIBRARY_PATH"), out);
		else if (!strcmp(name, "memory"))
			check_memory(&t, gp, out);
		else if (!strcmp(name, "kfd")) {
			const struct amd_host *h;

			if ((rc = cd_run_amd(run, &h, err)) != CD_OK)
				return rc;
			check_kfd(&t, h, out);
		}
	}
	return CD_OK;
}
