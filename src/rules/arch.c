/* Arch verdicts: each registered container of a file judged on each GPU by kb/compat.c,
 * summed into one verdict per GPU with its reason, and the findings of a verdict. Reads
 * only facts: the file's inventory, the GPUs' compute capabilities and the driver. */
#include "rules/arch.h"
#include "os/env.h"
#include "rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "binfmt/cubin.h"
#include "binfmt/decompress.h"
#include "binfmt/elf.h"
#include "binfmt/elf_needed.h"
#include "binfmt/pe.h"
#include "binfmt/ptx.h"
#include "kb/kb.h"
#include "kb/vendor_libs.h"
#include "rules/catalogue.h"
#include "rules/driver_need.h"
#include "rules/fix.h"
#include "rules/plan.h"
#include "util/err.h"
#include "util/sort.h"
#include "util/str.h"
#include "util/version.h"

static const char *env_get(const char *name)
{
	return os_getenv(name);
}

void arch_target_init(struct arch_target *t)
{
	struct compat_env ev = { 0 };

	memset(t, 0, sizeof(*t));
	t->driver.zstd_ok = -1;
	compat_env_from_vars(&ev, env_get);
	t->force_jit = ev.force_ptx_jit;
	t->disable_jit = ev.disable_ptx_jit;
	/* ROCm's: the processor the runtime takes every GPU for, and the XNACK mode it asks for */
	const char *ov = env_get("HSA_OVERRIDE_GFX_VERSION"), *xn = env_get("HSA_XNACK");
	if (ov && arch_amd_override_gfx(ov, t->hsa_override_gfx, sizeof t->hsa_override_gfx))
		snprintf(t->hsa_override, sizeof t->hsa_override, "%.31s", ov);
	t->hsa_xnack = xn && strcmp(xn, "1") == 0 ? HIPFB_FEAT_ON : xn && strcmp(xn, "0") == 0 ? HIPFB_FEAT_OFF
											: HIPFB_FEAT_ANY;
}

/* ---- the driver: what its CUDA version means for PTX and compression ---- */

/* The oldest driver that loads Zstandard-compressed images: the minimum driver of the
 * first toolkit that could write them (12.4 -> 550.54.14, fatbin.md §3.3). */
static const struct kb_toolkit *first_zstd_toolkit(void)
{
	for (size_t i = 0; i < kb_toolkit_count(); i++) {
		const struct kb_toolkit *t = kb_toolkit_at(i);
		if (t->zstd != KB_ZSTD_NO && t->has_min_driver)
			return t;
	}
	return NULL;
}

void arch_driver_complete(struct arch_driver *d)
{
	struct version v;
	if (!d->cuda && d->version[0] && version_parse(d->version, &v) == CD_OK) {
		const struct kb_driver_branch *b;
		bool exact;
		if (kb_driver_branch_of(&v, &b, &exact) == CD_OK)
			d->cuda = version_to_cuda_int(&b->cuda);
	}
	d->ptx_isa_max = 0;
	d->zstd_ok = -1;
	if (!d->cuda)
		return;
	struct version cuda = version_from_cuda_int(d->cuda);
	const struct kb_ptx_isa *p = kb_ptx_isa_max_for_cuda(&cuda);
	if (p)
		d->ptx_isa_max = COMPAT_ISA(p->major, p->minor);
	const struct kb_toolkit *z = first_zstd_toolkit();
	if (z) {
		if (d->version[0] && version_parse(d->version, &v) == CD_OK)
			d->zstd_ok = version_cmp(&v, &z->min_driver) >= 0;
		else
			d->zstd_ok = version_cmp(&cuda, &z->release) >= 0;
	}
}

const char *arch_zstd_min_driver(void)
{
	const struct kb_toolkit *z = first_zstd_toolkit();
	return z ? z->min_driver_text : "?";
}

const char *arch_ptx_isa_min_driver(unsigned isa)
{
	const struct kb_ptx_isa *p = kb_ptx_isa_find((int)(isa / 100), (int)(isa % 100));
	return p && p->has_min_driver ? p->min_driver_text : NULL;
}

void arch_gpu_of(const struct gpu_info *g, struct arch_gpu *out)
{
	gpu_subject(g, out->name, sizeof out->name);
	out->cc = (unsigned)gpu_sm(g);
	out->ordinal = g->cuda_ordinal;
}

void arch_target_add_probe(struct arch_target *t, const struct gpu_probe *p)
{
	/* NVML's CUDA version first, as nvidia-smi prints it; else cuDriverGetVersion's */
	int cuda = driver_has(p, DF_NVML_CUDA_VERSION) ? p->nvml_cuda_driver_version
		   : driver_has(p, DF_CUDA_VERSION) ? p->cuda_driver_version : 0;

	if (!t->driver.known && (cuda > 0 || driver_has(p, DF_VERSION))) {
		struct arch_driver *d = &t->driver;
		d->known = true;
		d->cuda = cuda > 0 ? cuda : 0;
		snprintf(d->version, sizeof(d->version), "%.31s", driver_has(p, DF_VERSION) ? p->user_driver_version : "");
		snprintf(d->source, sizeof(d->source), "installed driver");
		arch_driver_complete(d);
		d->known = d->cuda > 0;
	}
	if (t->n_gpus)
		return; /* GPUs named: judge those only */
	for (size_t i = 0; i < p->n_gpus && t->n_gpus < ARCH_MAX_GPUS; i++)
		if (p->gpus[i].cuda_ordinal >= 0 && gpu_sm(&p->gpus[i]) > 0)
			arch_gpu_of(&p->gpus[i], &t->gpus[t->n_gpus++]);
}

