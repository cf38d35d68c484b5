/* Builds a dc_inventory: recognises the file kind, finds the fatbin regions (named
 * sections, then a magic scan of other data sections) and records every entry. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "binfmt/devcode.h"
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "binfmt/ar.h"
#include "binfmt/amdgpu_co.h"
#include "binfmt/decompress.h"
#include "binfmt/cubin.h"
#include "binfmt/devcode_hip.h"
#include "binfmt/elf.h"
#include "binfmt/pe.h"
#include "binfmt/ptx.h"
#include "util/err.h"
#include "util/safetext.h"
#include "util/str.h"
#include "util/units.h"

#define SEC_NV_FATBIN ".nv_fatbin"
#define SEC_RELFATBIN "__nv_relfatbin"

void dc_init(struct dc_inventory *inv)
{
	memset(inv, 0, sizeof(*inv));
	inv->format = DC_NO_DEVICE_CODE;
}

void dc_free(struct dc_inventory *inv)
{
	for (size_t i = 0; i < inv->n_images; i++)
		free(inv->images[i].identifier);
	for (size_t i = 0; i < inv->n_sections; i++)
		free(inv->sections[i]);
	for (size_t i = 0; i < inv->n_members; i++)
		free(inv->members[i]);
	free(inv->images);
	free(inv->containers);
	free(inv->sections);
	free(inv->members);
	dc_hip_free(inv);
	void (*progress)(const unsigned char *, void *) = inv->progress;
	void *ctx = inv->progress_ctx;
	dc_init(inv);
	inv->progress = progress;
	inv->progress_ctx = ctx;
}

const char *dc_format_name(enum dc_format f)
{
	static const char *const names[] = {"executable", "shared-library", "object", "archive",
					    "fatbin", "cubin", "ptx", "offload-bundle", "code-object",
					    "no-device-code"};
	return (unsigned)f < sizeof(names) / sizeof(names[0]) ? names[f] : "unknown";
}

void dc_image_arch_name(const struct dc_image *im, char *buf, size_t cap)
{
	const char *pre = im->kind == FATBIN_KIND_PTX ? "compute_" : im->kind == FATBIN_KIND_NVVM ? "lto_" : "sm_";
	if (im->suffix)
		snprintf(buf, cap, "%s%u%c", pre, im->arch, im->suffix);
	else
		snprintf(buf, cap, "%s%u", pre, im->arch);
}

static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return CD_OK;
	size_t nc = *cap ? *cap * 2 : 16;
	void *p = realloc(*arr, nc * elem);
	if (!p)
		return CD_ENOMEM;
	*arr = p;
	*cap = nc;
	return CD_OK;
}

/* Distinct section names kept; in a crafted file with more (each holding a container) the
 * rest share one name, so a lookup never costs more than this many comparisons. */
#define MAX_SECTION_NAMES 1024

/* A section name is kept to this many bytes (a crafted table can give every section one name
 * megabytes long), as safe text: it is printed and put in JSON. */
#define MAX_SECTION_NAME 256

int dc_intern_section(struct dc_inventory *inv, const char *full, size_t full_len, uint32_t *idx)
{
	char name[MAX_SECTION_NAME + 1];

	if (inv->n_sections >= MAX_SECTION_NAMES) {
		full = "(other sections)";
		full_len = strlen(full);
	}
	safe_text(name, sizeof name, full, strnlen(full, full_len < MAX_SECTION_NAME + 1 ? full_len : MAX_SECTION_NAME + 1), 0);
	/* newest first: consecutive containers mostly share a section */
	for (size_t k = inv->n_sections; k > 0; k--)
		if (strcmp(inv->sections[k - 1], name) == 0) {
			*idx = (uint32_t)(k - 1);
			return CD_OK;
		}
	char **p = realloc(inv->sections, (inv->n_sections + 1) * sizeof(*p));
	if (!p)
		return CD_ENOMEM;
	inv->sections = p;
	if (!(p[inv->n_sections] = cd_strdup(name)))
		return CD_ENOMEM;
	*idx = (uint32_t)inv->n_sections++;
	return CD_OK;
}

