/* explain's evidence: what the text itself implies (offline) and what this machine says
 * (live), each through the probes and rules the other commands use. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfmt/cubin_attrs.h"
#include "binfmt/devcode.h"
#include "explain/checks.h"
#include "rules/driver_need.h"
#include "kb/compat.h"
#include "kb/sm_limits.h"
#include "util/err.h"
#include "util/file.h"
#include "util/units.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

const char *check_result_name(enum check_result r)
{
	static const char *const names[] = { "ok", "problem", "info", "skipped" };

	return names[r];
}

static struct explain_check *add(struct explain_checks *out, const char *name, enum check_result r,
				 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static struct explain_check *add(struct explain_checks *out, const char *name, enum check_result r,
				 const char *fmt, ...)
{
	struct explain_check *c;
	va_list ap;

	if (out->n == EXPLAIN_MAX_CHECKS)
		return NULL;
	c = &out->c[out->n++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->result = r;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
	return c;
}

/* appends to a check's detail */
static void more(struct explain_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void more(struct explain_check *c, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!c)
		return;
	used = strlen(c->detail);
	if (used + 1 >= sizeof(c->detail))
		return;
	va_start(ap, fmt);
	vsnprintf(c->detail + used, sizeof(c->detail) - used, fmt, ap);
	va_end(ap);
}

/* ---- the machine, probed once ---- */

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

void explain_checks_free(struct explain_checks *c)
{
	free(c->launch.k);
	memset(&c->launch, 0, sizeof(c->launch));
	free(c->binary.v);
	free(c->binary.gpus);
	memset(&c->binary, 0, sizeof(c->binary));
}

void explain_env_free(struct explain_env *env)
{
	if (env->gpus_probed)
		gpu_probe_free(&env->gpus);
	if (env->toolkits_probed)
		toolkits_free(&env->toolkits);
	env->gpus_probed = env->toolkits_probed = false;
}

const struct toolkit *explain_build_nvcc(const struct toolkits *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		if (ts->t[i].selected)
			return &ts->t[i];
	for (size_t i = 0; i < ts->n; i++)
		if (ts->t[i].found_by & TK_CUDA_HOME)
			return &ts->t[i];
	return ts->n ? &ts->t[0] : NULL;
}

static bool driver_cuda(const struct gpu_probe *g, struct version *v)
{
	if (driver_has(g, DF_CUDA_VERSION) && g->cuda_driver_version > 0) {
		*v = version_from_cuda_int(g->cuda_driver_version);
		return true;
	}
	if (driver_has(g, DF_NVML_CUDA_VERSION) && g->nvml_cuda_driver_version > 0) {
		*v = version_from_cuda_int(g->nvml_cuda_driver_version);
		return true;
	}
	return false;
}

static size_t visible_gpus(const struct gpu_probe *g)
{
	size_t n = 0;

	for (size_t i = 0; i < g->n_gpus; i++)
		n += g->gpus[i].cuda_ordinal >= 0;
	return n;
}

/* What compat's SASS and PTX tests need of a GPU: its capability and the family table. */
static void compat_env_for(struct compat_env *e, unsigned cc)
{
	memset(e, 0, sizeof(*e));
	e->cc = cc;
	e->zstd_ok = -1;
	e->family = compat_family_table(&e->n_family);
}

/* The driver the ptx check speaks of: --driver when given, else the one here. */
static bool ptx_driver(const struct explain_env *env, struct arch_driver *d)
{
	struct version v;

	if (env->target.driver.known && strcmp(env->target.driver.source, "--driver") == 0) {
		*d = env->target.driver;
		return true;
	}
	memset(d, 0, sizeof(*d));
	if (!driver_cuda(&env->gpus, &v))
		return false;
	d->known = true;
	d->cuda = version_to_cuda_int(&v);
	snprintf(d->source, sizeof(d->source), "installed driver");
	arch_driver_complete(d);
	return d->ptx_isa_max != 0;
}

/* ---- one function per check ---- */