/* ---- containers without kernels (nvlink stubs) ---- */

/* True when the image certainly holds no kernel: a cubin without .text.* or a PTX
 * without .entry (nvlink's stub containers, fatbin.md §1.3). Unknown counts as code. */
static bool image_kernel_less(const struct dc_image *im)
{
	if (im->kind != FATBIN_KIND_ELF && im->kind != FATBIN_KIND_PTX)
		return false;
	struct fatbin_entry e = {.payload = im->payload, .payload_len = im->payload_len,
				 .payload_size = im->payload_len, .uncompressed_size = im->uncompressed_bytes};
	e.flags = im->compression == FATBIN_LZ4 ? FATBIN_FLAG_LZ4 : im->compression == FATBIN_ZSTD ? FATBIN_FLAG_ZSTD : 0;
	unsigned char *buf;
	size_t len;
	if (decompress_entry(&e, DC_STUB_MAX_BYTES, &buf, &len, NULL))
		return false;
	bool empty = false;
	if (im->kind == FATBIN_KIND_ELF) {
		struct cubin_info ci;
		empty = cubin_read(buf, len, &ci, NULL) == CD_OK && !ci.has_code;
	} else {
		struct ptx_info pi;
		empty = ptx_read(buf, len, &pi, NULL) == CD_OK && pi.n_entries == 0;
	}
	free(buf);
	return empty;
}

/* The answers of image_kernel_less by the image's stored bytes: libraries repeat a few stubs
 * in thousands of containers (cuBLASLt: 4,682 images of stub size, 55 distinct), and
 * decompressing each took a quarter of arch's time. Open addressing, doubled at half full; a
 * lookup probes at most STUB_PROBES slots (crafted images whose hashes cluster are then
 * decompressed each, as without the table), so it stays linear. */
#define STUB_PROBES 16

struct stub_seen {
	const struct dc_image *im; /* NULL: empty */
	uint64_t hash;
	bool kernel_less;
};

struct stub_check {
	signed char *container; /* per container: 1 kernel-less, 0 code, -1 not asked yet */
	struct stub_seen *seen;
	size_t cap, n;
};

static uint64_t payload_hash(const struct dc_image *im)
{
	const unsigned char *p = im->payload;
	size_t n = im->payload_len, i = 0;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n ^ ((uint64_t)im->kind << 48) ^ ((uint64_t)im->compression << 56);
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	h ^= h >> 29;
	return h * 0x94d049bb133111ebULL;
}

static bool same_image(const struct dc_image *a, const struct dc_image *b)
{
	return a->kind == b->kind && a->compression == b->compression && a->uncompressed_bytes == b->uncompressed_bytes &&
	       a->payload_len == b->payload_len && memcmp(a->payload, b->payload, a->payload_len) == 0;
}

/* The slot of im's bytes: its entry, an empty one to fill, or NULL past STUB_PROBES slots. */
static struct stub_seen *stub_slot(struct stub_seen *seen, size_t cap, const struct dc_image *im, uint64_t h)
{
	for (size_t k = 0, i = (size_t)h & (cap - 1); k < STUB_PROBES; k++, i = (i + 1) & (cap - 1)) {
		struct stub_seen *s = &seen[i];
		if (!s->im || (s->hash == h && same_image(s->im, im)))
			return s;
	}
	return NULL;
}

static int stub_grow(struct stub_check *sc)
{
	size_t cap = sc->cap ? sc->cap * 2 : 64;
	struct stub_seen *seen = calloc(cap, sizeof(*seen));
	if (!seen)
		return CD_ENOMEM;
	for (size_t i = 0; i < sc->cap; i++)
		if (sc->seen[i].im) {
			struct stub_seen *s = stub_slot(seen, cap, sc->seen[i].im, sc->seen[i].hash);
			if (s) /* else dropped: a cache */
				*s = sc->seen[i];
		}
	free(sc->seen);
	sc->seen = seen;
	sc->cap = cap;
	return CD_OK;
}

static bool image_kernel_less_seen(struct stub_check *sc, const struct dc_image *im)
{
	if (im->kind != FATBIN_KIND_ELF && im->kind != FATBIN_KIND_PTX)
		return false;
	if (2 * (sc->n + 1) > sc->cap && stub_grow(sc) != CD_OK)
		return image_kernel_less(im); /* out of memory for the table: asked each time */
	uint64_t h = payload_hash(im);
	struct stub_seen *s = stub_slot(sc->seen, sc->cap, im, h);
	if (s && s->im)
		return s->kernel_less;
	bool empty = image_kernel_less(im);
	if (s) {
		*s = (struct stub_seen){.im = im, .hash = h, .kernel_less = empty};
		sc->n++;
	}
	return empty;
}

static bool container_kernel_less(struct stub_check *sc, const struct dc_inventory *inv, const struct dc_container *c)
{
	if (c->n_images == 0)
		return true;
	/* stubs are tiny; anything bigger holds code, and is not decompressed to prove it */
	for (uint32_t k = 0; k < c->n_images; k++) {
		const struct dc_image *im = &inv->images[c->first_image + k];
		if (im->uncompressed_bytes > DC_STUB_MAX_BYTES || im->payload_len > DC_STUB_STORED_MAX)
			return false;
	}
	for (uint32_t k = 0; k < c->n_images; k++)
		if (!image_kernel_less_seen(sc, &inv->images[c->first_image + k]))
			return false;
	return true;
}

/* ---- judging ---- */

