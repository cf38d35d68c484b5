/* explain's checks on this machine: the probes, the binary read, and the judging of each
 * check (rules/checks.h) for the matched error. */
#include "cmd/explain/checks.h"

#include <stdlib.h>
#include <string.h>

#include "binfmt/devcode.h"
#include "os/env.h"
#include "probe/gpu_caps.h"
#include "probe/gpus.h"
#include "probe/platform.h"
#include "probe/toolkits.h"
#include "rules/rules.h"
#include "util/err.h"
#include "util/file.h"

static int ensure_gpus(struct explain_env *env, char *err)
{
	if (env->gpus_probed)
		return CD_OK;
	env->gpus_probed = true;
	return gpu_probe_run(&env->gpus, err);
}

static int ensure_toolkits(struct explain_env *env, char *err)
{
	struct toolkits_opts o = { 0 };
	char terr[CD_ERRMSG];
	int rc;

	if (env->toolkits_probed)
		return CD_OK;
	env->toolkits_probed = true;
	o.no_spawn = false;
	rc = toolkits_probe(&env->toolkits, &o, terr);
	if (rc == CD_ENOMEM)
		return cd_fail(err, rc, "out of memory");
	return CD_OK;
}

/* The platform as doctor sees it (probe/platform.c). */
static int ensure_platform(struct explain_env *env, char *err)
{
	char perr[CD_ERRMSG];

	if (env->platform_probed)
		return CD_OK;
	env->platform_probed = true;
	if (platform_probe(&env->platform, NULL, perr) != CD_OK)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	return CD_OK;
}

/* What binaries are judged against: the named GPUs and driver, the rest from this machine
 * the way arch finds them (probe/gpu_caps). */
static void ensure_target(struct explain_env *env)
{
	struct gpu_probe p;

	if (env->target_probed || env->offline)
		return;
	env->target_probed = true;
	if (env->target.n_gpus && env->target.driver.known)
		return;
	gpu_caps_probe(&p, env->target.n_gpus == 0);
	arch_target_add_probe(&env->target, &p);
	gpu_probe_free(&p);
}

void explain_env_init(struct explain_env *env)
{
	memset(env, 0, sizeof(*env));
	arch_target_init(&env->target);
}

void explain_env_free(struct explain_env *env)
{
	if (env->gpus_probed)
		gpu_probe_free(&env->gpus);
	if (env->toolkits_probed)
		toolkits_free(&env->toolkits);
	env->gpus_probed = env->toolkits_probed = false;
}