static void check_driver(const struct explain_env *env, struct explain_checks *out)
{
	const struct gpu_probe *g = &env->gpus;
	struct explain_check *c;
	struct version v;

	/* doctor's view of the driver layer: the module version, the user-space version, compat
	 * (the GPU probe fills them) */
	if (!g->cuda_loaded) {
		c = add(out, "driver", CHECK_PROBLEM, "libcuda.so.1 does not load here: %s", g->cuda_load_error);
		if (driver_has(g, DF_KMOD))
			more(c, "; the kernel module %s is loaded", g->kmod_version);
		return;
	}
	if (driver_has(g, DF_CUDA_INIT) && g->cuda_init_result != 0) {
		c = add(out, "driver", CHECK_PROBLEM, "libcuda loads (%s) but cuInit fails: %s", g->cuda_path,
			g->cuda_init_result_name);
	} else {
		c = add(out, "driver", CHECK_OK, "libcuda %s", g->cuda_path);
	}
	if (g->user_driver_version[0])
		more(c, "; driver %s", g->user_driver_version);
	if (driver_has(g, DF_KMOD) && g->kmod_version[0]) {
		more(c, "; kernel module %s", g->kmod_version);
		if (g->user_driver_version[0] && strcmp(g->user_driver_version, g->kmod_version) != 0 && c) {
			c->result = CHECK_PROBLEM;
			more(c, " (differs from the user-space driver: reboot or reload the module)");
		}
	}
	if (g->compat_lib && c) {
		/* the cuda-compat package's user-mode driver (error 804 on unsupported GPUs) */
		c->result = CHECK_PROBLEM;
		more(c, "; this libcuda is a cuda-compat forward-compatibility driver");
	}
	if (c && c->result == CHECK_OK && driver_cuda(g, &v)) {
		const struct kb_ptx_isa *isa = kb_ptx_isa_max_for_cuda(&v);

		more(c, "; supports CUDA %d.%d (runtimes of that version or older, and minor-version "
		     "compatible ones)", v.major, v.minor);
		if (isa)
			more(c, "; JITs PTX up to ISA %d.%d", isa->major, isa->minor);
	}
}

static void check_gpus(const struct explain_match *m, const struct explain_env *env,
		       struct explain_checks *out)
{
	const struct gpu_probe *g = &env->gpus;
	size_t vis = visible_gpus(g);
	struct explain_check *c;
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");

	if (!g->cuda_loaded || vis == 0) {
		add(out, "gpus", CHECK_PROBLEM, "no GPU is visible to CUDA here%s%s%s",
		    cvd ? " (CUDA_VISIBLE_DEVICES=" : "", cvd ? cvd : "", cvd ? ")" : "");
		return;
	}
	c = add(out, "gpus", CHECK_INFO, "%zu GPU%s visible (ordinals 0..%zu)", vis, vis == 1 ? "" : "s",
		vis - 1);
	if (cvd)
		more(c, " with CUDA_VISIBLE_DEVICES=%s", cvd);
	for (size_t i = 0; i < g->n_gpus; i++) {
		const struct gpu_info *gi = &g->gpus[i];
		unsigned cc;

		if (gi->cuda_ordinal < 0 || !gpu_has(gi, GF_CC))
			continue;
		cc = (unsigned)(gi->cc_major * 10 + gi->cc_minor);
		more(c, "; GPU %d %s is CC %lld.%lld", gi->cuda_ordinal, gi->name, gi->cc_major, gi->cc_minor);
		if (m->n_supported && c) {
			struct compat_env e;
			bool runs = false;

			compat_env_for(&e, cc);
			for (size_t k = 0; k < m->n_supported; k++) {
				struct compat_image im = { COMPAT_KIND_SASS, (unsigned)m->supported[k].num,
							   m->supported[k].suffix, 0, false, false };

				runs |= !m->supported_ptx[k] && compat_sass_runs(&e, &im);
			}
			more(c, runs ? " (the PyTorch build's arch list has SASS it runs)"
				     : " (no SASS in the PyTorch build's arch list runs on it)");
			if (!runs)
				c->result = CHECK_PROBLEM;
		}
		if (gpu_has(gi, GF_MAX_THREADS_PER_BLOCK) &&
		    strcmp(m->finding, "launch-out-of-resources") == 0) {
			more(c, " (at most %lld threads and %lld registers per block", gi->max_threads_per_block,
			     gi->regs_per_block);
			if (gpu_has(gi, GF_MAX_BLOCK_DIM))
				more(c, ", block dimensions up to %lldx%lldx%lld", gi->max_block_dim[0],
				     gi->max_block_dim[1], gi->max_block_dim[2]);
			more(c, ")");
			if (m->block_threads > 0 && m->block_threads > gi->max_threads_per_block && c)
				c->result = CHECK_PROBLEM;
		}
	}
}

/* Which images the binary carries and, for each GPU of the target, arch's verdict on it
 * (rules/arch). CD_OK or CD_ENOMEM. */