void arch_compat_image(const struct dc_image *im, struct compat_image *ci)
{
	memset(ci, 0, sizeof(*ci));
	ci->kind = im->kind == FATBIN_KIND_ELF ? COMPAT_KIND_SASS : im->kind == FATBIN_KIND_PTX ? COMPAT_KIND_PTX : 0;
	ci->arch = im->arch;
	ci->suffix = im->suffix;
	ci->ptx_isa = COMPAT_ISA(im->ptx_major, im->ptx_minor);
	ci->zstd = im->compression == FATBIN_ZSTD;
	ci->compat_blob = (im->flags & FATBIN_FLAG_COMPAT_BLOB) != 0;
}

static void env_for(struct compat_env *env, const struct arch_target *t, const struct arch_gpu *g, bool cubin)
{
	memset(env, 0, sizeof(*env));
	env->cc = g->cc;
	env->ptx_isa_max = t->driver.ptx_isa_max;
	env->zstd_ok = t->driver.known ? t->driver.zstd_ok : -1;
	env->force_ptx_jit = t->force_jit && !cubin; /* a bare cubin is loaded as is */
	env->disable_ptx_jit = t->disable_jit;
	env->family = compat_family_table(&env->n_family);
}

struct tally {
	struct compat_tally t;
	struct arch_verdict *v;
};

/* Kernel-less containers (nvlink stubs) are not judged. They matter only when they would
 * fail or JIT (a stub that has SASS changes nothing), and only images of stub size are
 * decompressed to find out; sc keeps the answers across GPUs. */
static int judge_containers(const struct arch_file *f, const struct arch_target *t, const struct arch_gpu *g,
			    struct stub_check *sc, struct tally *out)
{
	const struct dc_inventory *inv = &f->inv;
	struct arch_verdict *v = out->v;
	struct compat_env env;
	struct compat_image *imgs = NULL;
	size_t cap = 0;

	env_for(&env, t, g, inv->format == DC_CUBIN);
	for (size_t ci = 0; ci < inv->n_containers; ci++) {
		const struct dc_container *c = &inv->containers[ci];
		if (!c->primary)
			continue;
		if (c->n_images > cap) {
			free(imgs);
			cap = c->n_images;
			if (!(imgs = malloc(cap * sizeof(*imgs))))
				return CD_ENOMEM;
		}
		for (uint32_t k = 0; k < c->n_images; k++)
			arch_compat_image(&inv->images[c->first_image + k], &imgs[k]);
		struct compat_choice ch;
		compat_choose(imgs, c->n_images, &env, &ch);
		bool fails = ch.outcome != COMPAT_SASS && ch.outcome != COMPAT_JIT;
		if ((fails || ch.outcome == COMPAT_JIT) && sc->container[ci] < 0)
			sc->container[ci] = container_kernel_less(sc, inv, c);
		if (sc->container[ci] == 1) {
			v->stubs++;
			continue;
		}
		if (fails) {
			if (v->failing_container < 0)
				v->failing_container = (long)ci;
			if (ch.outcome == COMPAT_PTX_TOO_NEW)
				for (uint32_t k = 0; k < c->n_images; k++)
					if (imgs[k].kind == COMPAT_KIND_PTX && imgs[k].ptx_isa > v->newest_ptx_isa)
						v->newest_ptx_isa = imgs[k].ptx_isa;
		} else if (v->chosen_image < 0 ||
			   (ch.outcome == COMPAT_JIT && inv->images[v->chosen_image].kind != FATBIN_KIND_PTX)) {
			v->chosen_image = (long)(c->first_image + (size_t)ch.image);
		}
		v->judged++;
		if (inv->progress && c->file_offset + c->size <= f->size)
			inv->progress(f->data + c->file_offset + c->size, inv->progress_ctx);
		if (ch.zstd_unloadable)
			v->zstd_unloadable++;
		compat_tally_add(&out->t, ch.outcome);
	}
	free(imgs);
	return CD_OK;
}

/* Files whose registered containers hold no kernels but whose other sections do (cuFFT's
 * .ldata, a program's own embedded fatbin): those images are loaded by the program itself,
 * container by container as it sees fit, so they are judged as one pool: does any image
 * fit this GPU? Returns CD_OK with *any false when there is no such image. */
static int judge_pool(const struct arch_file *f, const struct arch_target *t, const struct arch_gpu *g,
		      struct tally *out, bool *any)
{
	const struct dc_inventory *inv = &f->inv;
	struct arch_verdict *v = out->v;
	struct compat_env env;
	size_t n = 0;
	struct compat_image *imgs = malloc((inv->n_images ? inv->n_images : 1) * sizeof(*imgs));
	size_t *index = malloc((inv->n_images ? inv->n_images : 1) * sizeof(*index));
	int rc = CD_OK;

	*any = false;
	env_for(&env, t, g, false);
	if (!imgs || !index) {
		rc = CD_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < inv->n_images; i++) {
		const struct dc_image *im = &inv->images[i];
		if (inv->containers[im->container].primary ||
		    (im->kind != FATBIN_KIND_ELF && im->kind != FATBIN_KIND_PTX))
			continue;
		arch_compat_image(im, &imgs[n]);
		index[n++] = i;
	}
	if (n == 0)
		goto out;
	struct compat_choice ch;
	compat_choose(imgs, n, &env, &ch);
	memset(&out->t, 0, sizeof(out->t));
	v->chosen_image = ch.image >= 0 ? (long)index[ch.image] : -1;
	v->failing_container = -1;
	v->newest_ptx_isa = 0;
	if (ch.outcome == COMPAT_PTX_TOO_NEW)
		for (size_t k = 0; k < n; k++)
			if (imgs[k].kind == COMPAT_KIND_PTX && imgs[k].ptx_isa > v->newest_ptx_isa)
				v->newest_ptx_isa = imgs[k].ptx_isa;
	compat_tally_add(&out->t, ch.outcome);
	v->judged = 1;
	v->stubs = 0;
	v->zstd_unloadable = ch.zstd_unloadable;
	*any = true;
out:
	free(imgs);
	free(index);
	return rc;
}