static struct dc_image *new_image(struct dc_inventory *inv)
{
	if (grow((void **)&inv->images, &inv->cap_images, inv->n_images, sizeof(struct dc_image)))
		return NULL;
	struct dc_image *im = &inv->images[inv->n_images++];
	memset(im, 0, sizeof(*im));
	return im;
}

static struct dc_container *new_container(struct dc_inventory *inv)
{
	if (grow((void **)&inv->containers, &inv->cap_containers, inv->n_containers,
		 sizeof(struct dc_container)))
		return NULL;
	struct dc_container *c = &inv->containers[inv->n_containers++];
	memset(c, 0, sizeof(*c));
	c->first_image = (uint32_t)inv->n_images;
	return c;
}

static void read_elf_name(struct dc_image *im)
{
	struct cubin_info ci;
	if (im->compression != FATBIN_RAW || !cubin_is_cubin(im->payload, im->payload_len))
		return;
	if (cubin_read(im->payload, im->payload_len, &ci, NULL) == CD_OK) {
		im->elf_read = true;
		im->elf_sm = ci.sm;
		im->elf_a = ci.arch_specific;
	}
}

static int add_entry(struct dc_inventory *inv, const struct fatbin_entry *e, size_t base, unsigned opts)
{
	struct dc_image *im = new_image(inv);
	if (!im)
		return CD_ENOMEM;
	im->kind = e->kind;
	im->arch = e->arch;
	const char *suf = fatbin_arch_suffix(e->flags);
	im->suffix = suf[0];
	if (e->kind == FATBIN_KIND_PTX) {
		im->ptx_major = e->version_major;
		im->ptx_minor = e->version_minor;
	}
	im->compression = fatbin_entry_compression(e);
	im->stored_bytes = e->payload_len;
	im->uncompressed_bytes = fatbin_entry_image_size(e);
	im->flags = e->flags;
	im->debug = (e->flags & FATBIN_FLAG_DEBUG) != 0;
	im->file_offset = base + e->offset;
	im->payload = e->payload;
	im->payload_len = e->payload_len;
	if (e->ident && e->ident_len) {
		/* the source file name nvcc was given: bytes from the file, printed and put in JSON */
		char *id = safe_text_dup(e->ident, e->ident_len, 1024, 0);
		if (!id)
			return CD_ENOMEM;
		im->identifier = id;
	}
	im->container = (uint32_t)(inv->n_containers - 1);
	if ((opts & DC_READ_ELF) && e->kind == FATBIN_KIND_ELF)
		read_elf_name(im);
	return CD_OK;
}

/* Walks the container at data[off] (data ends at region end) and records it. */
static int add_container(struct dc_inventory *inv, const unsigned char *data, size_t end, size_t off,
			 size_t base, const char *section_name, size_t name_len, int member, bool primary,
			 unsigned opts, size_t *next, char *err)
{
	struct fatbin_container c;
	struct fatbin_entry e;
	int rc = fatbin_container_open(&c, data, end, off, err);
	if (rc)
		return rc;
	uint32_t section;
	struct dc_container *dc;
	if (dc_intern_section(inv, section_name, name_len, &section) || !(dc = new_container(inv)))
		return cd_fail(err, CD_ENOMEM, "out of memory");
	dc->section = section;
	dc->member = member;
	dc->file_offset = base + off;
	dc->size = c.end - c.offset;
	dc->primary = primary;
	while ((rc = fatbin_next_entry(&c, &e, err)) == 1) {
		if ((rc = add_entry(inv, &e, base, opts)))
			return cd_fail(err, rc, "out of memory");
		inv->containers[inv->n_containers - 1].n_images++;
	}
	if (rc < 0)
		return rc;
	*next = c.end;
	if (inv->progress)
		inv->progress(data + c.end, inv->progress_ctx);
	return CD_OK;
}

/* Back-to-back containers from data[start] to data[end] (zero padding tolerated). */
static int walk_region(struct dc_inventory *inv, const unsigned char *data, size_t start, size_t end,
		       size_t base, const char *section, size_t name_len, int member, bool primary, unsigned opts,
		       char *err)
{
	size_t pos = start;
	while (pos < end && end - pos >= 8) {
		static const unsigned char zero[8];
		if (memcmp(data + pos, zero, 8) == 0) {
			pos += 8;
			continue;
		}
		int rc = add_container(inv, data, end, pos, base, section, name_len, member, primary, opts, &pos, err);
		if (rc)
			return rc;
	}
	return CD_OK;
}