/* the binary's own CUDA runtime against the driver judged against (rules/driver_need) */
static void check_runtime_need(const struct arch_file *f, const struct arch_target *t, struct explain_checks *out)
{
	struct runtime_need need;
	struct report scratch;
	struct explain_check *c;
	bool fails = false;

	runtime_need_of(f->data, f->size, &need);
	if (!need.known)
		return;
	if (!t->driver.known) {
		add(out, "runtime", CHECK_INFO, "%s: needs driver %s or newer (driver unknown here; give --driver)",
		    need.how, need.min_driver_text[0] ? need.min_driver_text : "(unknown)");
		return;
	}
	if (report_init(&scratch, "explain") == CD_OK) {
		if (driver_need_judge(&scratch, f->path, &need, &t->driver, &fails) != CD_OK)
			fails = false;
		report_free(&scratch);
	}
	c = add(out, "runtime", fails ? CHECK_PROBLEM : CHECK_OK,
	    "%s needs driver %s or newer (CUDA %d.x); the driver judged against is %s%s%s (CUDA %d.%d)%s", need.how,
	    need.min_driver_text[0] ? need.min_driver_text : "(unknown)", need.cuda.major, t->driver.source,
	    t->driver.version[0] ? " " : "", t->driver.version, t->driver.cuda / 1000, (t->driver.cuda % 1000) / 10,
	    fails ? ": error 35 (cudaErrorInsufficientDriver) at the first CUDA call" : "");
	if (c && fails && need.branch)
		more(c, "; the R%d branch or newer fixes it", need.branch);
}

static int check_binary(const struct explain_match *m, const struct explain_env *env,
			struct explain_checks *out, char *err)
{
	const char *path = env->binary ? env->binary : m->path[0] ? m->path : NULL;
	const struct arch_target *t = &env->target;
	struct explain_binary *b = &out->binary;
	struct mapped_file mf;
	struct arch_file f = { .path = path };
	struct explain_check *c;
	char ferr[CD_ERRMSG];
	int rc = CD_OK;

	if (!path) {
		add(out, "binary", CHECK_SKIPPED, "give --binary PATH (the program or library that "
		    "failed) to check which images it carries");
		return CD_OK;
	}
	if (file_map(path, &mf, ferr) != CD_OK) {
		add(out, "binary", CHECK_SKIPPED, "%s", ferr);
		return CD_OK;
	}
	dc_init(&f.inv);
	f.data = mf.data;
	f.size = mf.size;
	/* named by the user, so read as arch reads a file named on its command line */
	if (dc_scan(&f.inv, mf.data, mf.size, DC_SCAN_ALL_SECTIONS, ferr) != CD_OK) {
		add(out, "binary", CHECK_PROBLEM, "%s: %s", path, ferr);
		goto out;
	}
	c = add(out, "binary", CHECK_INFO, "%s carries", path);
	if (f.inv.n_images == 0)
		more(c, " no device code");
	for (size_t i = 0; i < f.inv.n_images && i < 24; i++) {
		char name[32];

		dc_image_arch_name(&f.inv.images[i], name, sizeof(name));
		more(c, " %s", name);
	}
	if (f.inv.n_images > 24)
		more(c, " ... (%zu images)", f.inv.n_images);
	check_runtime_need(&f, t, out);
	if (!t->n_gpus || !f.inv.n_images)
		goto out;
	free(b->v);
	free(b->gpus);
	memset(b, 0, sizeof(*b));
	b->v = calloc(t->n_gpus, sizeof(*b->v));
	b->gpus = calloc(t->n_gpus, sizeof(*b->gpus));
	if (!b->v || !b->gpus) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = arch_judge(&f, t, b->v, err)) != CD_OK)
		goto out;
	b->judged = true;
	snprintf(b->path, sizeof(b->path), "%s", path);
	b->format = dc_format_name(f.inv.format);
	for (size_t g = 0; g < t->n_gpus; g++) {
		const struct arch_gpu *gi = &t->gpus[g];
		enum compat_verdict v = b->v[g].verdict;

		if (v == VERDICT_NONE)
			continue;
		b->v[b->n] = b->v[g];
		b->gpus[b->n++] = gi;
		if (gi->ordinal >= 0)
			more(c, "; on GPU %d (CC %u.%u): %s", gi->ordinal, gi->cc / 10, gi->cc % 10,
			     compat_verdict_name(v));
		else
			more(c, "; on %s (CC %u.%u): %s", gi->name, gi->cc / 10, gi->cc % 10, compat_verdict_name(v));
		if (c && (v == VERDICT_NO_IMAGE || v == VERDICT_PTX_TOO_NEW || v == VERDICT_JIT_DISABLED ||
			  v == VERDICT_PARTIAL))
			c->result = CHECK_PROBLEM;
	}
out:
	dc_free(&f.inv);
	file_unmap(&mf);
	return rc;
}

#define LAUNCH_IMAGE_CAP ((size_t)256 << 20) /* largest image decompressed */
#define LAUNCH_NAMED_MAX 8                   /* kernels named in the check's sentence */

