/* `arch` listings: the image table and the images array written once, cuobjdump's
 * --list-elf --list-ptx lines, and kernel names (--kernels). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfmt/cubin.h"
#include "os/fs.h"
#include "util/sort.h"
#include "binfmt/decompress.h"
#include "binfmt/ptx.h"
#include "cmd/arch/arch.h"
#include "facts/devcode.h"
#include "kb/arch_name.h"
#include "util/err.h"
#include "util/safetext.h"
#include "util/str.h"
#include "util/units.h"

#define KERNELS_CAP ((size_t)256 << 20) /* largest image --kernels decompresses */

static const char *compression_name(enum fatbin_compression c)
{
	return c == FATBIN_LZ4 ? "lz4" : c == FATBIN_ZSTD ? "zstd" : "none";
}

/* Text tables: unknown kinds keep their number, "other(16)". */
static const char *kind_text(uint16_t kind, char *buf, size_t cap)
{
	if (fatbin_kind_name(kind))
		return fatbin_kind_name(kind);
	snprintf(buf, cap, "other(%u)", kind);
	return buf;
}

int arch_image_kernels(struct dc_inventory *inv, const struct dc_image *im, int (*each)(const char *name, void *ctx),
		       void *ctx, char *err)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	int rc;

	err[0] = 0; /* a failure that says nothing (a callback's) still gets words below */
	if (im->kind != FATBIN_KIND_ELF && im->kind != FATBIN_KIND_PTX)
		return CD_OK;
	if ((rc = dc_image_bytes(inv, im, KERNELS_CAP, &buf, &len, err)))
		goto fail;
	if (im->kind == FATBIN_KIND_ELF)
		rc = cubin_kernels(buf, len, each, ctx, err);
	else
		rc = ptx_entries(buf, len, each, ctx, err);
	free(buf);
	if (rc)
		goto fail;
	return CD_OK;
fail:
	if (!err[0])
		cd_fail(err, rc, "%s", cd_strerror(rc));
	return rc;
}

/* The kernel names of one image, as read. */
struct names {
	char **v;
	size_t n, cap;
};

static int add_name(const char *name, void *ctx)
{
	struct names *ns = ctx;

	if (ns->n == ns->cap) {
		size_t cap = ns->cap ? 2 * ns->cap : 16;
		char **grown = realloc(ns->v, cap * sizeof(*grown));

		if (!grown)
			return CD_ENOMEM;
		ns->v = grown;
		ns->cap = cap;
	}
	if (!(ns->v[ns->n] = cd_strdup(name)))
		return CD_ENOMEM;
	ns->n++;
	return CD_OK;
}

static void names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
}

/* "kernels": the names; a kernel name is bytes from the file, which the record makes safe
 * text */
static void names_field(struct report_rec *w, const struct names *ns)
{
	struct report_rec a;

	report_rec_array(w, "kernels", &a);
	for (size_t k = 0; k < ns->n; k++)
		report_rec_push(&a, rv_str(ns->v[k]));
	if (report_rec_end(&a) != CD_OK)
		return; /* the failure is w's now */
}

/* Image i: a row of the full table (each label is a column) or, JSON only, an object of
 * "images". */
static void image_fields(struct report_rec *w, struct arch_file *f, size_t i, const struct arch_opts *o)
{
	struct dc_image_ref ref = { &f->inv, i };

	report_fields(w, &dc_image_field_table, &ref, FIELD_ALL);
	if (o->kernels && o->json) { /* the kernels' text is a line each, after the table */
		char err[CD_ERRMSG] = "";
		struct names ns = { 0 };

		if (arch_image_kernels(&f->inv, &f->inv.images[i], add_name, &ns, err) != CD_OK) {
			report_field(w, NULL, "kernels_error", rv_str(err));
		} else {
			names_field(w, &ns);
		}
		names_free(&ns);
	}
}

static void kernels_line(struct report_rec *w, struct dc_inventory *inv, const struct dc_image *im, size_t index)
{
	char err[CD_ERRMSG] = "", arch[32];
	struct names ns = { 0 };
	struct strbuf sb;

	dc_image_arch_name(im, arch, sizeof(arch));
	if (arch_image_kernels(inv, im, add_name, &ns, err) != CD_OK) {
		report_rec_line(w, "#%zu %s kernels: (cannot read: %s)", index, arch, err);
		names_free(&ns);
		return;
	}
	sb_init(&sb);
	for (size_t k = 0; k < ns.n; k++)
		sb_printf(&sb, "%s%s", k ? ", " : "", ns.v[k]);
	report_rec_line(w, "#%zu %s kernels (%zu): %s", index, arch, ns.n, sb.buf ? sb.buf : "none");
	sb_free(&sb);
	names_free(&ns);
}

