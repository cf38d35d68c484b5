/* `arch` on AMD device code: the table of a file's code objects (offload bundle entries and
 * bare code objects) and the "code_objects" array (with --kernels their kernels), and
 * llvm-readobj --offloading's lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfmt/amdgpu_co.h"
#include "binfmt/elf.h"
#include "binfmt/elf_needed.h"
#include "cmd/arch/arch.h"
#include "util/err.h"
#include "util/safetext.h"
#include "util/sort.h"
#include "util/str.h"

static const char *feature_name(enum hipfb_feature f)
{
	return f == HIPFB_FEAT_ON ? "on" : f == HIPFB_FEAT_OFF ? "off" : "any";
}

/* "plain", "ccob v3 zstd", "code object" */
static void form_text(const struct dc_hip_bundle *b, char *buf, size_t cap)
{
	if (b->form == DC_HIP_CCOB)
		snprintf(buf, cap, "ccob v%u %s", b->ccob_version, b->method == HIPFB_ZSTD ? "zstd" : "zlib");
	else
		snprintf(buf, cap, "%s", b->form == DC_HIP_BUNDLE ? "plain" : "code object");
}

static const char *compression_of(const struct dc_hip_bundle *b)
{
	return b->form != DC_HIP_CCOB ? "none" : b->method == HIPFB_ZSTD ? "zstd" : "zlib";
}

/* Code object i: a row of the full table, or (JSON) an object of "code_objects". */
static void code_object_fields(struct report_rec *w, const struct dc_inventory *inv, size_t i, size_t row)
{
	const struct dc_hip_entry *e = &inv->hip_entries[i];
	const struct dc_hip_bundle *b = &inv->hip_bundles[e->bundle];
	const char *section = inv->sections[b->section];
	char target[64], form[32];

	dc_hip_entry_name(e, target, sizeof target);
	form_text(b, form, sizeof form);
	report_field(w, "#", NULL, rv_int((long long)row));
	report_field(w, "target", "target", rv_str(target));
	report_field(w, "bundle", "bundle_format", rv_str(form));
	report_field(w, "size", "size_bytes", rv_bytes(e->size));
	report_fieldf(w, "section", "section", rv_str(section), "%s", section[0] ? section : "(file)");
	if (b->member >= 0)
		report_field(w, "member", "member", rv_str(inv->members[b->member]));
	report_field(w, NULL, "id", rv_str(e->id));
	report_field(w, NULL, "arch", rv_str(e->arch));
	report_field(w, NULL, "processor", rv_str(e->target_known ? e->target.processor : NULL));
	report_field(w, NULL, "xnack", rv_str(e->target_known ? feature_name(e->target.xnack) : NULL));
	report_field(w, NULL, "sramecc", rv_str(e->target_known ? feature_name(e->target.sramecc) : NULL));
	report_field(w, NULL, "compression", rv_str(compression_of(b)));
	report_field(w, NULL, "bundle", rv_int(e->bundle));
	report_field(w, NULL, "bundle_offset", rv_int((long long)b->file_offset));
	report_field(w, NULL, "offset_in_bundle", rv_int((long long)e->offset));
}

/* A row per (section, member, target, form) past FULL_ROWS code objects unless -v: ROCm
 * libraries hold thousands of bundles of the same dozen targets. */
#define FULL_ROWS 40

struct group {
	uint32_t section;
	int member;
	char target[64];
	char form[32];
	size_t count;
};

static int group_cmp(const void *p, const void *q)
{
	const struct group *x = p, *y = q;
	if (x->section != y->section)
		return x->section < y->section ? -1 : 1;
	if (x->member != y->member)
		return x->member < y->member ? -1 : 1;
	int c = str_natcmp(x->target, y->target);
	return c ? c : strcmp(x->form, y->form);
}