/* Containers found by magic anywhere in data[start..end); each validated by a full walk.
 * Searched in slices so a caller's progress hook can release pages behind us. */
#define SCAN_SLICE ((size_t)8 << 20)
static int scan_region(struct dc_inventory *inv, const unsigned char *data, size_t start, size_t end,
		       size_t base, const char *section, size_t name_len, int member, unsigned opts, char *err)
{
	size_t pos = start;
	while (pos < end) {
		size_t until = end - pos > SCAN_SLICE ? pos + SCAN_SLICE : end;
		size_t hit = fatbin_scan(data, end, pos, until); /* aligned to the ELF's start */
		if (hit >= end) {
			pos = until;
			if (inv->progress)
				inv->progress(data + pos, inv->progress_ctx);
			continue;
		}
		int rc = add_container(inv, data, end, hit, base, section, name_len, member, false, opts, &pos, err);
		if (rc)
			return rc;
	}
	return CD_OK;
}

static bool worth_scanning(const struct elf_section *s)
{
	static const char *const skip[] = {".eh_frame", ".gcc_except", ".got", ".debug", ".comment",
					   ".note", ".tdata", ".nvFatBinSegment", "__nv_module_id",
					   ".init", ".fini", ".stapsdt", ".interp", ".dynamic", ".plt"};
	if (s->type != ELF_SHT_PROGBITS || (s->flags & ELF_SHF_EXECINSTR) || s->size < 80)
		return false;
	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (str_starts_with(s->name, skip[i]))
			return false;
	return true;
}

/* ELF sections that hold containers outside .nv_fatbin in real libraries (cuBLASLt and
 * cuDNN: .cask_resource; cuFFT: .ldata; cuSPARSE: .rodata; a program's own embedded fatbin:
 * .rodata or .data), searched in this order. Each of NVIDIA's libraries keeps them in one
 * section, so the search stops after the first that holds any: reading every data section
 * of cuBLASLt (270 MB) costs more than all the rest of arch. DC_SCAN_EVERY_SECTION searches
 * them all. */
static const char *const search_order[] = {".cask_resource", ".ldata", ".rodata", ".data"};
#define N_SEARCH_RANKS (sizeof(search_order) / sizeof(search_order[0]))
#define RANK_NONE (-1) /* not searched unless every section is */

static int search_rank(const char *name, size_t len)
{
	for (size_t k = 0; k < N_SEARCH_RANKS; k++)
		if (len == strlen(search_order[k]) && memcmp(name, search_order[k], len) == 0)
			return (int)k;
	return RANK_NONE;
}

/* One section of a host binary as the walk sees it, whatever the container format. */
struct region {
	uint64_t offset, size;
	const char *name;           /* inside the file, name_len bytes */
	size_t name_len;
	size_t index;               /* the section's index: ties in offset keep table order */
	int rank;                   /* place in search_order, or RANK_NONE */
	bool named;                 /* a fatbin section, walked from its start */
	bool worth;                 /* may hold a container, searched by magic when asked */
	bool nobits;
};

static int by_offset(const void *a, const void *b)
{
	const struct region *x = a, *y = b;
	return x->offset < y->offset ? -1 : x->offset > y->offset ? 1 : (x->index > y->index) - (x->index < y->index);
}

#define RANK_ANY (-2) /* a pass over every section worth searching */

/* One pass in offset order: walks the named sections when walk_named, and searches the
 * sections of the given rank. Named sections count as covered in every pass, and a search
 * stops where the next named section starts (next_named[k]: the offset of the first named
 * section at or after r[k]), so no container is found twice. */
