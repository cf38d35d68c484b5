/* `arch` verdicts: each container of a file judged on each GPU by kb/compat.c, summed
 * into one result per GPU with its reason and findings (no-kernel-image, ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfmt/cubin.h"
#include "binfmt/decompress.h"
#include "binfmt/ptx.h"
#include "cmd/arch_internal.h"
#include "kb/kb.h"
#include "util/err.h"
#include "util/str.h"

#define STUB_CHECK_CAP ((size_t)64 << 20)
#define STUB_MAX_BYTES 8192 /* per image; nvlink stub images seen: 56 B - 1.5 KB */

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
	if (decompress_entry(&e, STUB_CHECK_CAP, &buf, &len, NULL))
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

static bool container_kernel_less(const struct dc_inventory *inv, const struct dc_container *c)
{
	if (c->n_images == 0)
		return true;
	/* stubs are tiny; anything bigger holds code, and is not decompressed to prove it */
	for (uint32_t k = 0; k < c->n_images; k++)
		if (inv->images[c->first_image + k].uncompressed_bytes > STUB_MAX_BYTES)
			return false;
	for (uint32_t k = 0; k < c->n_images; k++)
		if (!image_kernel_less(&inv->images[c->first_image + k]))
			return false;
	return true;
}

static void to_compat(const struct dc_image *im, struct compat_image *ci)
{
	memset(ci, 0, sizeof(*ci));
	ci->kind = im->kind == FATBIN_KIND_ELF ? COMPAT_KIND_SASS : im->kind == FATBIN_KIND_PTX ? COMPAT_KIND_PTX : 0;
	ci->arch = im->arch;
	ci->suffix = im->suffix;
	ci->ptx_isa = COMPAT_ISA(im->ptx_major, im->ptx_minor);
	ci->zstd = im->compression == FATBIN_ZSTD;
	ci->compat_blob = (im->flags & FATBIN_FLAG_COMPAT_BLOB) != 0;
}

struct gpu_judgement {
	struct compat_tally tally;
	size_t judged;
	size_t zstd_unloadable;
	size_t stubs;
	long first_chosen;          /* an image index the driver would use */
	long first_failing;         /* a failing container */
	unsigned newest_ptx_isa;    /* of PTX excluded by the ISA check */
};

/* -1 unknown, 0 has kernels, 1 kernel-less; computed only for containers that fail. */
static signed char *stub_cache(const struct dc_inventory *inv)
{
	signed char *s = malloc(inv->n_containers ? inv->n_containers : 1);
	if (s)
		memset(s, -1, inv->n_containers ? inv->n_containers : 1);
	return s;
}

static int judge_gpu(const struct arch_file *f, const struct arch_opts *o, const struct arch_gpu *g,
		     signed char *stubs, struct gpu_judgement *j)
{
	const struct dc_inventory *inv = &f->inv;
	struct compat_env env = {.cc = g->cc, .ptx_isa_max = o->driver.ptx_isa_max, .zstd_ok = o->driver.zstd_ok,
				 .force_ptx_jit = o->force_jit && inv->format != DC_CUBIN,
				 .disable_ptx_jit = o->disable_jit, .family = o->family, .n_family = o->n_family};
	struct compat_image *imgs = NULL;
	size_t cap = 0;
	memset(j, 0, sizeof(*j));
	j->first_chosen = j->first_failing = -1;
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
			to_compat(&inv->images[c->first_image + k], &imgs[k]);
		struct compat_choice ch;
		compat_choose(imgs, c->n_images, &env, &ch);
		bool fails = ch.outcome != COMPAT_SASS && ch.outcome != COMPAT_JIT;
		/* Kernel-less containers (nvlink stubs) are not judged. They matter only
		 * when they would fail or JIT (a stub that has SASS changes nothing), and
		 * only images of stub size are decompressed to find out. */
		if ((fails || ch.outcome == COMPAT_JIT) && stubs[ci] < 0)
			stubs[ci] = container_kernel_less(inv, c);
		if (stubs[ci] == 1) {
			j->stubs++;
			continue;
		}
		if (fails) {
			if (j->first_failing < 0)
				j->first_failing = (long)ci;
			if (ch.outcome == COMPAT_PTX_TOO_NEW)
				for (uint32_t k = 0; k < c->n_images; k++)
					if (imgs[k].kind == COMPAT_KIND_PTX && imgs[k].ptx_isa > j->newest_ptx_isa)
						j->newest_ptx_isa = imgs[k].ptx_isa;
		} else if (j->first_chosen < 0 ||
			   (ch.outcome == COMPAT_JIT && inv->images[j->first_chosen].kind != FATBIN_KIND_PTX)) {
			j->first_chosen = (long)(c->first_image + (size_t)ch.image);
		}
		j->judged++;
		if (inv->progress && c->file_offset + c->size <= f->size)
			inv->progress(f->data + c->file_offset + c->size, inv->progress_ctx);
		if (ch.zstd_unloadable)
			j->zstd_unloadable++;
		compat_tally_add(&j->tally, ch.outcome);
	}
	free(imgs);
	return CD_OK;
}