static int grouped_table(struct report_rec *w, const struct dc_inventory *inv, size_t n_device)
{
	static const char *const hdr[] = {"code objects", "target", "bundle", "member", "section"};
	struct group *g = malloc((n_device ? n_device : 1) * sizeof(*g));
	size_t n = 0, ng = 0;
	struct report_rec tab, row;

	if (!g)
		return CD_ENOMEM;
	for (size_t i = 0; i < inv->n_hip_entries; i++) {
		const struct dc_hip_entry *e = &inv->hip_entries[i];
		const struct dc_hip_bundle *b = &inv->hip_bundles[e->bundle];
		if (e->host)
			continue;
		g[n] = (struct group){.section = b->section, .member = b->member, .count = 1};
		dc_hip_entry_name(e, g[n].target, sizeof g[n].target);
		form_text(b, g[n].form, sizeof g[n].form);
		n++;
	}
	cd_qsort(g, n, sizeof(*g), group_cmp);
	for (size_t i = 0; i < n; i++) {
		if (ng && group_cmp(&g[ng - 1], &g[i]) == 0)
			g[ng - 1].count++;
		else
			g[ng++] = g[i];
	}
	report_rec_table(w, NULL, 5, hdr, &tab);
	for (size_t k = 0; k < ng; k++) {
		const char *section = inv->sections[g[k].section];
		report_rec_item(&tab, &row);
		report_fieldf(&row, "code objects", NULL, rv_null(), "%zu", g[k].count);
		report_field(&row, "target", NULL, rv_str(g[k].target));
		report_field(&row, "bundle", NULL, rv_str(g[k].form));
		if (g[k].member >= 0)
			report_field(&row, "member", NULL, rv_str(inv->members[g[k].member]));
		report_field(&row, "section", NULL, rv_str(section[0] ? section : "(file)"));
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	free(g);
	return report_rec_end(&tab);
}

size_t arch_hip_device_entries(const struct dc_inventory *inv)
{
	size_t n = 0;
	for (size_t i = 0; i < inv->n_hip_entries; i++)
		n += !inv->hip_entries[i].host;
	return n;
}

void arch_hip_fields(struct report_rec *file, struct arch_file *f, const struct arch_opts *o)
{
	static const char *const hdr[] = {"#", "target", "bundle", "size", "member", "section"};
	const struct dc_inventory *inv = &f->inv;
	size_t n = arch_hip_device_entries(inv), row = 0;
	bool full = o->verbose || n <= FULL_ROWS;
	struct report_rec list, it;
	int rc;

	report_field(file, NULL, "offload_bundles", rv_int((long long)inv->n_hip_bundles));
	report_field(file, NULL, "hip_wrappers", rv_int((long long)inv->hip_wrappers));
	if (!o->json || !n) {
		report_rec_array(file, "code_objects", &list); /* text alone needs no objects */
		if (report_rec_end(&list) != CD_OK)
			return; /* the failure is file's now */
	}
	if (!n)
		return;
	if (full) {
		report_rec_table(file, o->json ? "code_objects" : NULL, 6, hdr, &list);
	} else if (o->json) {
		report_rec_array(file, "code_objects", &list);
		report_rec_text(&list, REPORT_TEXT_NONE);
	}
	if (full || o->json) {
		for (size_t i = 0; i < inv->n_hip_entries; i++) {
			if (inv->hip_entries[i].host)
				continue;
			report_rec_item(&list, &it);
			code_object_fields(&it, inv, i, ++row);
			if (o->kernels && o->json) { /* the kernels' text is a line each, after the table */
				char err[CD_ERRMSG] = "";
				if (arch_hip_kernel_names(f, i, &it, err) != CD_OK)
					report_field(&it, NULL, "kernels_error", rv_str(err));
			}
			if (report_rec_end(&it) != CD_OK)
				break;
		}
		if (report_rec_end(&list) != CD_OK)
			return;
	}
	if (!full) {
		if ((rc = grouped_table(file, inv, n)) != CD_OK) {
			report_rec_fail(file, rc);
			return;
		}
		report_rec_line(file, "(%zu code objects in %zu bundles grouped; -v lists each one, --json has them all)", n,
				inv->n_hip_bundles);
	}
	if (o->kernels)
		arch_hip_kernels_lines(file, f);
}

int arch_llvm_offloading_lines(const struct arch_file *f, FILE *out)
{
	const struct dc_inventory *inv = &f->inv;
	char path[4 * 4096];

	safe_text(path, sizeof path, f->path, strlen(f->path), 0);
	for (size_t i = 0; i < inv->n_hip_entries; i++) {
		const struct dc_hip_entry *e = &inv->hip_entries[i];
		const struct dc_hip_bundle *b = &inv->hip_bundles[e->bundle];
		/* LLVM gives a plain bundle's entries as offsets in the file, a compressed one's as
		 * offsets in the bundle it inflates to; it reads no bare code object */
		if (b->form == DC_HIP_CODE_OBJECT)
			continue;
		unsigned long long off = b->form == DC_HIP_BUNDLE ? b->file_offset + e->offset : e->offset;
		fprintf(out, "%s\tfile://%s#offset=%llu&size=%llu\n", e->id, path, off, (unsigned long long)e->size);
	}
	return ferror(out) ? CD_EIO : CD_OK;
}

/* LLVM's names of an ELF file's format and machine (ELFObjectFile::getFileFormatName,
 * Triple::getArchTypeName) for the machines cudoctor meets. */
static void elf_names(const struct elf_file *e, const char **format, const char **arch)
{
	switch (e->machine) {
	case 62:
		*format = "elf64-x86-64", *arch = "x86_64";
		break;
	case 183:
		*format = e->is64 ? "elf64-littleaarch64" : "elf32-littlearm", *arch = e->is64 ? "aarch64" : "arm";
		break;
	case 21:
		*format = "elf64-powerpcle", *arch = "powerpc64le";
		break;
	case 3:
		*format = "elf32-i386", *arch = "i386";
		break;
	case ELF_EM_AMDGPU:
		*format = "elf64-amdgpu", *arch = "amdgcn";
		break;
	default:
		*format = e->is64 ? "elf64-unknown" : "elf32-unknown", *arch = "unknown";
	}
}

int arch_llvm_summary(const struct arch_file *f, struct strbuf *sb)
{
	struct elf_file e;
	const char *format, *arch, *soname;
	char path[4 * 4096], load[1024];

	if (f->member || !elf_has_magic(f->data, f->size) || elf_open(&e, f->data, f->size, NULL) != CD_OK)
		return CD_OK; /* llvm-readobj reads object files alone */
	elf_names(&e, &format, &arch);
	soname = elf_soname(&e);
	safe_text(path, sizeof path, f->path, strlen(f->path), 0);
	safe_text(load, sizeof load, soname ? soname : "<Not found>", strlen(soname ? soname : "<Not found>"), 0);
	sb_printf(sb, "\nFile: %s\nFormat: %s\nArch: %s\nAddressSize: %dbit\nLoadName: %s\n", path, format, arch,
		  e.is64 ? 64 : 32, load);
	return sb->failed ? CD_ENOMEM : CD_OK;
}