static int walk_pass(struct dc_inventory *inv, const unsigned char *data, size_t size, const struct region *r,
		     const uint64_t *next_named, size_t n, bool walk_named, int rank, const char *primary,
		     size_t base, int member, unsigned opts, char *err)
{
	/* every byte is walked or scanned once: sections that overlap what an earlier one covered
	 * (crafted: thousands of sections over one region) add only what lies beyond it */
	size_t covered = 0;
	for (size_t k = 0; k < n; k++) {
		const struct region *s = &r[k];
		bool search = !s->named && s->worth && (rank == RANK_ANY || (rank >= 0 && s->rank == rank));
		if ((!s->named && !search) || s->nobits)
			continue;
		if (!in_bounds(s->offset, s->size, size))
			return cd_fail(err, CD_EFORMAT, "section %.*s (offset 0x%llx, %llu bytes) is outside the file",
				       (int)(s->name_len < 64 ? s->name_len : 64), s->name,
				       (unsigned long long)s->offset, (unsigned long long)s->size);
		size_t start = (size_t)s->offset, end = start + (size_t)s->size;
		if (!s->named && k + 1 < n && next_named[k + 1] < end)
			end = next_named[k + 1] > start ? (size_t)next_named[k + 1] : start;
		if (end <= covered || (s->named && start < covered))
			continue;
		if (start < covered)
			start = (covered + 7) & ~(size_t)7;
		covered = end;
		bool is_primary = primary && s->name_len == strlen(primary) && memcmp(s->name, primary, s->name_len) == 0;
		int rc = CD_OK;
		if (s->named && walk_named)
			rc = walk_region(inv, data, start, end, base, s->name, s->name_len, member, is_primary, opts, err);
		else if (!s->named && start < end)
			rc = scan_region(inv, data, start, end, base, s->name, s->name_len, member, opts, err);
		if (rc)
			return rc;
	}
	return CD_OK;
}

static int by_file_offset(const void *a, const void *b)
{
	const struct dc_container *x = a, *y = b;
	return (x->file_offset > y->file_offset) - (x->file_offset < y->file_offset);
}

/* Puts the containers found since c0, and their images, back in file order: the named
 * sections are walked before the others are searched, and listings follow the file. */
static int restore_file_order(struct dc_inventory *inv, size_t c0, char *err)
{
	size_t n = inv->n_containers - c0, sorted = 1;
	while (sorted < n && inv->containers[c0 + sorted - 1].file_offset <= inv->containers[c0 + sorted].file_offset)
		sorted++;
	if (sorted >= n)
		return CD_OK;
	struct dc_container *c = inv->containers + c0;
	size_t i0 = c[0].first_image, n_img = inv->n_images - i0;
	/* file offsets of containers are distinct (no byte is walked twice): any sort is stable */
	cd_qsort(c, n, sizeof(*c), by_file_offset);
	if (n_img == 0) /* containers without entries */
		return CD_OK;
	struct dc_image *img = malloc(n_img * sizeof(*img));
	if (!img)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	size_t at = 0;
	for (size_t j = 0; j < n; j++) {
		if (c[j].n_images)
			memcpy(img + at, inv->images + c[j].first_image, c[j].n_images * sizeof(*img));
		c[j].first_image = (uint32_t)(i0 + at);
		for (size_t i = 0; i < c[j].n_images; i++)
			img[at + i].container = (uint32_t)(c0 + j);
		at += c[j].n_images;
	}
	memcpy(inv->images + i0, img, n_img * sizeof(*img));
	free(img);
	return CD_OK;
}

/* Walks the named fatbin sections and, when asked, searches the others (search_order, or
 * all with DC_SCAN_EVERY_SECTION): the same for ELF and PE files. primary: the section the
 * runtime registers (NULL: none). */