static int launch_push(struct explain_launch *l, const struct arch_gpu *g, const char *image,
		       const struct cubin_kernel_res *k, const struct launch_fit *fit)
{
	struct explain_launch_kernel *e;

	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 8;
		struct explain_launch_kernel *nk = realloc(l->k, nc * sizeof(*nk));

		if (!nk)
			return CD_ENOMEM;
		l->k = nk;
		l->cap = nc;
	}
	e = &l->k[l->n++];
	snprintf(e->gpu, sizeof(e->gpu), "%s", g->name);
	snprintf(e->image, sizeof(e->image), "%s", image);
	snprintf(e->name, sizeof(e->name), "%s", k->name);
	e->registers = k->registers;
	e->limit = fit->limit;
	e->largest = fit->largest;
	return CD_OK;
}

/* The kernels of one SASS image that cannot launch on GPU g with the block judged. */
static int launch_image(const struct dc_image *im, const struct arch_gpu *g, struct explain_launch *l,
			struct explain_check *c, char *err)
{
	struct cubin_resources res;
	struct kb_sm_limits lim;
	unsigned char *buf = NULL;
	size_t len = 0, bad = 0;
	char image[32], ierr[CD_ERRMSG];
	int rc;

	dc_image_arch_name(im, image, sizeof(image));
	if ((rc = kb_sm_limits_find((int)g->cc, &lim, ierr)) != CD_OK) {
		more(c, "; %s: %s", g->name, ierr);
		return CD_OK;
	}
	rc = dc_image_bytes(im, LAUNCH_IMAGE_CAP, &buf, &len, ierr);
	if (rc == CD_OK)
		rc = cubin_resources_read(buf, len, &res, ierr);
	free(buf);
	if (rc == CD_ENOMEM)
		return cd_fail(err, rc, "out of memory");
	if (rc != CD_OK) {
		more(c, "; %s: its %s image cannot be read: %s", g->name, image, ierr);
		return CD_OK;
	}
	if (res.n == 0) { /* a container without kernels (the static runtime's, an nvlink stub) */
		cubin_resources_free(&res);
		return CD_OK;
	}
	for (size_t i = 0; i < res.n; i++) {
		struct launch_fit fit;

		launch_fit_judge(&res.k[i], &lim, l->block, &fit);
		if (fit.limit == LAUNCH_FITS)
			continue;
		if (launch_push(l, g, image, &res.k[i], &fit) != CD_OK) {
			cubin_resources_free(&res);
			return cd_fail(err, CD_ENOMEM, "out of memory");
		}
		if (bad++ == 0)
			more(c, "; on %s (%s image, CC %u.%u limits: %u registers per block):", g->name, image,
			     g->cc / 10, g->cc % 10, fit.regs_available);
		if (bad > LAUNCH_NAMED_MAX)
			continue;
		more(c, "%s", bad > 1 ? "," : "");
		if (fit.limit == LAUNCH_REGISTERS)
			more(c, " %s (%u registers per thread: %u threads need %lu registers; largest block %u)",
			     res.k[i].name, res.k[i].registers, l->block, fit.regs_needed, fit.largest);
		else if (fit.limit == LAUNCH_BOUNDS)
			more(c, " %s (launch bounds %u threads; largest block %u)", res.k[i].name,
			     cubin_kernel_bound(&res.k[i]), fit.largest);
		else
			more(c, " %s (more than %u threads per block; largest block %u)", res.k[i].name,
			     lim.max_threads_per_block, fit.largest);
	}
	if (bad > LAUNCH_NAMED_MAX)
		more(c, " and %zu more", bad - LAUNCH_NAMED_MAX);
	if (!bad)
		more(c, "; on %s every kernel of its %s image (%zu) launches with %u threads", g->name, image, res.n,
		     l->block);
	if (bad && c)
		c->result = CHECK_PROBLEM;
	cubin_resources_free(&res);
	return CD_OK;
}

/* Which kernels of the binary cannot launch with the block size of the text (--block, or
 * "Block [512x1x1]" in the text, else 1024) on each GPU judged: the image the driver would
 * pick for it (rules/arch), its kernels' registers and launch bounds against the GPU's limits. */
static int check_launch(const struct explain_match *m, const struct explain_env *env,
			struct explain_checks *out, char *err)
{
	const char *path = env->binary ? env->binary : m->path[0] ? m->path : NULL;
	const struct arch_target *t = &env->target;
	struct explain_launch *l = &out->launch;
	struct arch_verdict *v = NULL;
	struct arch_file f = { .path = path };
	struct mapped_file mf;
	struct explain_check *c;
	char ferr[CD_ERRMSG];
	int rc = CD_OK;