/* Summary rows: images grouped by (section, member, arch, kind, compression), listed in
 * that order: architectures in kb_arch_cmp's order within a section and member. Each image's
 * key is copied out first: sorting cuFFT's 23,984 images through the inventory's images and
 * containers cost a tenth of arch's run. */
struct group_ref {
	uint32_t section;
	int member;
	struct kb_arch arch;
	uint16_t kind;
	enum fatbin_compression compression;
	size_t index, count;
};

static long long group_key_cmp(const struct group_ref *x, const struct group_ref *y)
{
	if (x->section != y->section)
		return (long long)x->section - y->section;
	if (x->member != y->member)
		return (long long)x->member - y->member;
	int arch = kb_arch_cmp(x->arch, y->arch);
	if (arch)
		return arch;
	if (x->kind != y->kind)
		return (long long)x->kind - y->kind;
	return (long long)x->compression - y->compression;
}

static bool same_group(const struct group_ref *x, const struct group_ref *y)
{
	return group_key_cmp(x, y) == 0;
}

static int by_group_key(const void *p, const void *q)
{
	const struct group_ref *x = p, *y = q;
	long long c = group_key_cmp(x, y);
	if (c)
		return c < 0 ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* A file with many images gets one row per (section, member, arch, kind, compression)
 * unless -v: libcublasLt alone has 6,000 images. */
#define FULL_TABLE_MAX 40

/* The grouped table: a row per (section, member, arch, kind, compression) with its count. */
static int grouped_table(struct report_rec *w, const struct dc_inventory *inv)
{
	static const char *const hdr[] = { "images", "kind", "arch", "compression", "member", "section" };
	size_t n = inv->n_images, ngroups = 0;
	struct group_ref *refs = malloc(n * sizeof(*refs)), *groups = malloc(n * sizeof(*groups));
	struct report_rec tab, row;

	if (!refs || !groups) {
		free(refs);
		free(groups);
		return CD_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct dc_image *im = &inv->images[i];
		const struct dc_container *c = &inv->containers[im->container];
		refs[i] = (struct group_ref){.section = c->section, .member = c->member,
					     .arch = {(int)im->arch, im->suffix}, .kind = im->kind,
					     .compression = im->compression, .index = i, .count = 1};
	}
	cd_qsort(refs, n, sizeof(*refs), by_group_key);
	for (size_t i = 0; i < n; i++) {
		if (ngroups && same_group(&groups[ngroups - 1], &refs[i]))
			groups[ngroups - 1].count++;
		else
			groups[ngroups++] = refs[i];
	}
	report_rec_table(w, NULL, 6, hdr, &tab);
	for (size_t g = 0; g < ngroups; g++) {
		const struct dc_image *a = &inv->images[groups[g].index];
		const struct dc_container *ca = &inv->containers[a->container];
		const char *section = inv->sections[ca->section];
		char arch[32], kind[24];

		dc_image_arch_name(a, arch, sizeof(arch));
		report_rec_item(&tab, &row);
		report_fieldf(&row, "images", NULL, rv_null(), "%zu", groups[g].count);
		report_field(&row, "kind", NULL, rv_str(kind_text(a->kind, kind, sizeof(kind))));
		report_field(&row, "arch", NULL, rv_str(arch));
		report_field(&row, "compression", NULL, rv_str(compression_name(a->compression)));
		if (ca->member >= 0)
			report_field(&row, "member", NULL, rv_str(inv->members[ca->member]));
		report_field(&row, "section", NULL, rv_str(section[0] ? section : "(file)"));
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	free(refs);
	free(groups);
	return report_rec_end(&tab);
}

void arch_images_fields(struct report_rec *file, struct arch_file *f, const struct arch_opts *o)
{
	static const char *const hdr[] = { "#", "kind", "arch", "ptx", "compression", "stored",
					   "uncompressed", "debug", "identifier", "member", "section" };
	struct dc_inventory *inv = &f->inv;
	bool full = o->verbose || inv->n_images <= FULL_TABLE_MAX;
	struct report_rec list, it;
	int rc;

	if (!o->json || !inv->n_images) { /* text alone needs no objects: 6,000 of them in one library */
		report_rec_array(file, "images", &list);
		if (report_rec_end(&list) != CD_OK)
			return; /* the failure is file's now */
	}
	if (!inv->n_images)
		return;
	if (full) {
		report_rec_table(file, o->json ? "images" : NULL, 11, hdr, &list);
	} else if (o->json) {
		report_rec_array(file, "images", &list);
		report_rec_text(&list, REPORT_TEXT_NONE); /* the text groups them */
	}
	if (full || o->json) {
		for (size_t i = 0; i < inv->n_images; i++) {
			report_rec_item(&list, &it);
			image_fields(&it, f, i, o);
			if (report_rec_end(&it) != CD_OK)
				break;
		}
		if (report_rec_end(&list) != CD_OK)
			return; /* the failure is file's now */
	}
	if (!full) {
		if ((rc = grouped_table(file, inv)) != CD_OK) {
			report_rec_fail(file, rc);
			return;
		}
		report_rec_line(file, "(%zu images grouped; -v lists each one, --json has them all)", inv->n_images);
	}
	if (o->kernels)
		for (size_t i = 0; i < inv->n_images; i++)
			if (inv->images[i].kind == FATBIN_KIND_ELF || inv->images[i].kind == FATBIN_KIND_PTX)
				kernels_line(file, inv, &inv->images[i], i + 1);
}

/* cuobjdump's name stem: the file name without directory and without its last extension,
 * as safe text (a file or member name is anyone's bytes; this listing prints them itself).
 * The directory ends at the platform's separator, on Windows a backslash too: cuobjdump.exe
 * names the images of Z:\dir\nvjpeg64_12.dll "nvjpeg64_12.1.sm_100.cubin". */
static void stem_of(const char *path, char *buf, size_t cap)
{
	const char *base = os_last_sep(path), *dot;
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	safe_text(buf, cap, base, dot && dot != base ? (size_t)(dot - base) : strlen(base), 0);
}

int arch_cuobjdump_lines(const struct arch_file *f, unsigned *elf_no, unsigned *ptx_no, FILE *out)
{
	const struct dc_inventory *inv = &f->inv;
	char stem[256];
	stem_of(f->member ? f->member : f->path, stem, sizeof(stem));
	int member = -1;
	char real[4096], shown[4 * 4096], name[1024];
	const char *path = !f->member && os_realpath(f->path, real, sizeof real) ? real : f->path; /* cuobjdump prints it resolved */
	safe_text(shown, sizeof shown, path, strlen(path), 0);
	if (inv->format == DC_PTX)
		return CD_OK; /* cuobjdump: "does not contain device code" */
	for (size_t i = 0; i < inv->n_images; i++) {
		const struct dc_image *im = &inv->images[i];
		const struct dc_container *c = &inv->containers[im->container];
		if (!c->primary || (im->kind != FATBIN_KIND_ELF && im->kind != FATBIN_KIND_PTX))
			continue;
		if (c->member >= 0 && c->member != member) {
			member = c->member;
			safe_text(name, sizeof name, inv->members[member], strlen(inv->members[member]), 0);
			fprintf(out, "\nmember %s:%s:\n", shown, name);
		}
		bool elf = im->kind == FATBIN_KIND_ELF;
		unsigned no = elf ? ++*elf_no : ++*ptx_no;
		char arch[32];
		if (elf && im->elf_read)
			snprintf(arch, sizeof(arch), "sm_%u%s", im->elf_sm, im->elf_a ? "a" : "");
		else if (elf)
			snprintf(arch, sizeof(arch), "sm_%u%s", im->arch, im->suffix == 'a' ? "a" : "");
		else if (im->suffix)
			snprintf(arch, sizeof(arch), "sm_%u%c", im->arch, im->suffix);
		else
			snprintf(arch, sizeof(arch), "sm_%u", im->arch);
		const char *ext = elf ? "cubin" : "ptx";
		const char *label = elf ? "ELF" : "PTX";
		if (im->identifier) {
			char id[256];
			stem_of(im->identifier, id, sizeof(id));
			fprintf(out, "%s file %4u: %s.%s.%s\n", label, no, id, arch, ext);
		} else if (inv->format == DC_CUBIN || inv->format == DC_PTX) {
			fprintf(out, "%s file %4u: %s.%s.%s\n", label, no, stem, arch, ext);
		} else {
			fprintf(out, "%s file %4u: %s.%u.%s.%s\n", label, no, stem, no, arch, ext);
		}
	}
	return ferror(out) ? CD_EIO : CD_OK;
}