static int walk_regions(struct dc_inventory *inv, const unsigned char *data, size_t size, struct region *r,
			size_t n, const char *primary, size_t base, int member, unsigned opts, char *err)
{
	size_t c0 = inv->n_containers;
	cd_qsort(r, n, sizeof(*r), by_offset);
	bool scan = (opts & DC_SCAN_ALL_SECTIONS) || ((opts & DC_SCAN_IF_CUDA) && primary);
	uint64_t *next_named = malloc((n ? n : 1) * sizeof(*next_named));
	if (!next_named)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	for (size_t k = n, at = SIZE_MAX; k > 0; k--)
		next_named[k - 1] = at = r[k - 1].named && !r[k - 1].nobits ? r[k - 1].offset : at;
	int rc;
	if (scan && (opts & DC_SCAN_EVERY_SECTION)) {
		rc = walk_pass(inv, data, size, r, next_named, n, true, RANK_ANY, primary, base, member, opts, err);
		goto out;
	}
	rc = walk_pass(inv, data, size, r, next_named, n, true, RANK_NONE, primary, base, member, opts, err);
	for (int k = 0; scan && rc == CD_OK && k < (int)N_SEARCH_RANKS; k++) {
		size_t before = inv->n_containers;
		rc = walk_pass(inv, data, size, r, next_named, n, false, k, primary, base, member, opts, err);
		if (inv->n_containers > before)
			break;
	}
out:
	free(next_named);
	return rc ? rc : restore_file_order(inv, c0, err);
}

static bool has_interp(const struct elf_file *e)
{
	struct elf_section s;
	return elf_find_section(e, ".interp", &s, NULL) == CD_OK;
}

/* HIP's sections: clang puts a translation unit's offload bundle in .hip_fatbin, and the
 * wrapper the runtime registers it by in .hipFatBinSegment. */
#define SEC_HIP_FATBIN ".hip_fatbin"
#define SEC_HIP_SEGMENT ".hipFatBinSegment"

static int scan_hip_sections(struct dc_inventory *inv, const struct elf_file *e, size_t base, int member, char *err)
{
	struct elf_section s;
	int rc;

	for (size_t i = 1; i < e->shnum; i++) {
		if ((rc = elf_section_at(e, i, &s, err)))
			return rc;
		if (s.type == ELF_SHT_NOBITS)
			continue;
		bool bundles = strcmp(s.name, SEC_HIP_FATBIN) == 0, wrappers = strcmp(s.name, SEC_HIP_SEGMENT) == 0;
		if (!bundles && !wrappers)
			continue;
		if (!in_bounds(s.offset, s.size, e->size))
			return cd_fail(err, CD_EFORMAT, "section %s (offset 0x%llx, %llu bytes) is outside the file", s.name,
				       (unsigned long long)s.offset, (unsigned long long)s.size);
		if (wrappers)
			inv->hip_wrappers += hipfb_wrapper_count(e->data + s.offset, (size_t)s.size);
		else if ((rc = dc_hip_scan_region(inv, e->data, (size_t)s.offset, (size_t)(s.offset + s.size), base, s.name,
						  strlen(s.name), member, err)))
			return rc;
	}
	return CD_OK;
}

static int scan_host_elf(struct dc_inventory *inv, const struct elf_file *e, size_t base, int member,
			 unsigned opts, char *err)
{
	struct elf_section s;
	const char *primary = NULL;
	if (elf_find_section(e, SEC_NV_FATBIN, &s, NULL) == CD_OK)
		primary = SEC_NV_FATBIN;
	else if (elf_find_section(e, SEC_RELFATBIN, &s, NULL) == CD_OK)
		primary = SEC_RELFATBIN;
	struct region *r = calloc(e->shnum ? e->shnum : 1, sizeof(*r));
	if (!r)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	size_t n = 0;
	int rc = CD_OK;
	for (size_t i = 1; i < e->shnum; i++) {
		if ((rc = elf_section_at(e, i, &s, err)))
			goto out;
		r[n] = (struct region){.offset = s.offset, .size = s.size, .name = s.name,
				       .name_len = strnlen(s.name, MAX_SECTION_NAME + 1), .index = i,
				       .rank = search_rank(s.name, strnlen(s.name, MAX_SECTION_NAME + 1)),
				       .named = strcmp(s.name, SEC_NV_FATBIN) == 0 || strcmp(s.name, SEC_RELFATBIN) == 0,
				       .worth = worth_scanning(&s), .nobits = s.type == ELF_SHT_NOBITS};
		n++;
	}
	rc = walk_regions(inv, e->data, e->size, r, n, primary, base, member, opts, err);
	if (rc == CD_OK)
		rc = scan_hip_sections(inv, e, base, member, err);
out:
	free(r);
	return rc;
}