	l->block = env->block ? env->block : m->block_threads > 0 ? (unsigned)m->block_threads : 1024;
	l->block_from = env->block ? "--block" : m->block_threads > 0 ? "the text" : "the default";
	if (!path) {
		add(out, "launch", CHECK_SKIPPED, "give --binary PATH (and --block N) to name the kernels that "
		    "cannot launch with %u threads per block", l->block);
		return CD_OK;
	}
	if (!t->n_gpus) {
		add(out, "launch", CHECK_SKIPPED, "no GPU to judge %s against (name one with --gpu)", path);
		return CD_OK;
	}
	if (file_map(path, &mf, ferr) != CD_OK) {
		add(out, "launch", CHECK_SKIPPED, "%s", ferr);
		return CD_OK;
	}
	dc_init(&f.inv);
	f.data = mf.data;
	f.size = mf.size;
	if (dc_scan(&f.inv, mf.data, mf.size, DC_SCAN_ALL_SECTIONS, ferr) != CD_OK) {
		add(out, "launch", CHECK_SKIPPED, "%s: %s", path, ferr);
		goto out;
	}
	v = calloc(t->n_gpus, sizeof(*v));
	if (!v) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = arch_judge(&f, t, v, err)) != CD_OK)
		goto out;
	l->judged = true;
	c = add(out, "launch", CHECK_OK, "%s with %u threads per block (from %s)", path, l->block, l->block_from);
	for (size_t g = 0; g < t->n_gpus && rc == CD_OK; g++) {
		long ci = v[g].chosen_image;

		if (ci < 0 || (size_t)ci >= f.inv.n_images)
			more(c, "; on %s: no image it runs", t->gpus[g].name);
		else if (f.inv.images[ci].kind != FATBIN_KIND_ELF)
			more(c, "; on %s: the driver JIT-compiles %s, whose registers are known only then "
			     "(cudaFuncGetAttributes)", t->gpus[g].name, v[g].image);
		else {
			/* the same arch in every container: a binary links one fatbin per object file
			 * (and the static runtime's own), each with its own kernels */
			char want[32], have[32];
			dc_image_arch_name(&f.inv.images[ci], want, sizeof(want));
			for (size_t i = 0; i < f.inv.n_images && rc == CD_OK; i++) {
				if (f.inv.images[i].kind != FATBIN_KIND_ELF)
					continue;
				dc_image_arch_name(&f.inv.images[i], have, sizeof(have));
				if (strcmp(have, want) == 0)
					rc = launch_image(&f.inv.images[i], &t->gpus[g], l, c, err);
			}
		}
	}
out:
	free(v);
	dc_free(&f.inv);
	file_unmap(&mf);
	return rc;
}

static void check_nvcc(const struct explain_match *m, const struct explain_env *env,
		       struct explain_checks *out)
{
	const struct toolkit *t = explain_build_nvcc(&env->toolkits);
	const struct kb_toolkit *k;
	struct explain_check *c;
	char arch[24];

	if (!t) {
		add(out, "nvcc", CHECK_INFO, "no nvcc found here (PATH, CUDA_HOME, /usr/local/cuda*)");
		return;
	}
	c = add(out, "nvcc", CHECK_INFO, "nvcc %s at %s", t->version_text[0] ? t->version_text : "?",
		t->nvcc);
	k = t->version.parts ? kb_toolkit_find(&t->version) : NULL;
	if (!m->has_arch || !k)
		return;
	kb_arch_format(m->arch, "compute_", arch, sizeof(arch));
	if (kb_toolkit_accepts(k, m->arch)) {
		more(c, " builds %s", arch);
		if (c)
			c->result = CHECK_OK;
	} else {
		more(c, " does not build %s", arch);
		if (c)
			c->result = CHECK_PROBLEM;
	}
}

static void check_ptx(const struct explain_env *env, struct explain_checks *out)
{
	const struct toolkit *t = explain_build_nvcc(&env->toolkits);
	const struct kb_toolkit *k = t && t->version.parts ? kb_toolkit_find(&t->version) : NULL;
	struct arch_driver d;
	unsigned isa;
	int cmaj, cmin;

	if (!ptx_driver(env, &d) || !d.ptx_isa_max) {
		add(out, "ptx", CHECK_SKIPPED, "the driver's CUDA version is unknown here");
		return;
	}
	isa = d.ptx_isa_max;
	cmaj = d.cuda / 1000;
	cmin = (d.cuda % 1000) / 10;
	if (!k) {
		add(out, "ptx", CHECK_INFO, "this driver (CUDA %d.%d) JITs PTX up to ISA %u.%u", cmaj, cmin,
		    isa / 100, isa % 100);
		return;
	}
	if (COMPAT_ISA(k->ptx_major, k->ptx_minor) > isa)
		add(out, "ptx", CHECK_PROBLEM, "nvcc %s here emits PTX ISA %d.%d; this driver (CUDA %d.%d) "
		    "JITs up to %u.%u, so PTX-only code built here fails with 222", k->release_text,
		    k->ptx_major, k->ptx_minor, cmaj, cmin, isa / 100, isa % 100);
	else
		add(out, "ptx", CHECK_OK, "nvcc %s here emits PTX ISA %d.%d; this driver JITs up to %u.%u",
		    k->release_text, k->ptx_major, k->ptx_minor, isa / 100, isa % 100);
}