/* "sm_80, sm_86, compute_90" — the distinct archs in a file's primary containers (or in
 * one container), in order of first appearance. */
static char *archs_present(const struct dc_inventory *inv, long only_container, bool primary)
{
	struct key {
		uint16_t kind;
		unsigned arch;
		char suffix;
	} seen[64];
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
		seen[n_seen++] = (struct key){im->kind, im->arch, im->suffix};
		char a[32];
		dc_image_arch_name(im, a, sizeof(a));
		if (sb.len)
			sb_append(&sb, ", ");
		sb_append(&sb, a);
	}
	if (!sb.len)
		sb_append(&sb, "no SASS or PTX");
	return sb_detach(&sb);
}

static void isa_text(unsigned isa, char *buf, size_t cap)
{
	snprintf(buf, cap, "%u.%u", isa / 100, isa % 100);
}

/* PyTorch's own CUDA libraries (torch/lib/libtorch_cuda.so, ...): fixed by another wheel */
static bool looks_like_torch(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return strstr(path, "/torch/lib/") != NULL || strncmp(base, "libtorch", 8) == 0 ||
	       strncmp(base, "libc10", 6) == 0;
}

/* Fix lines are shell lines: a command with what to adapt, and a comment saying why. */
static void build_fixes(struct finding *fd, const char *path, unsigned cc)
{
	unsigned major = cc / 10, minor = cc % 10;
	if (looks_like_torch(path)) {
		finding_fix(fd, "python -c 'import torch; print(torch.cuda.get_arch_list())'   # the archs this torch was built for");
		finding_fix(fd, "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu130   # a build whose list has sm_%u (pick the CUDA tag your driver runs)", cc);
		finding_fix(fd, "TORCH_CUDA_ARCH_LIST=\"%u.%u+PTX\" python setup.py develop   # when building PyTorch from source", major, minor);
	} else {
		finding_fix(fd, "nvcc -gencode arch=compute_%u,code=sm_%u -gencode arch=compute_%u,code=compute_%u ...   # SASS for this GPU + PTX for newer ones",
			    cc, cc, cc, cc);
		finding_fix(fd, "cmake -DCMAKE_CUDA_ARCHITECTURES=\"%u-real;%u-virtual\" ...   # or \"native\" for the GPUs of the build machine", cc, cc);
		finding_fix(fd, "TORCH_CUDA_ARCH_LIST=\"%u.%u+PTX\" pip install --no-build-isolation .   # PyTorch extensions", major, minor);
	}
	/* toolkits drop old archs (CUDA 13 cannot build sm_70): say which ones still can */
	const struct kb_toolkit *first, *last;
	struct kb_arch a = {(int)cc, 0};
	if (kb_arch_toolkit_range(a, &first, &last) == CD_OK && last)
		finding_fix(fd, "# CUDA %s is the last toolkit that builds sm_%u: use it (or older) for this GPU", last->release_text, cc);
	else if (kb_arch_toolkit_range(a, &first, &last) != CD_OK)
		finding_fix(fd, "# no CUDA toolkit cudoctor knows builds sm_%u yet: a newer toolkit, or PTX for an older arch", cc);
}

static const char *cache_dir_note(void)
{
	return "the JIT cache lives in $CUDA_CACHE_PATH, by default ~/.nv/ComputeCache (CUDA_CACHE_MAXSIZE bounds it)";
}