/* A PE section that may hold a container: initialised, non-executable data that the
 * loader keeps (not relocations, exception tables, imports or resources). */
static bool pe_worth_scanning(const struct pe_section *s)
{
	static const char *const skip[] = {PE_SEC_FATBIN_SEGMENT, ".reloc", ".pdata", ".xdata", ".idata",
					   ".edata", ".rsrc", ".tls", ".CRT", ".debug"};
	if (!(s->characteristics & PE_SCN_INITIALIZED_DATA) ||
	    (s->characteristics & (PE_SCN_EXECUTE | PE_SCN_CODE | PE_SCN_DISCARDABLE)) || s->size < 80)
		return false;
	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (s->name_len >= strlen(skip[i]) && memcmp(s->name, skip[i], strlen(skip[i])) == 0)
			return false;
	return true;
}

/* A PE image: the runtime registers the containers of .nv_fatb (ELF's .nv_fatbin, cut to
 * eight bytes); .nvFatBi holds the wrappers that point into it, not followed. */
static int scan_pe(struct dc_inventory *inv, const struct pe_file *pe, unsigned opts, char *err)
{
	struct pe_section s;
	struct region *r = calloc(pe->n_sections ? pe->n_sections : 1, sizeof(*r));
	const char *primary = NULL;
	if (!r)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	size_t n = 0;
	int rc = CD_OK;
	for (size_t i = 0; i < pe->n_sections; i++) {
		if ((rc = pe_section_at(pe, i, &s, err)))
			goto out;
		bool named = pe_section_is(&s, PE_SEC_NV_FATBIN) || pe_section_is(&s, SEC_NV_FATBIN);
		if (named && !primary)
			primary = pe_section_is(&s, SEC_NV_FATBIN) ? SEC_NV_FATBIN : PE_SEC_NV_FATBIN;
		r[n++] = (struct region){.offset = s.offset, .size = s.size, .name = s.name, .name_len = s.name_len,
					 .index = i, .rank = 0, .named = named, .worth = pe_worth_scanning(&s),
					 .nobits = s.size == 0};
	}
	rc = walk_regions(inv, pe->data, pe->size, r, n, primary, 0, -1, opts, err);
	/* HIP on Windows: .hip_fatbin cut to eight bytes, as .nv_fatbin is */
	for (size_t i = 0; rc == CD_OK && i < pe->n_sections; i++) {
		if ((rc = pe_section_at(pe, i, &s, err)) || !(pe_section_is(&s, ".hip_fat") || pe_section_is(&s, SEC_HIP_FATBIN)))
			continue;
		if (!in_bounds(s.offset, s.size, pe->size))
			rc = cd_fail(err, CD_EFORMAT, "section %.8s is outside the file", s.name);
		else
			rc = dc_hip_scan_region(inv, pe->data, (size_t)s.offset, (size_t)(s.offset + s.size), 0, s.name,
						s.name_len, -1, err);
	}
out:
	free(r);
	return rc;
}

/* A bare cubin or PTX file: one primary container holding one image, the whole file. */
static int add_whole_file(struct dc_inventory *inv, const unsigned char *data, size_t size, struct dc_image **out,
			  char *err)
{
	uint32_t sec;
	struct dc_container *c;
	struct dc_image *im;
	if (dc_intern_section(inv, "", 0, &sec) || !(c = new_container(inv)) || !(im = new_image(inv)))
		return cd_fail(err, CD_ENOMEM, "out of memory");
	c->section = sec;
	c->member = -1;
	c->size = size;
	c->n_images = 1;
	c->primary = true;
	im->stored_bytes = im->uncompressed_bytes = size;
	im->payload = data;
	im->payload_len = size;
	*out = im;
	return CD_OK;
}

static int add_cubin(struct dc_inventory *inv, const unsigned char *data, size_t size, char *err)
{
	struct cubin_info ci;
	struct dc_image *im;
	int rc = cubin_read(data, size, &ci, err);
	if (rc || (rc = add_whole_file(inv, data, size, &im, err)))
		return rc;
	im->kind = FATBIN_KIND_ELF;
	im->arch = ci.sm;
	im->suffix = ci.arch_specific ? 'a' : 0;
	im->elf_read = true;
	im->elf_sm = ci.sm;
	im->elf_a = ci.arch_specific;
	return CD_OK;
}