/* One distinct arch of a file, for the "file carries" lists */
struct present_arch {
	uint16_t kind;
	unsigned arch;
	char suffix;
	char name[32];
};

/* SASS before PTX, each in natural arch order (sm_75 before sm_100) */
static int present_cmp(const void *a, const void *b)
{
	const struct present_arch *x = a, *y = b;
	int kx = x->kind == FATBIN_KIND_PTX, ky = y->kind == FATBIN_KIND_PTX;

	return kx != ky ? kx - ky : str_natcmp(x->name, y->name);
}

static char *archs_present(const struct dc_inventory *inv, long only_container, bool primary);

char *arch_carries(const struct dc_inventory *inv)
{
	return archs_present(inv, -1, true);
}

/* "sm_80, sm_86, compute_90": the distinct archs in a file's primary containers (or in
 * one container), SASS then PTX, each in natural order. NULL when out of memory. */
static char *archs_present(const struct dc_inventory *inv, long only_container, bool primary)
{
	struct present_arch seen[64];
	size_t n_seen = 0;
	struct strbuf sb;
	sb_init(&sb);
	size_t from = 0, to = inv->n_images;
	if (only_container >= 0) {
		from = inv->containers[only_container].first_image;
		to = from + inv->containers[only_container].n_images;
	}
	for (size_t i = from; i < to; i++) {
		const struct dc_image *im = &inv->images[i];
		if (inv->containers[im->container].primary != primary)
			continue;
		if (im->kind != FATBIN_KIND_ELF && im->kind != FATBIN_KIND_PTX)
			continue;
		bool dup = false;
		for (size_t k = 0; k < n_seen && !dup; k++)
			dup = seen[k].kind == im->kind && seen[k].arch == im->arch && seen[k].suffix == im->suffix;
		if (dup || n_seen == sizeof(seen) / sizeof(seen[0]))
			continue;
		seen[n_seen] = (struct present_arch){ .kind = im->kind, .arch = im->arch, .suffix = im->suffix };
		dc_image_arch_name(im, seen[n_seen].name, sizeof(seen[n_seen].name));
		n_seen++;
	}
	cd_qsort(seen, n_seen, sizeof(seen[0]), present_cmp);
	for (size_t k = 0; k < n_seen; k++) {
		if (sb.len)
			sb_append(&sb, ", ");
		sb_append(&sb, seen[k].name);
	}
	if (!sb.len)
		sb_append(&sb, "no SASS or PTX");
	return sb_detach(&sb);
}

static void isa_text(unsigned isa, char *buf, size_t cap)
{
	snprintf(buf, cap, "%u.%u", isa / 100, isa % 100);
}

static const char *cache_dir_note(void)
{
	return "the JIT cache lives in $CUDA_CACHE_PATH, by default ~/.nv/ComputeCache (CUDA_CACHE_MAXSIZE bounds it)";
}

/* The verdict as one sentence. CD_OK or CD_ENOMEM. */
static int reason_of(const struct arch_file *f, const struct arch_target *t, const struct arch_gpu *g,
		     struct arch_verdict *v)
{
	const struct dc_inventory *inv = &f->inv;
	char *reason = v->reason, isa[16], drv[16] = "", chosen[32] = "";
	size_t cap = sizeof(v->reason);
	unsigned major = g->cc / 10, minor = g->cc % 10;
	char *all = archs_present(inv, -1, !v->pooled);
	char *bad = v->failing_container >= 0 ? archs_present(inv, v->failing_container, true) : NULL;

	if (!all || (v->failing_container >= 0 && !bad)) {
		free(all);
		free(bad);
		return CD_ENOMEM;
	}
	if (t->driver.ptx_isa_max)
		isa_text(t->driver.ptx_isa_max, drv, sizeof(drv));
	if (v->chosen_image >= 0)
		dc_image_arch_name(&inv->images[v->chosen_image], chosen, sizeof(chosen));
	switch (v->verdict) {
	case VERDICT_NATIVE:
		if (v->pooled)
			snprintf(reason, cap, "SASS that this %u.%u GPU runs as-is is there (%s)", major, minor, chosen);
		else
			snprintf(reason, cap, "every container with kernels has SASS this %u.%u GPU runs as-is (%s)",
				 major, minor, chosen);
		break;
	case VERDICT_JIT:
		if (v->pooled)
			snprintf(reason, cap, "no SASS for %u.%u, but PTX the driver can JIT (%s): the first load pays a "
				 "compile cost, and %s", major, minor, chosen, cache_dir_note());
		else
			snprintf(reason, cap,
				 "%zu of %zu containers have no SASS for %u.%u; the driver JIT-compiles their PTX (%s): "
				 "the first launch pays a compile cost, and %s",
				 v->jit, v->judged, major, minor, chosen, cache_dir_note());
		break;
	case VERDICT_PARTIAL:
		snprintf(reason, cap,
			 "%zu of %zu containers have no image for %u.%u (one holds only %s); kernels in them fail "
			 "with error 209 while the rest run. Libraries often carry arch-specific extras they only "
			 "use on those GPUs",
			 v->failing, v->judged, major, minor, bad ? bad : "?");
		break;
	case VERDICT_NO_IMAGE:
		snprintf(reason, cap,
			 "no SASS for %u.%u and no PTX the driver can JIT (file carries %s): every launch fails with "
			 "error 209 \"no kernel image is available for execution on the device\"",
			 major, minor, all);
		if (t->force_jit && inv->format != DC_CUBIN)
			strncat(reason, " (CUDA_FORCE_PTX_JIT is set, so SASS is ignored)", cap - strlen(reason) - 1);
		break;
	case VERDICT_PTX_TOO_NEW:
		isa_text(v->newest_ptx_isa, isa, sizeof(isa));
		snprintf(reason, cap,
			 "only PTX fits %u.%u and its ISA %s is newer than this driver's JIT accepts (%s): error 222 "
			 "\"the provided PTX was compiled with an unsupported toolchain\"",
			 major, minor, isa, drv[0] ? drv : "?");
		break;
	case VERDICT_JIT_DISABLED:
		snprintf(reason, cap,
			 "only PTX fits %u.%u and CUDA_DISABLE_PTX_JIT forbids compiling it: error 223 \"PTX JIT "
			 "compilation was disabled\" (unless the JIT cache already holds the result)",
			 major, minor);
		break;
	case VERDICT_NONE:
		snprintf(reason, cap, "no container with kernels to judge");
		break;
	}
	if (v->pooled) {
		/* the sentence above speaks of containers; say what was judged instead */
		static const char pre[] = "judged on the images outside .nv_fatbin, which the program loads itself "
					  "(the containers the CUDA runtime registers hold no kernels): ";
		size_t plen = sizeof(pre) - 1, len = strlen(reason);
		if (plen + len >= cap)
			len = cap - plen - 1;
		memmove(reason + plen, reason, len);
		memcpy(reason, pre, plen);
		reason[plen + len] = '\0';
	}
	free(all);
	free(bad);
	return CD_OK;
}