static void check_env(const struct explain_match *m, struct explain_checks *out)
{
	const char *conf = getenv("PYTORCH_CUDA_ALLOC_CONF");
	const char *dis = getenv("CUDA_DISABLE_PTX_JIT") ? getenv("CUDA_DISABLE_PTX_JIT")
							 : getenv("CUDA_DISABLE_JIT");

	if (strcmp(m->finding, "jit-disabled") == 0) {
		if (dis && strcmp(dis, "0") != 0)
			add(out, "env", CHECK_PROBLEM, "CUDA_DISABLE_PTX_JIT/CUDA_DISABLE_JIT=%s in this shell", dis);
		else
			add(out, "env", CHECK_OK, "JIT is not disabled in this shell");
		return;
	}
	if (conf && strstr(conf, "expandable_segments:True"))
		add(out, "env", CHECK_INFO, "PYTORCH_CUDA_ALLOC_CONF=%s is already set in this shell", conf);
	else
		add(out, "env", CHECK_INFO, "PYTORCH_CUDA_ALLOC_CONF is %s in this shell%s",
		    conf ? conf : "not set",
		    m->has_oom && oom_expandable_helps(&m->oom.n) ? "; expandable_segments:True applies" : "");
}

/* The device nodes probe/platform.c looked at (on WSL2 the GPU is reached through /dev/dxg). */
static void check_nodes(const struct platform_info *p, struct explain_checks *out)
{
	struct explain_check *c;

	if (p->wsl) {
		add(out, "nodes", p->wsl_dxg ? CHECK_OK : CHECK_PROBLEM, "WSL2: GPUs are reached through "
		    "/dev/dxg, which is %s", p->wsl_dxg ? "there" : "missing");
		return;
	}
	c = add(out, "nodes", CHECK_OK, "device nodes:");
	for (size_t i = 0; i < p->n_nodes; i++) {
		const struct device_node *n = &p->nodes[i];

		more(c, " %s %s", n->path, n->accessible ? "ok" : n->exists ? "not accessible" : "missing");
		if (!n->accessible && c)
			c->result = CHECK_PROBLEM;
	}
}

static void check_wsl(const struct platform_info *p, struct explain_checks *out)
{
	if (!p->wsl)
		add(out, "wsl", CHECK_INFO, "this is not a WSL2 kernel");
	else if (!p->wsl_libcuda1)
		add(out, "wsl", CHECK_PROBLEM, "WSL2, but /usr/lib/wsl/lib/libcuda.so.1 is missing");
	else if (p->wsl_libcuda1_symlink)
		add(out, "wsl", CHECK_OK, "WSL2; /usr/lib/wsl/lib/libcuda.so.1 is a symlink");
	else
		add(out, "wsl", CHECK_INFO, "WSL2; /usr/lib/wsl/lib/libcuda.so.1 is a copy (what ldconfig "
		    "warns about; CUDA itself loads it fine)");
}

static void check_ldpath(struct explain_checks *out)
{
	const char *p = getenv("LD_LIBRARY_PATH");
	struct explain_check *c = NULL;

	while (p && *p) {
		size_t n = strcspn(p, ":");
		char dir[512];

		snprintf(dir, sizeof(dir), "%.*s", (int)(n < sizeof(dir) - 1 ? n : sizeof(dir) - 1), p);
		for (char *q = dir; *q; q++)
			if (strncmp(q, "cuda", 4) == 0 || strncmp(q, "cudnn", 5) == 0) {
				if (!c)
					c = add(out, "ldpath", CHECK_PROBLEM, "LD_LIBRARY_PATH puts CUDA "
						"libraries ahead of a framework's own:");
				more(c, " %s", dir);
				break;
			}
		p += n + (p[n] == ':');
	}
	if (!c)
		add(out, "ldpath", CHECK_OK, "no CUDA directory on LD_LIBRARY_PATH");
}

static void check_memory(const struct explain_match *m, const struct explain_env *env,
			 struct explain_checks *out)
{
	const struct gpu_probe *g = &env->gpus;
	bool any = false;