static int add_ptx(struct dc_inventory *inv, const unsigned char *data, size_t size, char *err)
{
	struct ptx_info pi;
	struct dc_image *im;
	int rc = ptx_read(data, size, &pi, err);
	if (rc || (rc = add_whole_file(inv, data, size, &im, err)))
		return rc;
	im->kind = FATBIN_KIND_PTX;
	im->arch = pi.target;
	im->suffix = pi.target_suffix;
	im->ptx_major = pi.isa_major;
	im->ptx_minor = pi.isa_minor;
	return CD_OK;
}

static int scan_archive(struct dc_inventory *inv, const unsigned char *data, size_t size, unsigned opts,
			char *err)
{
	struct ar_iter it;
	struct ar_member m;
	int rc = ar_open(&it, data, size, err);
	if (rc)
		return rc;
	while ((rc = ar_next(&it, &m, err)) == 1) {
		if (!elf_has_magic(m.data, m.size))
			continue;
		char **p = realloc(inv->members, (inv->n_members + 1) * sizeof(*p));
		if (!p)
			return cd_fail(err, CD_ENOMEM, "out of memory");
		inv->members = p;
		if (!(p[inv->n_members] = cd_strdup(m.name)))
			return cd_fail(err, CD_ENOMEM, "out of memory");
		int idx = (int)inv->n_members++;
		struct elf_file e;
		char sub[CD_ERRMSG];
		if ((rc = elf_open(&e, m.data, m.size, sub)) ||
		    (rc = scan_host_elf(inv, &e, m.offset, idx, opts, sub)))
			return cd_fail(err, rc, "member %s: %s", m.name, sub);
	}
	return rc;
}

/* The kinds of input dc_scan reads, by their first bytes (a cubin is an ELF file with
 * NVIDIA's machine; which ELF it is needs its headers) */
enum sniffed { SNIFF_NONE, SNIFF_ARCHIVE, SNIFF_ELF, SNIFF_PE, SNIFF_FATBIN, SNIFF_BUNDLE, SNIFF_PTX };

static enum sniffed sniff(const unsigned char *data, size_t size)
{
	if (!data || !size)
		return SNIFF_NONE;
	if (ar_has_magic(data, size))
		return SNIFF_ARCHIVE;
	if (elf_has_magic(data, size))
		return SNIFF_ELF;
	if (pe_has_magic(data, size))
		return SNIFF_PE;
	if (size >= FATBIN_HEADER_SIZE && rd32(data) == FATBIN_MAGIC)
		return SNIFF_FATBIN;
	if (dc_hip_magic_at(data, size))
		return SNIFF_BUNDLE;
	return ptx_looks_like_ptx(data, size) ? SNIFF_PTX : SNIFF_NONE;
}

bool dc_has_magic(const unsigned char *data, size_t size)
{
	return sniff(data, size) != SNIFF_NONE;
}