static void fill(struct arch_verdict *v, const struct compat_tally *t)
{
	v->verdict = compat_verdict_of(t);
	v->jit = t->jit;
	v->failing = t->no_image + t->ptx_too_new + t->jit_disabled;
}

int arch_judge(const struct arch_file *f, const struct arch_target *t, struct arch_verdict *out, char *err)
{
	size_t nc = f->inv.n_containers ? f->inv.n_containers : 1;
	struct stub_check sc = {.container = malloc(nc)};
	int rc = CD_OK;

	if (!sc.container)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	memset(sc.container, -1, nc);
	for (size_t gi = 0; gi < t->n_gpus; gi++) {
		struct arch_verdict *v = &out[gi];
		struct tally ty = {.v = v};
		bool any;

		memset(v, 0, sizeof(*v));
		v->chosen_image = v->failing_container = -1;
		if (t->gpus[gi].amd) {
			if ((rc = arch_amd_judge(f, t, &t->gpus[gi], v)) != CD_OK)
				goto out;
			continue;
		}
		if ((rc = judge_containers(f, t, &t->gpus[gi], &sc, &ty)) != CD_OK)
			goto out;
		fill(v, &ty.t);
		if (v->verdict == VERDICT_NONE) {
			if ((rc = judge_pool(f, t, &t->gpus[gi], &ty, &any)) != CD_OK)
				goto out;
			if (any) {
				v->pooled = true;
				fill(v, &ty.t);
			}
		}
		if (v->verdict == VERDICT_NONE && (rc = arch_amd_other_vendor(f, v)) != CD_OK)
			goto out;
		if (v->other_vendor)
			continue;
		if (v->chosen_image >= 0 && (v->verdict == VERDICT_NATIVE || v->verdict == VERDICT_JIT ||
					     v->verdict == VERDICT_PARTIAL))
			dc_image_arch_name(&f->inv.images[v->chosen_image], v->image, sizeof(v->image));
		if ((rc = reason_of(f, t, &t->gpus[gi], v)) != CD_OK)
			goto out;
	}
out:
	free(sc.container);
	free(sc.seen);
	return rc ? cd_fail(err, rc, "out of memory") : CD_OK;
}

/* ---- findings ---- */

/* PyTorch's own CUDA libraries (torch/lib/libtorch_cuda.so, torch_cuda.dll ...): fixed by
 * another wheel */
static bool looks_like_torch(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return strstr(path, "/torch/lib/") != NULL || strncmp(base, "libtorch", 8) == 0 ||
	       strncmp(base, "libc10", 6) == 0 || strncasecmp(base, "torch_cuda", 10) == 0 ||
	       strncasecmp(base, "c10_cuda", 8) == 0;
}

/* A PyTorch extension (or any build against libtorch): it links c10 or torch itself, so
 * TORCH_CUDA_ARCH_LIST rebuilds it with the missing arch. */
static bool extends_torch(const struct arch_file *f)
{
	const char *names[64];
	char err[CD_ERRMSG];
	size_t n = 0;

	if (!f->data)
		return false;
	if (pe_has_magic(f->data, f->size)) {
		struct pe_file pe;
		if (pe_open(&pe, f->data, f->size, err) == CD_OK)
			n = pe_imports(&pe, names, 64);
	} else {
		struct elf_file e;
		if (elf_has_magic(f->data, f->size) && elf_open(&e, f->data, f->size, err) == CD_OK)
			n = elf_needed(&e, names, 64);
	}
	for (size_t i = 0; i < n && i < 64; i++)
		if (strncmp(names[i], "libc10", 6) == 0 || strncmp(names[i], "libtorch", 8) == 0 ||
		    strncmp(names[i], "c10", 3) == 0 || strncmp(names[i], "torch_", 6) == 0)
			return true;
	return false;
}