/* Adds the findings of one (file, GPU) and writes the reason sentence. */
static void conclude(struct report *r, const struct arch_file *f, const struct arch_opts *o,
		     const struct arch_gpu *g, const struct gpu_judgement *j, enum compat_verdict v,
		     bool pooled, char *reason, size_t cap)
{
	const struct dc_inventory *inv = &f->inv;
	char subject[512], isa[16], drv[16] = "";
	unsigned major = g->cc / 10, minor = g->cc % 10;
	snprintf(subject, sizeof(subject), "%s on %s", f->path, g->name);
	char *all = archs_present(inv, -1, !pooled);
	char *bad = j->first_failing >= 0 ? archs_present(inv, j->first_failing, true) : NULL;
	size_t failing = j->tally.no_image + j->tally.ptx_too_new + j->tally.jit_disabled;
	if (o->driver.ptx_isa_max)
		isa_text(o->driver.ptx_isa_max, drv, sizeof(drv));
	struct finding *fd = NULL;
	char chosen[32] = "";
	if (j->first_chosen >= 0)
		dc_image_arch_name(&inv->images[j->first_chosen], chosen, sizeof(chosen));
	switch (v) {
	case VERDICT_NATIVE:
		if (pooled)
			snprintf(reason, cap, "SASS that this %u.%u GPU runs as-is is there (%s)", major, minor, chosen);
		else
			snprintf(reason, cap, "every container with kernels has SASS this %u.%u GPU runs as-is (%s)",
				 major, minor, chosen);
		break;
	case VERDICT_JIT:
		if (pooled) {
			snprintf(reason, cap, "no SASS for %u.%u, but PTX the driver can JIT (%s): the first load pays a "
				 "compile cost, and %s", major, minor, chosen, cache_dir_note());
			break;
		}
		snprintf(reason, cap,
			 "%zu of %zu containers have no SASS for %u.%u; the driver JIT-compiles their PTX (%s): "
			 "the first launch pays a compile cost, and %s",
			 j->tally.jit, j->judged, major, minor, chosen, cache_dir_note());
		break;
	case VERDICT_PARTIAL:
		snprintf(reason, cap,
			 "%zu of %zu containers have no image for %u.%u (one holds only %s); kernels in them fail "
			 "with error 209 while the rest run. Libraries often carry arch-specific extras they only "
			 "use on those GPUs",
			 failing, j->judged, major, minor, bad ? bad : "?");
		/* a few arch-specific extras are normal in libraries; most containers failing is not */
		fd = report_add_finding(r, 2 * failing >= j->judged ? SEV_WARN : SEV_INFO, "partial-kernel-image", subject,
					"%zu of %zu kernel containers have no image for compute capability %u.%u",
					failing, j->judged, major, minor);
		if (fd) {
			finding_evidence(fd, "file carries: %s", all ? all : "?");
			finding_evidence(fd, "a container without an image for %u.%u holds: %s", major, minor, bad ? bad : "?");
			finding_why(fd, "Each container (one registered module) is judged on its own: the driver needs SASS "
				    "of the GPU's major version with a minor no higher, or PTX it can JIT. Containers that "
				    "hold only another GPU's arch-specific code are harmless if the library never calls them here.");
			build_fixes(fd, f->path, g->cc);
		}
		break;
	case VERDICT_NO_IMAGE:
		snprintf(reason, cap,
			 "no SASS for %u.%u and no PTX the driver can JIT (file carries %s): every launch fails with "
			 "error 209 \"no kernel image is available for execution on the device\"",
			 major, minor, all ? all : "?");
		if (o->force_jit && inv->format != DC_CUBIN)
			strncat(reason, " (CUDA_FORCE_PTX_JIT is set, so SASS is ignored)", cap - strlen(reason) - 1);
		fd = report_add_finding(r, SEV_ERROR, "no-kernel-image", subject,
					"no kernel image for compute capability %u.%u (error 209)", major, minor);
		if (fd) {
			finding_evidence(fd, "file carries: %s", all ? all : "?");
			finding_evidence(fd, "%s has compute capability %u.%u", g->name, major, minor);
			if (o->force_jit)
				finding_evidence(fd, "CUDA_FORCE_PTX_JIT is set: the driver ignores SASS");
			finding_why(fd, "SASS runs only on GPUs of the same major compute capability with an equal or higher "
				    "minor (sm_XYa: exactly X.Y; sm_XYf: its family); PTX compute_XY can be JIT-compiled for "
				    "any GPU of capability X.Y or higher. This file has neither for %u.%u.", major, minor);
			if (o->force_jit)
				finding_fix(fd, "unset CUDA_FORCE_PTX_JIT CUDA_FORCE_JIT   # let the driver use the SASS");
			build_fixes(fd, f->path, g->cc);
		}
		break;
	case VERDICT_PTX_TOO_NEW:
		isa_text(j->newest_ptx_isa, isa, sizeof(isa));
		snprintf(reason, cap,
			 "only PTX fits %u.%u and its ISA %s is newer than this driver's JIT accepts (%s): error 222 "
			 "\"the provided PTX was compiled with an unsupported toolchain\"",
			 major, minor, isa, drv[0] ? drv : "?");
		fd = report_add_finding(r, SEV_ERROR, "ptx-too-new", subject,
					"PTX ISA %s is newer than the driver's JIT (%s) (error 222)", isa, drv);
		if (fd) {
			finding_evidence(fd, "newest PTX ISA in the file: %s; driver (%s) JIT accepts up to %s", isa,
					 o->driver.source, drv);
			finding_why(fd, "The driver JIT-compiles PTX only up to the ISA version of the CUDA release it "
				    "belongs to; PTX from a newer toolkit needs a newer driver.");
			const char *need = arch_ptx_isa_min_driver(j->newest_ptx_isa);
			if (need)
				finding_fix(fd, "# install NVIDIA driver %s or newer: the first whose JIT takes PTX ISA %s", need, isa);
			else
				finding_fix(fd, "# install an NVIDIA driver whose CUDA version emits PTX ISA %s or newer", isa);
			finding_fix(fd, "nvcc -gencode arch=compute_%u,code=sm_%u ...   # or ship SASS for this GPU", g->cc, g->cc);
			finding_fix(fd, "# or build the PTX with a toolkit no newer than the driver's CUDA version");
		}
		break;
	case VERDICT_JIT_DISABLED:
		snprintf(reason, cap,
			 "only PTX fits %u.%u and CUDA_DISABLE_PTX_JIT forbids compiling it: error 223 \"PTX JIT "
			 "compilation was disabled\" (unless the JIT cache already holds the result)",
			 major, minor);
		fd = report_add_finding(r, SEV_ERROR, "jit-disabled", subject,
					"only PTX fits compute capability %u.%u and the JIT is disabled (error 223)", major, minor);
		if (fd) {
			finding_evidence(fd, "CUDA_DISABLE_PTX_JIT (or CUDA_DISABLE_JIT) is set");
			finding_evidence(fd, "file carries: %s", all ? all : "?");
			finding_why(fd, "With the JIT disabled the driver may only use SASS built for this GPU; this file "
				    "has PTX but no fitting SASS.");
			finding_fix(fd, "unset CUDA_DISABLE_PTX_JIT CUDA_DISABLE_JIT   # let the driver compile the PTX");
			build_fixes(fd, f->path, g->cc);
		}
		break;
	case VERDICT_NONE:
		snprintf(reason, cap, "no container with kernels to judge");
		break;
	}
	if (pooled) {
		/* the sentence above speaks of containers; say what was judged instead */
		char tmp[1024];
		snprintf(tmp, sizeof(tmp),
			 "judged on the images outside .nv_fatbin, which the program loads itself (the containers the "
			 "CUDA runtime registers hold no kernels): %s", reason);
		snprintf(reason, cap, "%s", tmp);
	}
	if (j->zstd_unloadable) {
		fd = report_add_finding(r, SEV_ERROR, "zstd-needs-newer-driver", subject,
					"%zu container(s) would load a Zstandard-compressed image the driver cannot read (error 200)",
					j->zstd_unloadable);
		if (fd) {
			finding_evidence(fd, "driver (%s): CUDA %d.%d", o->driver.source, o->driver.cuda / 1000,
					 (o->driver.cuda % 1000) / 10);
			finding_why(fd, "Zstandard fatbin compression (nvcc --compress-mode=default/balance/size, the CUDA 13 "
				    "default for PTX) needs a driver of CUDA 12.4 (%s) or newer; older ones fail with "
				    "\"device kernel image is invalid\".", arch_zstd_min_driver());
			finding_fix(fd, "# install NVIDIA driver %s or newer", arch_zstd_min_driver());
			finding_fix(fd, "nvcc --compress-mode=speed ...   # or rebuild with LZ4 (or --compress-mode=none)");
		}
	}
	free(all);
	free(bad);
}

