/* `arch` listings: the image table (text), the images array (JSON), cuobjdump's
 * --list-elf --list-ptx lines, and kernel names (--kernels). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfmt/cubin.h"
#include "util/sort.h"
#include "binfmt/decompress.h"
#include "binfmt/ptx.h"
#include "cmd/arch/arch.h"
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

static const char *kind_name(uint16_t kind)
{
	const char *n = fatbin_kind_name(kind);
	return n ? n : "other";
}

/* Text tables: unknown kinds keep their number, "other(16)". */
static const char *kind_text(uint16_t kind, char *buf, size_t cap)
{
	if (fatbin_kind_name(kind))
		return fatbin_kind_name(kind);
	snprintf(buf, cap, "other(%u)", kind);
	return buf;
}

/* A kernel name is bytes from the file: one that is not UTF-8 (which jansson refuses) is
 * listed as util/safetext.h makes it. */
static int add_name(const char *name, void *ctx)
{
	json_t *s = json_string(name);
	if (!s) {
		char *safe = safe_text_dup(name, strlen(name), 4096, 0);
		s = safe ? json_string(safe) : NULL;
		free(safe);
	}
	return json_array_append_new((json_t *)ctx, s) ? CD_ENOMEM : CD_OK;
}

json_t *arch_image_kernels(struct dc_inventory *inv, const struct dc_image *im, char *err)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	json_t *names = json_array();
	int rc;
	err[0] = 0; /* a failure that says nothing (a callback's) still gets words below */
	if (!names) {
		cd_fail(err, CD_ENOMEM, "out of memory");
		return NULL;
	}
	if (im->kind != FATBIN_KIND_ELF && im->kind != FATBIN_KIND_PTX)
		return names;
	if ((rc = dc_image_bytes(inv, im, KERNELS_CAP, &buf, &len, err)))
		goto fail;
	if (im->kind == FATBIN_KIND_ELF)
		rc = cubin_kernels(buf, len, add_name, names, err);
	else
		rc = ptx_entries(buf, len, add_name, names, err);
	free(buf);
	if (rc)
		goto fail;
	return names;
fail:
	if (!err[0])
		cd_fail(err, rc, "%s", cd_strerror(rc));
	json_decref(names);
	return NULL;
}

static json_t *image_json(struct arch_file *f, const struct dc_image *im, const struct arch_opts *o)
{
	const struct dc_container *c = &f->inv.containers[im->container];
	char arch[32], isa[16];
	dc_image_arch_name(im, arch, sizeof(arch));
	json_t *j = json_object();
	if (!j)
		return NULL;
	int bad = json_object_set_new(j, "kind", json_string(kind_name(im->kind)));
	if (!fatbin_kind_name(im->kind))
		bad |= json_object_set_new(j, "kind_number", json_integer(im->kind));
	bad |= json_object_set_new(j, "arch", json_string(arch));
	bad |= json_object_set_new(j, "section", json_string(f->inv.sections[c->section]));
	if (c->member >= 0)
		bad |= json_object_set_new(j, "member", json_string(f->inv.members[c->member]));
	if (im->kind == FATBIN_KIND_PTX) {
		snprintf(isa, sizeof(isa), "%u.%u", im->ptx_major, im->ptx_minor);
		bad |= json_object_set_new(j, "ptx_isa", json_string(isa));
	}
	bad |= json_object_set_new(j, "compression", json_string(compression_name(im->compression)));
	bad |= json_object_set_new(j, "stored_bytes", json_integer((json_int_t)im->stored_bytes));
	bad |= json_object_set_new(j, "uncompressed_bytes", json_integer((json_int_t)im->uncompressed_bytes));
	bad |= json_object_set_new(j, "debug", json_boolean(im->debug));
	if (im->identifier)
		bad |= json_object_set_new(j, "identifier", json_string(im->identifier));
	bad |= json_object_set_new(j, "container", json_integer(im->container));
	bad |= json_object_set_new(j, "offset", json_integer((json_int_t)im->file_offset));
	if (o->kernels) {
		char err[CD_ERRMSG] = "";
		json_t *k = arch_image_kernels(&f->inv, im, err);
		if (k)
			bad |= json_object_set_new(j, "kernels", k);
		else
			bad |= json_object_set_new(j, "kernels_error", json_string(err));
	}
	if (bad) {
		json_decref(j);
		return NULL;
	}
	return j;
}