	for (size_t i = 0; i < g->n_gpus; i++) {
		const struct gpu_info *gi = &g->gpus[i];
		struct explain_check *c;
		long long others = 0;

		if (m->has_oom && m->oom.gpu >= 0 && gi->cuda_ordinal != m->oom.gpu)
			continue;
		if (!gpu_has(gi, GF_NVML_MEMORY))
			continue;
		any = true;
		c = add(out, "memory", CHECK_INFO, "GPU %d %s now: %.2f GiB used of %.2f GiB",
			gi->cuda_ordinal, gi->name, (double)gi->memory_used_bytes / GIB,
			(double)gi->nvml_memory_total_bytes / GIB);
		for (size_t k = 0; k < gi->n_processes; k++)
			if (gi->processes[k].used_memory_bytes > 0)
				others += gi->processes[k].used_memory_bytes;
		if (gi->n_processes)
			more(c, " by %zu process%s (%.2f GiB)", gi->n_processes,
			     gi->n_processes == 1 ? "" : "es", (double)others / GIB);
	}
	if (!any)
		add(out, "memory", CHECK_SKIPPED, "NVML reports no GPU memory here");
}

int explain_checks_run(const struct explain_match *m, const struct kb_explanation *x,
		       struct explain_env *env, struct explain_checks *out, char *err)
{
	const char *p = x ? x->checks : "driver";
	int rc;

	memset(out, 0, sizeof(*out));
	while (*p) {
		char name[24];
		size_t n = strcspn(p, " ");

		snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) - 1 ? n : sizeof(name) - 1), p);
		p += n + (p[n] == ' ');
		if (env->offline) {
			/* nothing of this machine: only a binary against the GPUs the user named */
			if (!strcmp(name, "binary") && env->target.n_gpus &&
			    (rc = check_binary(m, env, out, err)) != CD_OK)
				return rc;
			if (!strcmp(name, "launch") && env->target.n_gpus &&
			    (rc = check_launch(m, env, out, err)) != CD_OK)
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
			check_driver(env, out);
		else if (!strcmp(name, "gpus"))
			check_gpus(m, env, out);
		else if (!strcmp(name, "binary")) {
			if ((rc = check_binary(m, env, out, err)) != CD_OK)
				return rc;
		}
		else if (!strcmp(name, "launch")) {
			if ((rc = check_launch(m, env, out, err)) != CD_OK)
				return rc;
		}
		else if (!strcmp(name, "nvcc"))
			check_nvcc(m, env, out);
		else if (!strcmp(name, "ptx"))
			check_ptx(env, out);
		else if (!strcmp(name, "env"))
			check_env(m, out);
		else if (!strcmp(name, "nodes"))
			check_nodes(&env->platform, out);
		else if (!strcmp(name, "wsl"))
			check_wsl(&env->platform, out);
		else if (!strcmp(name, "ldpath"))
			check_ldpath(out);
		else if (!strcmp(name, "memory"))
			check_memory(m, env, out);
	}
	return CD_OK;
}

/* ---- what the text implies on its own ---- */