/* Where an NVIDIA library came from, which decides what replaces it: a toolkit or
 * distribution prefix (/usr/local/cuda*, /opt/nvidia/..., /usr/lib/..., Windows' "NVIDIA GPU
 * Computing Toolkit") by that release, a conda env's lib by its conda package, anything else
 * (site-packages, a folder of its own) by NVIDIA's pip wheel. */
static enum fix_binary nv_library_kind(const char *path)
{
	if (strstr(path, "site-packages") || strstr(path, "dist-packages") || strstr(path, ".whl!"))
		return FIX_BIN_NV_WHEEL;
	if (strstr(path, "/envs/") || strstr(path, "conda") || strstr(path, "miniforge") || strstr(path, "mambaforge"))
		return FIX_BIN_NV_CONDA;
	if (strstr(path, "/usr/local/cuda") || strstr(path, "/opt/nvidia") || strstr(path, "/usr/lib") ||
	    strstr(path, "/cuda-") || strstr(path, "/cuda/") || strstr(path, "GPU Computing Toolkit"))
		return FIX_BIN_NV_TOOLKIT;
	return FIX_BIN_NV_WHEEL;
}

/* The situation arch knows for GPU cc: the target's driver (given or here) and the file's kind. */
static void arch_situation(unsigned cc, const struct arch_target *t, enum fix_binary kind, struct fix_situation *s)
{
	struct version cuda;
	bool given = strstr(t->driver.source, "--driver") != NULL;

	fix_situation_init(s);
	fix_add_gpu(s, cc, NULL, FIX_SRC_GIVEN);
	if (t->driver.known && t->driver.version[0] &&
	    fix_set_driver(s, t->driver.version, given ? FIX_SRC_GIVEN : FIX_SRC_HERE) == CD_OK)
		;
	else if (t->driver.known && t->driver.cuda) {
		cuda = version_from_cuda_int(t->driver.cuda);
		fix_set_driver_cuda(s, &cuda, given ? FIX_SRC_GIVEN : FIX_SRC_HERE);
	}
	s->binary.kind = kind;
	s->binary.src = FIX_SRC_GIVEN;
	if (kind == FIX_BIN_FRAMEWORK) {
		s->framework.fw = PLAN_FW_TORCH;
		s->framework.src = FIX_SRC_GIVEN;
	}
}

/* The engine's lines for a file's image verdict on GPU cc, into v. */
static void engine_vars(const struct fix_situation *s, struct finding_vars *v)
{
	struct fix_lines l;
	char err[CD_ERRMSG];

	/* own builds and extensions get no line from it: their rebuild lines are the row's */
	if (fix_plan(s, FIX_NO_IMAGE, &l, err) != CD_OK)
		return;
	fix_vars(&l, v);
	finding_flag(v, "fixed", true);
}

/* One flag set for every GPU judged (a single-arch line per GPU would drop the others):
 * SASS for each distinct compute capability, PTX for the newest. */
static void arch_lists(const struct arch_target *t, unsigned cc, char *nvcc, size_t nn, char *cmake, size_t cn,
		       char *torch, size_t tn)
{
	unsigned ccs[ARCH_MAX_GPUS];
	size_t n = 0, un = 0, uc = 0, ut = 0;
	unsigned newest = 0;

	ccs[n++] = cc;
	for (size_t i = 0; t && i < t->n_gpus; i++) {
		bool seen = t->gpus[i].amd; /* judged on its own code */

		for (size_t k = 0; k < n; k++)
			seen |= ccs[k] == t->gpus[i].cc;
		if (!seen && n < ARCH_MAX_GPUS)
			ccs[n++] = t->gpus[i].cc;
	}
	/* ascending, so the lists read in order */
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && ccs[k - 1] > ccs[k]; k--) {
			unsigned x = ccs[k];

			ccs[k] = ccs[k - 1];
			ccs[k - 1] = x;
		}
	nvcc[0] = cmake[0] = torch[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		newest = ccs[i];
		if (un < nn)
			un += (size_t)snprintf(nvcc + un, nn - un, "-gencode arch=compute_%u,code=sm_%u ", ccs[i], ccs[i]);
		if (uc < cn)
			uc += (size_t)snprintf(cmake + uc, cn - uc, "%s%u-real", i ? ";" : "", ccs[i]);
		if (ut < tn)
			ut += (size_t)snprintf(torch + ut, tn - ut, "%s%u.%u%s", i ? ";" : "", ccs[i] / 10, ccs[i] % 10,
					       i + 1 == n ? "+PTX" : "");
	}
	if (un < nn)
		snprintf(nvcc + un, nn - un, "-gencode arch=compute_%u,code=compute_%u", newest, newest);
	if (uc < cn)
		snprintf(cmake + uc, cn - uc, ";%u-virtual", newest);
}

bool arch_torch_extension_vars(const struct arch_file *f, unsigned cc, const struct arch_target *t,
			       struct finding_vars *v)
{
	char nvcc[512], cmake[256], torch[256];

	if (!extends_torch(f))
		return false;
	arch_lists(t, cc, nvcc, sizeof(nvcc), cmake, sizeof(cmake), torch, sizeof(torch));
	finding_var(v, "torch_archs", "%s", torch);
	finding_flag(v, "torch", true);
	finding_flag(v, "torch_ext", true);
	return true;
}

/* The catalogue values of an image verdict on GPU cc for the file at path: what kind of file
 * it is (PyTorch's, an NVIDIA library wheel's, else one's own code), the build flags for every
 * GPU judged, and the last toolkit that builds cc. */