/* Files whose registered containers hold no kernels but whose other sections do (cuFFT's
 * .ldata, a program's own embedded fatbin): those images are loaded by the program itself,
 * container by container as it sees fit, so they are judged as one pool: does any image
 * fit this GPU? */
static bool judge_pool(const struct arch_file *f, const struct arch_opts *o, const struct arch_gpu *g,
		       struct gpu_judgement *j)
{
	const struct dc_inventory *inv = &f->inv;
	struct compat_env env = {.cc = g->cc, .ptx_isa_max = o->driver.ptx_isa_max, .zstd_ok = o->driver.zstd_ok,
				 .force_ptx_jit = o->force_jit, .disable_ptx_jit = o->disable_jit,
				 .family = o->family, .n_family = o->n_family};
	size_t n = 0;
	struct compat_image *imgs = malloc((inv->n_images ? inv->n_images : 1) * sizeof(*imgs));
	size_t *index = malloc((inv->n_images ? inv->n_images : 1) * sizeof(*index));
	memset(j, 0, sizeof(*j));
	j->first_chosen = j->first_failing = -1;
	if (!imgs || !index) {
		free(imgs);
		free(index);
		return false;
	}
	for (size_t i = 0; i < inv->n_images; i++) {
		const struct dc_image *im = &inv->images[i];
		if (inv->containers[im->container].primary ||
		    (im->kind != FATBIN_KIND_ELF && im->kind != FATBIN_KIND_PTX))
			continue;
		to_compat(im, &imgs[n]);
		index[n++] = i;
	}
	if (n) {
		struct compat_choice ch;
		compat_choose(imgs, n, &env, &ch);
		if (ch.image >= 0)
			j->first_chosen = (long)index[ch.image];
		if (ch.outcome == COMPAT_PTX_TOO_NEW)
			for (size_t k = 0; k < n; k++)
				if (imgs[k].kind == COMPAT_KIND_PTX && imgs[k].ptx_isa > j->newest_ptx_isa)
					j->newest_ptx_isa = imgs[k].ptx_isa;
		compat_tally_add(&j->tally, ch.outcome);
		j->judged = 1;
		j->zstd_unloadable = ch.zstd_unloadable;
	}
	free(imgs);
	free(index);
	return n > 0;
}