int dc_scan(struct dc_inventory *inv, const unsigned char *data, size_t size, unsigned opts, char *err)
{
	enum sniffed kind = sniff(data, size);
	int rc;
	inv->inflate_left = DC_INFLATE_BUDGET(size);
	if (!data || size == 0)
		return cd_fail(err, CD_EFORMAT, "empty file");
	if (kind == SNIFF_ARCHIVE) {
		inv->format = DC_ARCHIVE;
		rc = scan_archive(inv, data, size, opts, err);
	} else if (kind == SNIFF_ELF && cubin_is_cubin(data, size)) {
		inv->format = DC_CUBIN;
		rc = add_cubin(inv, data, size, err);
	} else if (kind == SNIFF_ELF && amdgpu_co_is_code_object(data, size)) {
		inv->format = DC_AMDGPU_CODE_OBJECT;
		rc = dc_hip_add_code_object(inv, data, size, err);
	} else if (kind == SNIFF_ELF) {
		struct elf_file e;
		if ((rc = elf_open(&e, data, size, err)))
			return rc;
		inv->format = e.type == ELF_ET_REL ? DC_OBJECT
			      : e.type == ELF_ET_EXEC || (e.type == ELF_ET_DYN && has_interp(&e)) ? DC_EXECUTABLE
			      : DC_SHARED_LIBRARY;
		rc = scan_host_elf(inv, &e, 0, -1, opts, err);
	} else if (kind == SNIFF_PE) {
		struct pe_file pe;
		if ((rc = pe_open(&pe, data, size, err)))
			return rc;
		inv->format = pe.characteristics & PE_FILE_DLL ? DC_SHARED_LIBRARY : DC_EXECUTABLE;
		rc = scan_pe(inv, &pe, opts, err);
	} else if (kind == SNIFF_FATBIN) {
		inv->format = DC_FATBIN;
		rc = walk_region(inv, data, 0, size, 0, "", 0, -1, true, opts, err);
	} else if (kind == SNIFF_BUNDLE) {
		inv->format = DC_OFFLOAD_BUNDLE;
		rc = dc_hip_scan_region(inv, data, 0, size, 0, "", 0, -1, err);
	} else if (kind == SNIFF_PTX) {
		inv->format = DC_PTX;
		rc = add_ptx(inv, data, size, err);
	} else {
		return cd_fail(err, CD_EFORMAT, "not an ELF or PE file, archive, fatbin, cubin, offload bundle or PTX text");
	}
	if (rc)
		return rc;
	if (!dc_has_device_code(inv) && inv->format != DC_FATBIN)
		inv->format = DC_NO_DEVICE_CODE;
	return CD_OK;
}

int dc_image_bytes(struct dc_inventory *inv, const struct dc_image *im, size_t cap, unsigned char **buf,
		   size_t *len, char *err)
{
	struct fatbin_entry e = {.payload = im->payload, .payload_len = im->payload_len};

	*buf = NULL;
	*len = 0;
	if (im->compression != FATBIN_RAW) {
		if (im->uncompressed_bytes > inv->inflate_left) {
			char want[UNITS_BUF];
			return cd_fail(err, CD_EUNSUPPORTED,
				       "not decompressed: it declares %s, more than this file's images may still "
				       "decompress to (64 MiB and 16 times the file's size in all)",
				       units_fmt_bytes(im->uncompressed_bytes, want, sizeof want));
		}
		inv->inflate_left -= im->uncompressed_bytes;
	}

	e.flags = im->compression == FATBIN_LZ4 ? FATBIN_FLAG_LZ4 : im->compression == FATBIN_ZSTD ? FATBIN_FLAG_ZSTD : 0;
	e.payload_size = im->payload_len;
	e.uncompressed_size = im->uncompressed_bytes;
	return decompress_entry(&e, cap, buf, len, err);
}

bool dc_has_device_code(const struct dc_inventory *inv)
{
	return inv->n_containers > 0 || inv->n_hip_bundles > 0;
}

void dc_hip_entry_name(const struct dc_hip_entry *e, char *buf, size_t cap)
{
	if (e->host)
		snprintf(buf, cap, "host");
	else if (e->target_known)
		hipfb_target_name(&e->target, buf, cap);
	else
		snprintf(buf, cap, "%s", e->id);
}

bool dc_name_may_carry_code(const char *name, size_t len)
{
	static const char *const exts[] = { "so", "dll", "pyd", "exe", "a", "o", "fatbin", "cubin", "ptx",
					    "hipfb", "hsaco", "co", NULL };
	size_t base = len;

	while (base && name[base - 1] != '/')
		base--;
	const char *b = name + base;
	size_t blen = len - base;
	if (blen == 0)
		return false; /* a folder */
	const char *dot = memchr(b, '.', blen);
	if (!dot)
		return true;
	/* "libfoo.so.12.4": a soname with its version */
	for (const char *p = b; p + 4 <= b + blen; p++)
		if (memcmp(p, ".so.", 4) == 0)
			return true;
	const char *ext = b + blen;
	while (ext > b && ext[-1] != '.')
		ext--;
	size_t elen = (size_t)(b + blen - ext);
	for (size_t i = 0; exts[i]; i++)
		if (strlen(exts[i]) == elen && strncasecmp(ext, exts[i], elen) == 0)
			return true;
	return false;
}
