/* explain's checks judged from facts (rules/checks.h): each check's result and sentence. */
#include "rules/checks.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfmt/cubin_attrs.h"
#include "binfmt/devcode.h"
#include "kb/compat.h"
#include "kb/kb.h"
#include "kb/sm_limits.h"
#include "rules/driver_need.h"
#include "rules/oom.h"
#include "util/err.h"
#include "util/version.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

const char *check_result_name(enum check_result r)
{
	static const char *const names[] = { "ok", "problem", "info", "skipped" };

	return names[r];
}

struct explain_check *check_add(struct explain_checks *out, const char *name, enum check_result r,
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

void check_more(struct explain_check *c, const char *fmt, ...)
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

void explain_checks_free(struct explain_checks *c)
{
	free(c->launch.k);
	memset(&c->launch, 0, sizeof(c->launch));
	free(c->binary.v);
	free(c->binary.gpus);
	memset(&c->binary, 0, sizeof(c->binary));
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

bool check_ptx_driver(const struct arch_target *t, const struct gpu_probe *g, struct arch_driver *d)
{
	struct version v;

	if (t->driver.known && strcmp(t->driver.source, "--driver") == 0) {
		*d = t->driver;
		return true;
	}
	memset(d, 0, sizeof(*d));
	if (!driver_cuda(g, &v))
		return false;
	d->known = true;
	d->cuda = version_to_cuda_int(&v);
	snprintf(d->source, sizeof(d->source), "installed driver");
	arch_driver_complete(d);
	return d->ptx_isa_max != 0;
}

/* ---- one function per check ---- */

void check_driver(const struct gpu_probe *g, struct explain_checks *out)
{
	struct explain_check *c;
	struct version v;

	/* doctor's view of the driver layer: the module version, the user-space version, compat
	 * (the GPU probe fills them) */
	if (!g->cuda_loaded) {
		c = check_add(out, "driver", CHECK_PROBLEM, "libcuda.so.1 does not load here: %s", g->cuda_load_error);
		if (driver_has(g, DF_KMOD))
			check_more(c, "; the kernel module %s is loaded", g->kmod_version);
		return;
	}
	if (driver_has(g, DF_CUDA_INIT) && g->cuda_init_result != 0) {
		c = check_add(out, "driver", CHECK_PROBLEM, "libcuda loads (%s) but cuInit fails: %s", g->cuda_path,
			g->cuda_init_result_name);
	} else {
		c = check_add(out, "driver", CHECK_OK, "libcuda %s", g->cuda_path);
	}
	if (g->user_driver_version[0])
		check_more(c, "; driver %s", g->user_driver_version);
	if (driver_has(g, DF_KMOD) && g->kmod_version[0]) {
		check_more(c, "; kernel module %s", g->kmod_version);
		if (g->user_driver_version[0] && strcmp(g->user_driver_version, g->kmod_version) != 0 && c) {
			c->result = CHECK_PROBLEM;
			check_more(c, " (differs from the user-space driver: reboot or reload the module)");
		}
	}
	if (g->compat_lib && c) {
		/* the cuda-compat package's user-mode driver (error 804 on unsupported GPUs) */
		c->result = CHECK_PROBLEM;
		check_more(c, "; this libcuda is a cuda-compat forward-compatibility driver");
	}
	if (c && c->result == CHECK_OK && driver_cuda(g, &v)) {
		const struct kb_ptx_isa *isa = kb_ptx_isa_max_for_cuda(&v);

		check_more(c, "; supports CUDA %d.%d (runtimes of that version or older, and minor-version "
		     "compatible ones)", v.major, v.minor);
		if (isa)
			check_more(c, "; JITs PTX up to ISA %d.%d", isa->major, isa->minor);
	}
}

void check_gpus(const struct check_text *m, const struct gpu_probe *g, const char *cvd, struct explain_checks *out)
{
	size_t vis = visible_gpus(g);
	struct explain_check *c;

	if (!g->cuda_loaded || vis == 0) {
		check_add(out, "gpus", CHECK_PROBLEM, "no GPU is visible to CUDA here%s%s%s",
		    cvd ? " (CUDA_VISIBLE_DEVICES=" : "", cvd ? cvd : "", cvd ? ")" : "");
		return;
	}
	c = check_add(out, "gpus", CHECK_INFO, "%zu GPU%s visible (ordinals 0..%zu)", vis, vis == 1 ? "" : "s",
		vis - 1);
	if (cvd)
		check_more(c, " with CUDA_VISIBLE_DEVICES=%s", cvd);
	for (size_t i = 0; i < g->n_gpus; i++) {
		const struct gpu_info *gi = &g->gpus[i];
		unsigned cc;

		if (gi->cuda_ordinal < 0 || !gpu_has(gi, GF_CC))
			continue;
		cc = (unsigned)(gi->cc_major * 10 + gi->cc_minor);
		check_more(c, "; GPU %d %s is CC %lld.%lld", gi->cuda_ordinal, gi->name, gi->cc_major, gi->cc_minor);
		if (m->n_supported && c) {
			bool runs;

			compat_arch_list(cc, m->supported, m->supported_ptx, m->n_supported, &runs, NULL);
			check_more(c, runs ? " (the PyTorch build's arch list has SASS it runs)"
				     : " (no SASS in the PyTorch build's arch list runs on it)");
			if (!runs)
				c->result = CHECK_PROBLEM;
		}
		if (gpu_has(gi, GF_MAX_THREADS_PER_BLOCK) &&
		    strcmp(m->finding, "launch-out-of-resources") == 0) {
			check_more(c, " (at most %lld threads and %lld registers per block", gi->max_threads_per_block,
			     gi->regs_per_block);
			if (gpu_has(gi, GF_MAX_BLOCK_DIM))
				check_more(c, ", block dimensions up to %lldx%lldx%lld", gi->max_block_dim[0],
				     gi->max_block_dim[1], gi->max_block_dim[2]);
			check_more(c, ")");
			if (m->block_threads > 0 && m->block_threads > gi->max_threads_per_block && c)
				c->result = CHECK_PROBLEM;
		}
	}
}

/* the binary's own CUDA runtime against the driver judged against (rules/driver_need) */
static void check_runtime_need(const struct arch_file *f, const struct arch_target *t, struct explain_checks *out)
{
	struct runtime_need need;
	struct driver_need_verdict v;
	struct explain_check *c;
	bool fails;

	runtime_need_of(f->data, f->size, &need);
	if (!need.known)
		return;
	if (!t->driver.known) {
		check_add(out, "runtime", CHECK_INFO, "%s: needs driver %s or newer (driver unknown here; give --driver)",
		    need.how, need.min_driver_text[0] ? need.min_driver_text : "(unknown)");
		return;
	}
	v = driver_need_verdict(&need, &t->driver);
	fails = v.fails;
	out->runtime = need;
	out->runtime_verdict = v;
	c = check_add(out, "runtime", fails ? CHECK_PROBLEM : CHECK_OK,
	    "%s needs driver %s or newer (CUDA %d.x); the driver judged against is %s%s%s (CUDA %d.%d)%s", need.how,
	    need.min_driver_text[0] ? need.min_driver_text : "(unknown)", need.cuda.major, t->driver.source,
	    t->driver.version[0] ? " " : "", t->driver.version, t->driver.cuda / 1000, (t->driver.cuda % 1000) / 10,
	    fails ? ": error 35 (cudaErrorInsufficientDriver) at the first CUDA call" : "");
	if (c && fails && need.branch)
		check_more(c, "; the R%d branch or newer fixes it", need.branch);
}

int check_binary(const char *path, const struct arch_file *f, const struct arch_target *t,
		 struct explain_checks *out, char *err)
{
	struct explain_binary *b = &out->binary;
	struct explain_check *c;
	int rc;

	bool hip = f->inv.n_hip_entries > 0;

	c = check_add(out, "binary", CHECK_INFO, "%s carries", path);
	if (f->inv.n_images == 0 && !hip)
		check_more(c, " no device code");
	if (hip) { /* AMD code objects: their targets, as arch lists them */
		char *carries = arch_amd_carries(&f->inv, -1);
		if (!carries)
			return cd_fail(err, CD_ENOMEM, "out of memory");
		check_more(c, " AMD code objects for %s", carries);
		free(carries);
	}
	for (size_t i = 0; i < f->inv.n_images && i < 24; i++) {
		char name[32];

		dc_image_arch_name(&f->inv.images[i], name, sizeof(name));
		check_more(c, " %s", name);
	}
	if (f->inv.n_images > 24)
		check_more(c, " ... (%zu images)", f->inv.n_images);
	check_runtime_need(f, t, out);
	if (!t->n_gpus || (!f->inv.n_images && !hip))
		return CD_OK;
	free(b->v);
	free(b->gpus);
	memset(b, 0, sizeof(*b));
	b->v = calloc(t->n_gpus, sizeof(*b->v));
	b->gpus = calloc(t->n_gpus, sizeof(*b->gpus));
	if (!b->v || !b->gpus)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if ((rc = arch_judge(f, t, b->v, err)) != CD_OK)
		return rc;
	b->judged = true;
	snprintf(b->path, sizeof(b->path), "%s", path);
	b->format = dc_format_name(f->inv.format);
	for (size_t g = 0; g < t->n_gpus; g++) {
		const struct arch_gpu *gi = &t->gpus[g];
		enum compat_verdict v = b->v[g].verdict;

		if (v == VERDICT_NONE)
			continue;
		b->v[b->n] = b->v[g];
		b->gpus[b->n++] = gi;
		if (gi->amd && t->hsa_override_gfx[0])
			check_more(c, "; on %s, taken for %s (HSA_OVERRIDE_GFX_VERSION): %s", gi->name, t->hsa_override_gfx,
				   compat_verdict_name(v));
		else if (gi->amd)
			check_more(c, "; on %s: %s", gi->name, compat_verdict_name(v));
		else if (gi->ordinal >= 0)
			check_more(c, "; on GPU %d (CC %u.%u): %s", gi->ordinal, gi->cc / 10, gi->cc % 10,
			     compat_verdict_name(v));
		else
			check_more(c, "; on %s (CC %u.%u): %s", gi->name, gi->cc / 10, gi->cc % 10, compat_verdict_name(v));
		if (v == VERDICT_PTX_TOO_NEW) {
			unsigned isa = b->v[g].newest_ptx_isa;
			const char *need = arch_ptx_isa_min_driver(isa);

			/* the driver that JITs it is what the fix needs, named from the PTX the file carries */
			check_more(c, " (PTX ISA %u.%u; a driver JITs it from %s)", isa / 100, isa % 100,
				   need ? need : "an unknown version");
		}
		if (c && (v == VERDICT_NO_IMAGE || v == VERDICT_PTX_TOO_NEW || v == VERDICT_JIT_DISABLED ||
			  v == VERDICT_PARTIAL))
			c->result = CHECK_PROBLEM;
	}
	return CD_OK;
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
static int launch_image(struct dc_inventory *inv, const struct dc_image *im, const struct arch_gpu *g,
			struct explain_launch *l, struct explain_check *c, char *err)
{
	struct cubin_resources res;
	struct kb_sm_limits lim;
	unsigned char *buf = NULL;
	size_t len = 0, bad = 0;
	char image[32], ierr[CD_ERRMSG];
	int rc;

	dc_image_arch_name(im, image, sizeof(image));
	if ((rc = kb_sm_limits_find((int)g->cc, &lim, ierr)) != CD_OK) {
		check_more(c, "; %s: %s", g->name, ierr);
		return CD_OK;
	}
	rc = dc_image_bytes(inv, im, LAUNCH_IMAGE_CAP, &buf, &len, ierr);
	if (rc == CD_OK)
		rc = cubin_resources_read(buf, len, &res, ierr);
	free(buf);
	if (rc == CD_ENOMEM)
		return cd_fail(err, rc, "out of memory");
	if (rc != CD_OK) {
		check_more(c, "; %s: its %s image cannot be read: %s", g->name, image, ierr);
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
			check_more(c, "; on %s (%s image, CC %u.%u limits: %u registers per block):", g->name, image,
			     g->cc / 10, g->cc % 10, fit.regs_available);
		if (bad > LAUNCH_NAMED_MAX)
			continue;
		check_more(c, "%s", bad > 1 ? "," : "");
		if (fit.limit == LAUNCH_REGISTERS)
			check_more(c, " %s (%u registers per thread: %u threads need %lu registers; largest block %u)",
			     res.k[i].name, res.k[i].registers, l->block, fit.regs_needed, fit.largest);
		else if (fit.limit == LAUNCH_BOUNDS)
			check_more(c, " %s (launch bounds %u threads; largest block %u)", res.k[i].name,
			     cubin_kernel_bound(&res.k[i]), fit.largest);
		else
			check_more(c, " %s (more than %u threads per block; largest block %u)", res.k[i].name,
			     lim.max_threads_per_block, fit.largest);
	}
	if (bad > LAUNCH_NAMED_MAX)
		check_more(c, " and %zu more", bad - LAUNCH_NAMED_MAX);
	if (!bad)
		check_more(c, "; on %s every kernel of its %s image (%zu) launches with %u threads", g->name, image, res.n,
		     l->block);
	if (bad && c)
		c->result = CHECK_PROBLEM;
	cubin_resources_free(&res);
	return CD_OK;
}

/* Which kernels of the binary cannot launch with the block size judged on each GPU: the image
 * the driver would pick for it (rules/arch), its kernels' registers and launch bounds against
 * the GPU's limits. */
int check_launch(const char *path, struct arch_file *f, const struct arch_target *t,
		 struct explain_checks *out, char *err)
{
	struct explain_launch *l = &out->launch;
	struct arch_verdict *v = calloc(t->n_gpus ? t->n_gpus : 1, sizeof(*v));
	struct explain_check *c;
	int rc;

	if (!v)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if ((rc = arch_judge(f, t, v, err)) != CD_OK)
		goto out;
	l->judged = true;
	c = check_add(out, "launch", CHECK_OK, "%s with %u threads per block (from %s)", path, l->block, l->block_from);
	for (size_t g = 0; g < t->n_gpus && rc == CD_OK; g++) {
		long ci = v[g].chosen_image;

		if (ci < 0 || (size_t)ci >= f->inv.n_images)
			check_more(c, "; on %s: no image it runs", t->gpus[g].name);
		else if (f->inv.images[ci].kind != FATBIN_KIND_ELF)
			check_more(c, "; on %s: the driver JIT-compiles %s, whose registers are known only then "
			     "(cudaFuncGetAttributes)", t->gpus[g].name, v[g].image);
		else {
			/* the same arch in every container: a binary links one fatbin per object file
			 * (and the static runtime's own), each with its own kernels */
			char want[32], have[32];
			dc_image_arch_name(&f->inv.images[ci], want, sizeof(want));
			for (size_t i = 0; i < f->inv.n_images && rc == CD_OK; i++) {
				if (f->inv.images[i].kind != FATBIN_KIND_ELF)
					continue;
				dc_image_arch_name(&f->inv.images[i], have, sizeof(have));
				if (strcmp(have, want) == 0)
					rc = launch_image(&f->inv, &f->inv.images[i], &t->gpus[g], l, c, err);
			}
		}
	}
out:
	free(v);
	return rc;
}

void check_nvcc(const struct check_text *m, const struct toolkit *t, struct explain_checks *out)
{
	const struct kb_toolkit *k;
	struct explain_check *c;
	char arch[24];

	if (!t) {
		check_add(out, "nvcc", CHECK_INFO, "no nvcc found here (PATH, CUDA_HOME, /usr/local/cuda*)");
		return;
	}
	if (t->timed_out && !t->version_text[0]) {
		check_add(out, "nvcc", CHECK_PROBLEM, "%s %s did not answer within %.3g s (stopped): a build with it "
			  "hangs the same way", t->nvcc, t->timed_out, t->timeout_ms / 1000.0);
		return;
	}
	c = check_add(out, "nvcc", CHECK_INFO, "nvcc %s at %s", t->version_text[0] ? t->version_text : "?",
		t->nvcc);
	k = t->version.parts ? kb_toolkit_find(&t->version) : NULL;
	if (!m->has_arch || !k)
		return;
	kb_arch_format(m->arch, "compute_", arch, sizeof(arch));
	if (kb_toolkit_accepts(k, m->arch)) {
		check_more(c, " builds %s", arch);
		if (c)
			c->result = CHECK_OK;
	} else {
		check_more(c, " does not build %s", arch);
		if (c)
			c->result = CHECK_PROBLEM;
	}
}

void check_ptx(const struct toolkit *t, const struct arch_driver *d, struct explain_checks *out)
{
	const struct kb_toolkit *k = t && t->version.parts ? kb_toolkit_find(&t->version) : NULL;
	unsigned isa;
	int cmaj, cmin;

	if (!d || !d->ptx_isa_max) {
		check_add(out, "ptx", CHECK_SKIPPED, "the driver's CUDA version is unknown here");
		return;
	}
	isa = d->ptx_isa_max;
	cmaj = d->cuda / 1000;
	cmin = (d->cuda % 1000) / 10;
	if (!k) {
		check_add(out, "ptx", CHECK_INFO, "this driver (CUDA %d.%d) JITs PTX up to ISA %u.%u", cmaj, cmin,
		    isa / 100, isa % 100);
		return;
	}
	if (COMPAT_ISA(k->ptx_major, k->ptx_minor) > isa)
		check_add(out, "ptx", CHECK_PROBLEM, "nvcc %s here emits PTX ISA %d.%d; this driver (CUDA %d.%d) "
		    "JITs up to %u.%u, so PTX-only code built here fails with 222", k->release_text,
		    k->ptx_major, k->ptx_minor, cmaj, cmin, isa / 100, isa % 100);
	else
		check_add(out, "ptx", CHECK_OK, "nvcc %s here emits PTX ISA %d.%d; this driver JITs up to %u.%u",
		    k->release_text, k->ptx_major, k->ptx_minor, isa / 100, isa % 100);
}

void check_env(const struct check_text *m, const char *dis, const char *conf, struct explain_checks *out)
{
	if (strcmp(m->finding, "jit-disabled") == 0) {
		if (dis && strcmp(dis, "0") != 0)
			check_add(out, "env", CHECK_PROBLEM, "CUDA_DISABLE_PTX_JIT/CUDA_DISABLE_JIT=%s in this shell", dis);
		else
			check_add(out, "env", CHECK_OK, "JIT is not disabled in this shell");
		return;
	}
	if (conf && strstr(conf, "expandable_segments:True"))
		check_add(out, "env", CHECK_INFO, "PYTORCH_CUDA_ALLOC_CONF=%s is already set in this shell", conf);
	else
		check_add(out, "env", CHECK_INFO, "PYTORCH_CUDA_ALLOC_CONF is %s in this shell%s",
		    conf ? conf : "not set",
		    m->has_oom && oom_expandable_helps(m->oom) ? "; expandable_segments:True applies" : "");
}

/* The device nodes probe/platform.c looked at (on WSL2 the GPU is reached through /dev/dxg). */
void check_nodes(const struct platform_info *p, struct explain_checks *out)
{
	struct explain_check *c;

	if (p->wsl) {
		check_add(out, "nodes", p->wsl_dxg ? CHECK_OK : CHECK_PROBLEM, "WSL2: GPUs are reached through "
		    "/dev/dxg, which is %s", p->wsl_dxg ? "there" : "missing");
		return;
	}
	c = check_add(out, "nodes", CHECK_OK, "device nodes:");
	for (size_t i = 0; i < p->n_nodes; i++) {
		const struct device_node *n = &p->nodes[i];

		check_more(c, " %s %s", n->path, n->accessible ? "ok" : n->exists ? "not accessible" : "missing");
		if (!n->accessible && c)
			c->result = CHECK_PROBLEM;
	}
}

void check_wsl(const struct platform_info *p, struct explain_checks *out)
{
	if (!p->wsl)
		check_add(out, "wsl", CHECK_INFO, "this is not a WSL2 kernel");
	else if (!p->wsl_libcuda1)
		check_add(out, "wsl", CHECK_PROBLEM, "WSL2, but /usr/lib/wsl/lib/libcuda.so.1 is missing");
	else if (p->wsl_libcuda1_symlink)
		check_add(out, "wsl", CHECK_OK, "WSL2; /usr/lib/wsl/lib/libcuda.so.1 is a symlink");
	else
		check_add(out, "wsl", CHECK_INFO, "WSL2; /usr/lib/wsl/lib/libcuda.so.1 is a copy (what ldconfig "
		    "warns about; CUDA itself loads it fine)");
}

void check_ldpath(const char *p, struct explain_checks *out)
{
	struct explain_check *c = NULL;

	while (p && *p) {
		size_t n = strcspn(p, ":");
		char dir[512];

		snprintf(dir, sizeof(dir), "%.*s", (int)(n < sizeof(dir) - 1 ? n : sizeof(dir) - 1), p);
		for (char *q = dir; *q; q++)
			if (strncmp(q, "cuda", 4) == 0 || strncmp(q, "cudnn", 5) == 0) {
				if (!c)
					c = check_add(out, "ldpath", CHECK_PROBLEM, "LD_LIBRARY_PATH puts CUDA "
						"libraries ahead of a framework's own:");
				check_more(c, " %s", dir);
				break;
			}
		p += n + (p[n] == ':');
	}
	if (!c)
		check_add(out, "ldpath", CHECK_OK, "no CUDA directory on LD_LIBRARY_PATH");
}

/* whether NCCL's list (after "^" and "=") names iface: a prefix of it, or it exactly */
static bool ifname_lists(const char *list, bool exact, const char *iface, size_t n)
{
	while (*list) {
		size_t k = strcspn(list, ",");

		if (k && (exact ? k == n && strncmp(list, iface, n) == 0 : k <= n && strncmp(list, iface, k) == 0))
			return true;
		list += k + (list[k] == ',');
	}
	return false;
}

void check_nccl_ifname(const char *ifname, const char *ifaces, bool known, struct explain_checks *out)
{
	struct explain_check *c = NULL;
	const char *list, *at = ifaces;
	bool exclude, exact;

	if (!known) {
		check_add(out, "net", CHECK_SKIPPED, "this machine's network interfaces could not be read");
		return;
	}
	if (!ifname || !*ifname) {
		check_add(out, "net", CHECK_INFO, "NCCL_SOCKET_IFNAME is not set here; interfaces with a route: %s",
			  *ifaces ? ifaces : "none");
		return;
	}
	exclude = ifname[0] == '^';
	list = ifname + exclude;
	exact = list[0] == '=';
	list += exact;
	while (*at) {
		size_t n = strcspn(at, " ");

		if (ifname_lists(list, exact, at, n) != exclude) {
			if (!c)
				c = check_add(out, "net", CHECK_OK, "NCCL_SOCKET_IFNAME=%s selects", ifname);
			check_more(c, " %.*s", (int)n, at);
		}
		at += n + (at[n] == ' ');
	}
	if (!c)
		check_add(out, "net", CHECK_PROBLEM,
			  "NCCL_SOCKET_IFNAME=%s selects none of this machine's interfaces with a route (%s)", ifname,
			  *ifaces ? ifaces : "none");
}

void check_memory(const struct check_text *m, const struct gpu_probe *g, struct explain_checks *out)
{
	bool any = false;

	for (size_t i = 0; i < g->n_gpus; i++) {
		const struct gpu_info *gi = &g->gpus[i];
		struct explain_check *c;
		long long others = 0;

		if (m->has_oom && m->oom_gpu >= 0 && gi->cuda_ordinal != m->oom_gpu)
			continue;
		if (!gpu_has(gi, GF_NVML_MEMORY))
			continue;
		any = true;
		c = check_add(out, "memory", CHECK_INFO, "GPU %d %s now: %.2f GiB used of %.2f GiB",
			gi->cuda_ordinal, gi->name, (double)gi->memory_used_bytes / GIB,
			(double)gi->nvml_memory_total_bytes / GIB);
		for (size_t k = 0; k < gi->n_processes; k++)
			if (gi->processes[k].used_memory_bytes > 0)
				others += gi->processes[k].used_memory_bytes;
		if (gi->n_processes)
			check_more(c, " by %zu process%s (%.2f GiB)", gi->n_processes,
			     gi->n_processes == 1 ? "" : "es", (double)others / GIB);
	}
	if (!any)
		check_add(out, "memory", CHECK_SKIPPED, "NVML reports no GPU memory here");
}

void check_kfd(const struct check_text *t, const struct amd_host *h, struct explain_checks *out)
{
	const struct amd_node *kfd = h->n_nodes && strcmp(h->nodes[0].path, "/dev/kfd") == 0 ? &h->nodes[0] : NULL;
	struct explain_check *c;

	(void)t;
	if (!h->kfd && !h->amdgpu_module && !kfd) {
		check_add(out, "kfd", CHECK_SKIPPED, "no AMD GPU driver here (no /sys/class/kfd, no amdgpu module): the "
			  "text is from another machine");
		return;
	}
	c = check_add(out, "kfd", h->n_gpus && kfd && kfd->exists && kfd->opens ? CHECK_OK : CHECK_PROBLEM,
		      "KFD shows %zu GPU%s", h->n_gpus, h->n_gpus == 1 ? "" : "s");
	if (!kfd || !kfd->exists)
		check_more(c, "; /dev/kfd does not exist");
	else
		check_more(c, "; /dev/kfd is mode %03o, group %s, %s", kfd->mode, kfd->group[0] ? kfd->group : "?",
			   kfd->opens ? "the user may open it" : "the user may not open it");
}