static void image_vars(const struct arch_file *f, unsigned cc, const struct arch_target *t, struct finding_vars *v)
{
	const char *path = f->path;
	const char *wheel = kb_vendor_wheel(path);
	const struct kb_toolkit *first, *last;
	struct kb_arch arch = { (int)cc, 0 };
	char nvcc[512], cmake[256], torch[256];
	bool is_torch = looks_like_torch(path), ext = false;
	struct fix_situation s;
	struct runtime_need lib;

	arch_lists(t, cc, nvcc, sizeof(nvcc), cmake, sizeof(cmake), torch, sizeof(torch));
	finding_var(v, "sm", "%u", cc);
	finding_var(v, "cc", "%u.%u", cc / 10, cc % 10);
	finding_var(v, "nvcc_flags", "%s", nvcc);
	finding_var(v, "cmake_archs", "%s", cmake);
	finding_var(v, "torch_archs", "%s", torch);
	finding_flag(v, "torch_file", is_torch);
	finding_flag(v, "wheel_file", !is_torch && wheel);
	if (is_torch)
		finding_flag(v, "torch", true);
	else if (!wheel)
		ext = arch_torch_extension_vars(f, cc, t, v);
	if (kb_arch_toolkit_range(arch, &first, &last) == CD_OK) {
		if (last)
			finding_var(v, "last_toolkit", "%s", last->release_text);
	} else {
		finding_var(v, "no_toolkit_sm", "%u", cc);
	}
	/* a framework's file or NVIDIA's library is replaced by a release that carries the arch;
	 * one's own build or an extension is rebuilt */
	arch_situation(cc, t, is_torch ? FIX_BIN_FRAMEWORK : wheel ? nv_library_kind(path) : ext ? FIX_BIN_TORCH_EXT : FIX_BIN_OWN_BUILD, &s);
	finding_flag(v, "replace", is_torch || wheel);
	if (!is_torch && wheel) {
		runtime_need_of_library(path, &lib);
		snprintf(s.binary.wheel, sizeof(s.binary.wheel), "%s", wheel);
		s.binary.cuda_major = lib.known ? lib.cuda.major : 0;
		finding_var(v, "wheel", "%s", wheel);
	}
	engine_vars(&s, v);
	finding_flag(v, "force_jit", t->force_jit);
}

/* Containers whose every image is arch-specific code (sm_90a, sm_100f) of another GPU: what
 * NVIDIA's libraries and PyTorch carry for the GPUs that have those instructions, and never
 * call elsewhere. */
static size_t foreign_specific(const struct dc_inventory *inv, unsigned cc)
{
	size_t n = 0;

	for (size_t c = 0; c < inv->n_containers; c++) {
		const struct dc_container *k = &inv->containers[c];
		bool any = false, all = true;

		if (!k->primary)
			continue;
		for (size_t i = k->first_image; i < k->first_image + k->n_images && i < inv->n_images; i++) {
			const struct dc_image *im = &inv->images[i];

			if (im->kind != FATBIN_KIND_ELF && im->kind != FATBIN_KIND_PTX)
				continue;
			any = true;
			all &= im->suffix != 0 && im->arch != cc;
		}
		n += any && all;
	}
	return n;
}

/* Plain SASS that runs on cc as-is (same major, minor no higher) in a registered container. */
static bool carries_sass_for(const struct dc_inventory *inv, unsigned cc)
{
	for (size_t i = 0; i < inv->n_images; i++) {
		const struct dc_image *im = &inv->images[i];

		if (im->kind == FATBIN_KIND_ELF && !im->suffix && im->arch / 10 == cc / 10 && im->arch <= cc &&
		    im->container < inv->n_containers && inv->containers[im->container].primary)
			return true;
	}
	return false;
}

static int partial_finding(struct report *r, const struct arch_file *f, const struct arch_target *t,
			   const struct arch_gpu *g, const struct arch_verdict *v, const char *subject, const char *all,
			   const char *bad)
{
	unsigned major = g->cc / 10, minor = g->cc % 10;
	struct finding_vars fv;
	struct finding *fd;

	/* NVIDIA's libraries and PyTorch split kernels by arch: a container with only another GPU's
	 * code is how they are built when they carry SASS for this GPU too */
	bool by_design = v->failing <= foreign_specific(&f->inv, g->cc) ||
			 ((kb_vendor_wheel(f->path) || looks_like_torch(f->path)) && carries_sass_for(&f->inv, g->cc));

	finding_vars_init(&fv);
	image_vars(f, g->cc, t, &fv);
	finding_var(&fv, "failing", "%zu", v->failing);
	finding_var(&fv, "judged", "%zu", v->judged);
	finding_flag(&fv, "by_design", by_design);
	if (by_design)
		finding_var(&fv, "by_design_why", "the containers without an image for %u.%u hold arch-specific code (sm_XYa/sm_XYf) "
			    "or code of other GPUs, which the library calls only there; it carries SASS for %u.%u", major, minor,
			    major, minor);
	/* arch-specific extras for other GPUs are how libraries are built: nothing to fix; a few
	 * other gaps are normal too; most containers failing is not */
	fd = finding_make(r, !by_design && 2 * v->failing >= v->judged ? SEV_WARN : SEV_INFO, "partial-kernel-image",
			  subject, &fv);
	if (!fd)
		return CD_ENOMEM;
	if (finding_evidence(fd, "file carries: %s", all) ||
	    finding_evidence(fd, "a container without an image for %u.%u holds: %s", major, minor, bad ? bad : "?"))
		return CD_ENOMEM;
	return CD_OK;
}