static size_t line(char lines[][400], size_t n, size_t max, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t line(char lines[][400], size_t n, size_t max, const char *fmt, ...)
{
	va_list ap;

	if (n >= max)
		return n;
	va_start(ap, fmt);
	vsnprintf(lines[n], 400, fmt, ap);
	va_end(ap);
	return n + 1;
}

static void size_text(double b, char *buf, size_t n)
{
	/* a sum of parsed sizes stays far below 2^64; the bound keeps the conversion defined */
	units_fmt_bytes(b > 0 && b < 1.8e19 ? (uint64_t)(b + 0.5) : 0, buf, n);
}

static size_t oom_lines(const struct explain_match *m, char lines[][400], size_t n, size_t max)
{
	const struct oom_numbers *o = &m->oom.n;
	char r[32] = "?", t[32] = "?", f[32] = "?", a[32] = "?", u[32] = "?", oth[32] = "?";
	double others = oom_others(o);

	if (o->have & OOM_HAVE_REQUESTED)
		size_text(o->requested, r, sizeof(r));
	if (o->have & OOM_HAVE_TOTAL)
		size_text(o->total, t, sizeof(t));
	if (o->have & OOM_HAVE_FREE)
		size_text(o->free_bytes, f, sizeof(f));
	if (o->have & OOM_HAVE_ALLOCATED)
		size_text(o->allocated, a, sizeof(a));
	if (o->have & OOM_HAVE_RESERVED_UNALLOC)
		size_text(o->reserved_unalloc, u, sizeof(u));
	if (others >= 0)
		size_text(others, oth, sizeof(oth));
	n = line(lines, n, max, "requested %s; GPU %d total %s, free %s; PyTorch allocated %s, "
		 "reserved but unallocated %s; held outside this process %s%s", r, m->oom.gpu, t, f, a, u,
		 oth, (o->have & OOM_HAVE_OTHERS) ? "" : " (derived)");
	switch (oom_classify(o)) {
	case OOM_CLASS_CAPACITY:
		n = line(lines, n, max, (o->have & OOM_HAVE_TOTAL) && o->requested > o->total
			 ? "the request alone is larger than the GPU"
			 : "this process's own data fills the GPU: little is free or cached, and others "
			   "hold little");
		break;
	case OOM_CLASS_OTHER_PROCESS:
		n = line(lines, n, max, "%s is held outside this process (other processes, or another "
			 "framework in this one)", oth);
		break;
	case OOM_CLASS_FRAGMENTATION:
		n = line(lines, n, max, "free + cached (%s + %s) would cover the request, but not in one "
			 "block", f, u);
		break;
	default:
		break;
	}
	if (m->oom.suggests_expandable && !oom_expandable_helps(o))
		n = line(lines, n, max, "PyTorch's hint (expandable_segments) does not apply here: only "
			 "%s is reserved but unallocated", u);
	return n;
}

size_t explain_offline_evidence(const struct explain_match *m, char lines[][400], size_t max)
{
	size_t n = 0;
	char buf[32], era[400];

	if (m->error) {
		n = line(lines, n, max, "%s (%d, %s API): \"%s\"", m->error->name, m->error->code,
			 kb_api_name(m->error->api), m->error->string);
	}
	if (eras_evidence(m, era, sizeof(era)))
		n = line(lines, n, max, "%s", era);
	if (m->invalid_value_launch)
		n = line(lines, n, max, "an invalid argument at a kernel launch: CUDA 13 reports a block "
			 "beyond the GPU's limits (threads per block, block dimensions) as invalid argument (1), "
			 "where earlier releases said invalid configuration argument (9)");
	if (m->block_threads > 0 && strcmp(m->finding, "launch-out-of-resources") == 0)
		n = line(lines, n, max, "the launch's block in the text: %d threads", m->block_threads);
	if (m->gpu_name[0] && m->has_arch) {
		const struct kb_gpu *g = kb_gpu_by_name(m->gpu_name);

		kb_arch_format(m->arch, NULL, buf, sizeof(buf));
		n = line(lines, n, max, "the GPU in the text, %s, is CC %s (sm_%d)%s", m->gpu_name, buf,
			 m->arch.num, g ? "" : "");
	}
	if (m->n_supported) {
		struct compat_env e;
		char list[200] = "";
		size_t used = 0;
		bool runs = false, jit = false;

		compat_env_for(&e, (unsigned)m->arch.num);

		for (size_t k = 0; k < m->n_supported; k++) {
			struct compat_image im = { m->supported_ptx[k] ? COMPAT_KIND_PTX : COMPAT_KIND_SASS,
						   (unsigned)m->supported[k].num, m->supported[k].suffix, 0,
						   false, false };

			kb_arch_format(m->supported[k], m->supported_ptx[k] ? "compute_" : "sm_", buf,
				       sizeof(buf));
			if (used < sizeof(list) - 16)
				used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", k ? " " : "",
							 buf);
			if (m->supported_ptx[k])
				jit |= m->has_arch && compat_ptx_runs(&e, &im);
			else
				runs |= m->has_arch && compat_sass_runs(&e, &im);
		}
		if (m->has_arch)
			n = line(lines, n, max, "this PyTorch was built for %s: %s", list,
				 runs ? "SASS in it runs on this GPU (so the failing kernel is elsewhere, e.g. "
				 "an extension)"
				 : jit ? "no SASS runs on this GPU (SASS runs only on its own major, at or above "
				 "its minor); only its old PTX could be JIT-compiled, and PyTorch does not count "
				 "on that"
				 : "none runs on this GPU (SASS runs only on its own major, at or above its minor)");
	}
	if (m->has_arch && m->message && strcmp(m->message->extract, "nvcc_arch") == 0) {
		const struct kb_toolkit *first, *last;

		kb_arch_format(m->arch, "compute_", buf, sizeof(buf));
		if (kb_arch_toolkit_range(m->arch, &first, &last) == CD_OK)
			n = line(lines, n, max, "toolkits that build %s: CUDA %s%s%s", buf, first->release_text,
				 last ? " to " : " and newer", last ? last->release_text : "");
		else
			n = line(lines, n, max, "no toolkit in cudoctor's tables builds %s", buf);
	}
	for (size_t k = 0; k < m->n_xids; k++) {
		const struct kb_xid *x = kb_xid_find(m->xids[k]);

		n = line(lines, n, max, "Xid %d: %s%s%s (%s)", m->xids[k],
			 x ? x->name : "not in cudoctor's table", x ? " - " : "", x ? x->meaning : "",
			 x ? x->kind : "?");
	}
	if (m->has_oom)
		n = oom_lines(m, lines, n, max);
	return n;
}