json_t *arch_images_json(struct arch_file *f, const struct arch_opts *o)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < f->inv.n_images; i++) {
		json_t *j = image_json(f, &f->inv.images[i], o);
		if (!j || json_array_append_new(arr, j)) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static int kernels_line(struct report *r, struct dc_inventory *inv, const struct dc_image *im, size_t index)
{
	char err[CD_ERRMSG] = "", arch[32];
	dc_image_arch_name(im, arch, sizeof(arch));
	json_t *k = arch_image_kernels(inv, im, err);
	if (!k)
		return report_line(r, "#%zu %s kernels: (cannot read: %s)", index, arch, err);
	struct strbuf sb;
	sb_init(&sb);
	size_t i;
	json_t *v;
	json_array_foreach(k, i, v)
	{
		if (i)
			sb_append(&sb, ", ");
		sb_append(&sb, json_string_value(v));
	}
	int rc = report_line(r, "#%zu %s kernels (%zu): %s", index, arch, json_array_size(k),
			     sb.buf ? sb.buf : "none");
	sb_free(&sb);
	json_decref(k);
	return rc;
}

/* Summary rows: images grouped by (section, member, arch, kind, compression), listed in
 * that order: architectures in kb_arch_cmp's order within a section and member. */
struct group_ref {
	const struct dc_inventory *inv;
	size_t index, count;
};

static long long group_key_cmp(const struct group_ref *x, const struct group_ref *y)
{
	const struct dc_image *a = &x->inv->images[x->index], *b = &y->inv->images[y->index];
	const struct dc_container *ca = &x->inv->containers[a->container], *cb = &y->inv->containers[b->container];
	if (ca->section != cb->section)
		return (long long)ca->section - cb->section;
	if (ca->member != cb->member)
		return (long long)ca->member - cb->member;
	int arch = kb_arch_cmp((struct kb_arch){(int)a->arch, a->suffix}, (struct kb_arch){(int)b->arch, b->suffix});
	if (arch)
		return arch;
	if (a->kind != b->kind)
		return (long long)a->kind - b->kind;
	return (long long)a->compression - b->compression;
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

int arch_list_text(struct report *r, struct arch_file *f, const struct arch_opts *o)
{
	struct dc_inventory *inv = &f->inv;
	bool full = o->verbose || inv->n_images <= FULL_TABLE_MAX;
	if (full) {
		static const char *const hdr[] = {"#", "kind", "arch", "ptx", "compression", "stored",
						  "uncompressed", "debug", "identifier", "member", "section"};
		report_table(r, 11, hdr);
		for (size_t i = 0; i < inv->n_images; i++) {
			const struct dc_image *im = &inv->images[i];
			const struct dc_container *c = &inv->containers[im->container];
			char idx[24], arch[32], isa[16] = "", st[24], un[24];
			snprintf(idx, sizeof(idx), "%zu", i + 1);
			dc_image_arch_name(im, arch, sizeof(arch));
			if (im->kind == FATBIN_KIND_PTX)
				snprintf(isa, sizeof(isa), "%u.%u", im->ptx_major, im->ptx_minor);
			units_fmt_bytes(im->stored_bytes, st, sizeof(st));
			units_fmt_bytes(im->uncompressed_bytes, un, sizeof(un));
			char kb[24];
			const char *row[] = {idx, kind_text(im->kind, kb, sizeof(kb)), arch, isa, compression_name(im->compression),
					     st, un, im->debug ? "yes" : "", im->identifier ? im->identifier : "",
					     c->member >= 0 ? inv->members[c->member] : "",
					     inv->sections[c->section][0] ? inv->sections[c->section] : "(file)"};
			report_table_row(r, row);
		}
	} else {
		static const char *const hdr[] = {"images", "kind", "arch", "compression", "member", "section"};
		report_table(r, 6, hdr);
		size_t n = inv->n_images, ngroups = 0;
		struct group_ref *refs = malloc(n * sizeof(*refs));
		struct group_ref *groups = malloc(n * sizeof(*groups));
		if (!refs || !groups) {
			free(refs);
			free(groups);
			return CD_ENOMEM;
		}
		for (size_t i = 0; i < n; i++) {
			refs[i].inv = inv;
			refs[i].index = i;
			refs[i].count = 1;
		}
		cd_qsort(refs, n, sizeof(*refs), by_group_key);
		for (size_t i = 0; i < n; i++) {
			if (ngroups && same_group(&groups[ngroups - 1], &refs[i]))
				groups[ngroups - 1].count++;
			else
				groups[ngroups++] = refs[i];
		}
		for (size_t g = 0; g < ngroups; g++) {
			const struct dc_image *a = &inv->images[groups[g].index];
			const struct dc_container *ca = &inv->containers[a->container];
			char cnt[24], arch[32];
			snprintf(cnt, sizeof(cnt), "%zu", groups[g].count);
			dc_image_arch_name(a, arch, sizeof(arch));
			char kb[24];
			const char *row[] = {cnt, kind_text(a->kind, kb, sizeof(kb)), arch, compression_name(a->compression),
					     ca->member >= 0 ? inv->members[ca->member] : "",
					     inv->sections[ca->section][0] ? inv->sections[ca->section] : "(file)"};
			report_table_row(r, row);
		}
		free(refs);
		free(groups);
		report_line(r, "(%zu images grouped; -v lists each one, --json has them all)", inv->n_images);
	}
	if (o->kernels)
		for (size_t i = 0; i < inv->n_images; i++)
			if (inv->images[i].kind == FATBIN_KIND_ELF || inv->images[i].kind == FATBIN_KIND_PTX)
				kernels_line(r, inv, &inv->images[i], i + 1);
	return r->oom ? CD_ENOMEM : CD_OK;
}

/* cuobjdump's name stem: the file name without directory and without its last extension. */
static void stem_of(const char *path, char *buf, size_t cap)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	snprintf(buf, cap, "%s", base);
	char *dot = strrchr(buf, '.');
	if (dot && dot != buf)
		*dot = 0;
}

int arch_cuobjdump_lines(const struct arch_file *f, unsigned *elf_no, unsigned *ptx_no, FILE *out)
{
	const struct dc_inventory *inv = &f->inv;
	char stem[256];
	stem_of(f->path, stem, sizeof(stem));
	int member = -1;
	char real[4096];
	const char *shown = realpath(f->path, real) ? real : f->path; /* cuobjdump prints it resolved */
	if (inv->format == DC_PTX)
		return CD_OK; /* cuobjdump: "does not contain device code" */
	for (size_t i = 0; i < inv->n_images; i++) {
		const struct dc_image *im = &inv->images[i];
		const struct dc_container *c = &inv->containers[im->container];
		if (!c->primary || (im->kind != FATBIN_KIND_ELF && im->kind != FATBIN_KIND_PTX))
			continue;
		if (c->member >= 0 && c->member != member) {
			member = c->member;
			fprintf(out, "\nmember %s:%s:\n", shown, inv->members[member]);
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