json_t *arch_judge_file(struct report *r, const struct arch_file *f, const struct arch_opts *o)
{
	json_t *arr = json_array();
	signed char *stubs = stub_cache(&f->inv);
	if (!arr || !stubs)
		goto oom;
	for (size_t gi = 0; gi < o->n_gpus; gi++) {
		const struct arch_gpu *g = &o->gpus[gi];
		struct gpu_judgement j;
		if (judge_gpu(f, o, g, stubs, &j))
			goto oom;
		enum compat_verdict v = compat_verdict_of(&j.tally);
		bool pooled = false;
		if (v == VERDICT_NONE && judge_pool(f, o, g, &j)) {
			pooled = true;
			v = compat_verdict_of(&j.tally);
		}
		if (v == VERDICT_NONE)
			continue;
		char reason[1024], cc[16];
		conclude(r, f, o, g, &j, v, pooled, reason, sizeof(reason));
		snprintf(cc, sizeof(cc), "%u.%u", g->cc / 10, g->cc % 10);
		json_t *jv = json_object();
		if (!jv || json_array_append_new(arr, jv))
			goto oom;
		json_object_set_new(jv, "gpu", json_string(g->name));
		json_object_set_new(jv, "compute_capability", json_string(cc));
		json_object_set_new(jv, "result", json_string(compat_verdict_name(v)));
		if (j.first_chosen >= 0 && (v == VERDICT_NATIVE || v == VERDICT_JIT || v == VERDICT_PARTIAL)) {
			char a[32];
			dc_image_arch_name(&f->inv.images[j.first_chosen], a, sizeof(a));
			json_object_set_new(jv, "image", json_string(a));
		}
		json_object_set_new(jv, "reason", json_string(reason));
		json_object_set_new(jv, "containers_without_image",
				    json_integer((json_int_t)(j.tally.no_image + j.tally.ptx_too_new + j.tally.jit_disabled)));
		json_object_set_new(jv, "containers_judged", json_integer((json_int_t)j.judged));
		json_object_set_new(jv, "containers_jit", json_integer((json_int_t)j.tally.jit));
		json_object_set_new(jv, "containers_without_kernels", json_integer((json_int_t)j.stubs));
		report_kv(r, g->name, "%s: %s", compat_verdict_name(v), reason);
	}
	free(stubs);
	return arr;
oom:
	free(stubs);
	json_decref(arr);
	return NULL;
}