static int no_image_finding(struct report *r, const struct arch_file *f, const struct arch_target *t,
			    const struct arch_gpu *g, const char *subject, const char *all)
{
	unsigned major = g->cc / 10, minor = g->cc % 10;
	struct finding_vars v;
	struct finding *fd;

	finding_vars_init(&v);
	image_vars(f, g->cc, t, &v);
	fd = finding_make(r, SEV_ERROR, "no-kernel-image", subject, &v);
	if (!fd)
		return CD_ENOMEM;
	if (finding_evidence(fd, "file carries: %s", all) ||
	    finding_evidence(fd, "%s has compute capability %u.%u", g->name, major, minor) ||
	    (t->force_jit && finding_evidence(fd, "CUDA_FORCE_PTX_JIT is set: the driver ignores SASS")))
		return CD_ENOMEM;
	return CD_OK;
}

static int ptx_too_new_finding(struct report *r, const struct arch_target *t, const struct arch_gpu *g,
			       const struct arch_verdict *v, const char *subject)
{
	char isa[16], drv[16] = "";
	const char *need = arch_ptx_isa_min_driver(v->newest_ptx_isa);
	struct finding_vars fv;
	struct finding *fd;

	if (t->driver.ptx_isa_max)
		isa_text(t->driver.ptx_isa_max, drv, sizeof(drv));
	isa_text(v->newest_ptx_isa, isa, sizeof(isa));
	finding_vars_init(&fv);
	finding_var(&fv, "ptx_isa", "%s", isa);
	if (drv[0])
		finding_var(&fv, "jit_isa", "%s", drv);
	if (need)
		finding_var(&fv, "need_driver", "%s", need);
	finding_var(&fv, "sm", "%u", g->cc);
	if (t->driver.version[0])
		finding_var(&fv, "driver_version", "%s", t->driver.version);
	fd = finding_make(r, SEV_ERROR, "ptx-too-new", subject, &fv);
	if (!fd)
		return CD_ENOMEM;
	if (finding_evidence(fd, "newest PTX ISA in the file: %s; driver (%s) JIT accepts up to %s", isa,
			     t->driver.source, drv))
		return CD_ENOMEM;
	return CD_OK;
}

static int jit_disabled_finding(struct report *r, const struct arch_file *f, const struct arch_target *t,
				const struct arch_gpu *g, const char *subject, const char *all)
{
	struct finding_vars v;
	struct finding *fd;

	finding_vars_init(&v);
	image_vars(f, g->cc, t, &v);
	fd = finding_make(r, SEV_ERROR, "jit-disabled", subject, &v);
	if (!fd)
		return CD_ENOMEM;
	if (finding_evidence(fd, "CUDA_DISABLE_PTX_JIT (or CUDA_DISABLE_JIT) is set") ||
	    finding_evidence(fd, "file carries: %s", all))
		return CD_ENOMEM;
	return CD_OK;
}

static int zstd_finding(struct report *r, const struct arch_file *f, const struct arch_target *t,
			const struct arch_verdict *v, const char *subject)
{
	struct runtime_need need;
	struct version zmin;
	const char *floor = arch_zstd_min_driver();

	/* one driver to name: the file's own runtime may need a newer one than zstd does (a CUDA 13
	 * library: R580, not 550) */
	runtime_need_of(f->data, f->size, &need);
	if (!need.known)
		runtime_need_of_library(f->path, &need);
	if (need.known && need.min_driver_text[0] && version_parse(floor, &zmin) == CD_OK &&
	    version_cmp(&need.min_driver, &zmin) > 0)
		floor = need.min_driver_text;
	struct finding_vars vars;
	struct finding *fd;

	finding_vars_init(&vars);
	finding_var(&vars, "containers", "%zu", v->zstd_unloadable);
	finding_var(&vars, "zstd_driver", "%s", arch_zstd_min_driver());
	finding_var(&vars, "floor", "%s", floor);
	finding_flag(&vars, "runtime_floor", floor != arch_zstd_min_driver());
	if (!(fd = finding_make(r, SEV_ERROR, "zstd-needs-newer-driver", subject, &vars)))
		return CD_ENOMEM;
	if (finding_evidence(fd, "driver (%s): CUDA %d.%d", t->driver.source, t->driver.cuda / 1000,
			     (t->driver.cuda % 1000) / 10))
		return CD_ENOMEM;
	return CD_OK;
}

int arch_findings(struct report *r, const struct arch_file *f, const struct arch_target *t,
		  const struct arch_gpu *g, const struct arch_verdict *v)
{
	const struct dc_inventory *inv = &f->inv;
	char subject[512];
	if (g->amd || v->other_vendor)
		return arch_amd_findings(r, f, t, g, v);
	char *all = archs_present(inv, -1, !v->pooled);
	char *bad = v->failing_container >= 0 ? archs_present(inv, v->failing_container, true) : NULL;
	int rc = CD_OK;

	if (!all || (v->failing_container >= 0 && !bad)) {
		rc = CD_ENOMEM;
		goto out;
	}
	snprintf(subject, sizeof(subject), "%s on %s", f->path, g->name);
	switch (v->verdict) {
	case VERDICT_PARTIAL:
		rc = partial_finding(r, f, t, g, v, subject, all, bad);
		break;
	case VERDICT_NO_IMAGE:
		rc = no_image_finding(r, f, t, g, subject, all);
		break;
	case VERDICT_PTX_TOO_NEW:
		rc = ptx_too_new_finding(r, t, g, v, subject);
		break;
	case VERDICT_JIT_DISABLED:
		rc = jit_disabled_finding(r, f, t, g, subject, all);
		break;
	default:
		break;
	}
	if (rc == CD_OK && v->zstd_unloadable)
		rc = zstd_finding(r, f, t, v, subject);
out:
	free(all);
	free(bad);
	return rc;
}