int explain_env_probe_driver(struct explain_env *env, char *err)
{
	int rc = ensure_gpus(env, err);

	return rc == CD_OK ? ensure_platform(env, err) : rc;
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
static const char *binary_of(const struct explain_match *m, const struct explain_env *env)
{
	return env->binary ? env->binary : m->path[0] ? m->path : NULL;
}

/* Maps and scans path as arch reads a file named on its command line; a file that cannot be
 * read is a check of its own (skipped when it cannot be mapped, problem_scan when its
 * contents cannot be scanned) and false. */
static bool read_binary(const char *path, const char *check, enum check_result problem_scan, struct mapped_file *mf,
			struct arch_file *f, struct explain_checks *out)
{
	char ferr[CD_ERRMSG];

	memset(f, 0, sizeof(*f));
	f->path = path;
	dc_init(&f->inv);
	if (file_map(path, mf, ferr) != CD_OK) {
		check_add(out, check, CHECK_SKIPPED, "%s", ferr);
		return false;
	}
	f->data = mf->data;
	f->size = mf->size;
	if (dc_scan(&f->inv, mf->data, mf->size, DC_SCAN_ALL_SECTIONS, ferr) != CD_OK) {
		check_add(out, check, problem_scan, "%s: %s", path, ferr);
		dc_free(&f->inv);
		file_unmap(mf);
		return false;
	}
	return true;
}

static int binary(const struct explain_match *m, const struct explain_env *env, struct explain_checks *out,
		  char *err)
{
	const char *path = binary_of(m, env);
	struct mapped_file mf;
	struct arch_file f;
	int rc;

	if (!path) {
		check_add(out, "binary", CHECK_SKIPPED, "give --binary PATH (the program or library that "
			  "failed) to check which images it carries");
		return CD_OK;
	}
	if (!read_binary(path, "binary", CHECK_PROBLEM, &mf, &f, out))
		return CD_OK;
	rc = check_binary(path, &f, &env->target, out, err);
	dc_free(&f.inv);
	file_unmap(&mf);
	return rc;
}

/* The block judged: --block, else the text's "Block [512x1x1]", else 1024. */
static int launch(const struct explain_match *m, const struct explain_env *env, struct explain_checks *out,
		  char *err)
{
	const char *path = binary_of(m, env);
	struct explain_launch *l = &out->launch;
	struct mapped_file mf;
	struct arch_file f;
	int rc;

	l->block = env->block ? env->block : m->block_threads > 0 ? (unsigned)m->block_threads : 1024;
	l->block_from = env->block ? "--block" : m->block_threads > 0 ? "the text" : "the default";
	if (!path) {
		check_add(out, "launch", CHECK_SKIPPED, "give --binary PATH (and --block N) to name the kernels "
			  "that cannot launch with %u threads per block", l->block);
		return CD_OK;
	}
	if (!env->target.n_gpus) {
		check_add(out, "launch", CHECK_SKIPPED, "no GPU to judge %s against (name one with --gpu)", path);
		return CD_OK;
	}
	if (!read_binary(path, "launch", CHECK_SKIPPED, &mf, &f, out))
		return CD_OK;
	rc = check_launch(path, &f, &env->target, out, err);
	dc_free(&f.inv);
	file_unmap(&mf);
	return rc;
}

int explain_checks_run(const struct explain_match *m, const char *checks, struct explain_env *env,
		       struct explain_checks *out, char *err)
{
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
		if (env->offline) {
			/* nothing of this machine: only a binary against the GPUs the user named */
			if (!strcmp(name, "binary") && env->target.n_gpus && (rc = binary(m, env, out, err)) != CD_OK)
				return rc;
			if (!strcmp(name, "launch") && env->target.n_gpus && (rc = launch(m, env, out, err)) != CD_OK)
				return rc;
			continue;
		}
		if (!strcmp(name, "driver") || !strcmp(name, "gpus") || !strcmp(name, "memory") ||
		    !strcmp(name, "ptx")) {
			if ((rc = ensure_gpus(env, err)) != CD_OK)
				return rc;
		}
		if (!strcmp(name, "nvcc") || !strcmp(name, "ptx")) {
			if ((rc = ensure_toolkits(env, err)) != CD_OK)
				return rc;
		}
		if ((!strcmp(name, "nodes") || !strcmp(name, "wsl")) && (rc = ensure_platform(env, err)) != CD_OK)
			return rc;
		if (!strcmp(name, "binary") || !strcmp(name, "launch"))
			ensure_target(env);
		if (!strcmp(name, "driver"))
			check_driver(&env->gpus, out);
		else if (!strcmp(name, "gpus"))
			check_gpus(&t, &env->gpus, os_getenv("CUDA_VISIBLE_DEVICES"), out);
		else if (!strcmp(name, "binary")) {
			if ((rc = binary(m, env, out, err)) != CD_OK)
				return rc;
		} else if (!strcmp(name, "launch")) {
			if ((rc = launch(m, env, out, err)) != CD_OK)
				return rc;
		} else if (!strcmp(name, "nvcc"))
			check_nvcc(&t, rules_build_nvcc(&env->toolkits), out);
		else if (!strcmp(name, "ptx")) {
			struct arch_driver d;

			check_ptx(rules_build_nvcc(&env->toolkits),
				  check_ptx_driver(&env->target, &env->gpus, &d) ? &d : NULL, out);
		} else if (!strcmp(name, "env"))
			check_env(&t, os_getenv("CUDA_DISABLE_PTX_JIT") ? os_getenv("CUDA_DISABLE_PTX_JIT")
								  : os_getenv("CUDA_DISABLE_JIT"),
				  os_getenv("PYTORCH_CUDA_ALLOC_CONF"), out);
		else if (!strcmp(name, "nodes"))
			check_nodes(&env->platform, out);
		else if (!strcmp(name, "wsl"))
			check_wsl(&env->platform, out);
		else if (!strcmp(name, "ldpath"))
			check_ldpath(os_getenv("LD_LIBRARY_PATH"), out);
		else if (!strcmp(name, "memory"))
			check_memory(&t, &env->gpus, out);
	}
	return CD_OK;
}
