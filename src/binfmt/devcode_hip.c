/* The HIP half of the device-code inventory: offload bundles found where clang's linker puts
 * them (.hip_fatbin, one bundle per translation unit, each padded to its alignment), their
 * entry tables read in place or from the first inflated bytes of a compressed bundle, and
 * bare code objects. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include "binfmt/devcode_hip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfmt/amdgpu_co.h"
#include "util/err.h"
#include "util/safetext.h"
#include "util/str.h"
#include "util/units.h"

/* A compressed bundle is inflated this far first: its entry table is at its start, and a
 * bundle of a dozen targets needs under 1 KiB of it. */
#define TABLE_FIRST ((size_t)64 << 10)

bool dc_hip_magic_at(const unsigned char *p, size_t n)
{
	return hipfb_is_bundle(p, n) || hipfb_is_ccob(p, n);
}

void dc_hip_free(struct dc_inventory *inv)
{
	for (size_t i = 0; i < inv->n_hip_entries; i++)
		free(inv->hip_entries[i].id);
	free(inv->hip_entries);
	free(inv->hip_bundles);
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

static struct dc_hip_bundle *new_bundle(struct dc_inventory *inv, enum dc_hip_form form, const char *section,
					size_t name_len, int member, size_t file_offset)
{
	uint32_t sec;
	if (dc_intern_section(inv, section, name_len, &sec) ||
	    grow((void **)&inv->hip_bundles, &inv->cap_hip_bundles, inv->n_hip_bundles, sizeof(struct dc_hip_bundle)))
		return NULL;
	struct dc_hip_bundle *b = &inv->hip_bundles[inv->n_hip_bundles++];
	memset(b, 0, sizeof(*b));
	b->form = form;
	b->section = sec;
	b->member = member;
	b->file_offset = file_offset;
	b->first_entry = (uint32_t)inv->n_hip_entries;
	return b;
}

static struct dc_hip_entry *new_entry(struct dc_inventory *inv)
{
	if (grow((void **)&inv->hip_entries, &inv->cap_hip_entries, inv->n_hip_entries, sizeof(struct dc_hip_entry)))
		return NULL;
	struct dc_hip_entry *e = &inv->hip_entries[inv->n_hip_entries++];
	memset(e, 0, sizeof(*e));
	e->bundle = (uint32_t)(inv->n_hip_bundles - 1);
	inv->hip_bundles[e->bundle].n_entries++;
	return e;
}

/* Drops the entries read since `from` (a table read again from more inflated bytes). */
static void drop_entries(struct dc_inventory *inv, size_t from)
{
	while (inv->n_hip_entries > from) {
		struct dc_hip_entry *e = &inv->hip_entries[--inv->n_hip_entries];
		inv->hip_bundles[e->bundle].n_entries--;
		free(e->id);
	}
}

static int add_entry(struct dc_inventory *inv, const struct hipfb_entry *fe)
{
	struct dc_hip_entry *e = new_entry(inv);
	struct hipfb_id id;
	if (!e || !(e->id = safe_text_dup(fe->id, fe->id_len, HIPFB_ID_MAX, 0)))
		return CD_ENOMEM;
	e->offset = fe->offset;
	e->size = fe->size;
	hipfb_parse_id(fe->id, fe->id_len, &id);
	e->host = id.kind_len == 4 && memcmp(id.kind, "host", 4) == 0;
	safe_text(e->arch, sizeof e->arch, id.arch, id.arch_len, 0);
	if (!e->host)
		e->target_known = hipfb_parse_target(id.target, id.target_len, &e->target);
	return CD_OK;
}

/* The entry table of the bundle at b (avail bytes there, full: its whole size). *short_of:
 * the bytes the table needs when avail cut it. *extent: where the bundle's last entry ends. */
static int read_table(struct dc_inventory *inv, const unsigned char *b, size_t avail, uint64_t full,
		      uint64_t *extent, size_t *short_of, char *err)
{
	struct hipfb_bundle hb;
	struct hipfb_entry fe;
	int rc;

	*short_of = 0;
	if ((rc = hipfb_open(&hb, b, avail, err))) {
		*short_of = hb.short_of;
		return rc;
	}
	if (hb.count > (full - HIPFB_HEADER_MIN) / HIPFB_ENTRY_MIN)
		return cd_fail(err, CD_EFORMAT, "offload bundle of %llu bytes declares %llu entries",
			       (unsigned long long)full, (unsigned long long)hb.count);
	while ((rc = hipfb_next(&hb, &fe, err)) == 1)
		if (add_entry(inv, &fe))
			return cd_fail(err, CD_ENOMEM, "out of memory");
	*short_of = hb.short_of;
	*extent = hb.extent;
	return rc;
}

/* A plain bundle at data[pos], data[end] the region's end. *next: past its last entry. */
static int add_plain(struct dc_inventory *inv, const unsigned char *data, size_t pos, size_t end, size_t base,
		     const char *section, size_t name_len, int member, size_t *next, char *err)
{
	struct dc_hip_bundle *b = new_bundle(inv, DC_HIP_BUNDLE, section, name_len, member, base + pos);
	uint64_t extent = 0;
	size_t short_of;
	int rc;

	if (!b)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if ((rc = read_table(inv, data + pos, end - pos, end - pos, &extent, &short_of, err)))
		return cd_fail(err, rc, "offload bundle at 0x%zx: %s", base + pos, err);
	b = &inv->hip_bundles[inv->n_hip_bundles - 1];
	if (extent > end - pos)
		extent = end - pos;
	b->stored_bytes = b->bundle_bytes = extent;
	*next = pos + (size_t)extent;
	return CD_OK;
}

/* A compressed bundle at data[pos]: inflated as far as its entry table reaches. */
static int add_ccob(struct dc_inventory *inv, const unsigned char *data, size_t pos, size_t end, size_t base,
		    const char *section, size_t name_len, int member, size_t *next, char *err)
{
	struct hipfb_ccob h;
	struct dc_hip_bundle *b;
	int rc = hipfb_ccob_header(data + pos, end - pos, &h, err);
	size_t stop, want = TABLE_FIRST;

	if (rc)
		return cd_fail(err, rc, "compressed bundle at 0x%zx: %s", base + pos, err);
	if (h.version >= 2) {
		stop = pos + (size_t)h.total_size;
	} else { /* V1 gives no size: it runs to the next compressed bundle, as LLVM reads it */
		const unsigned char *n = memmem(data + pos + h.header_size, end - pos - h.header_size, HIPFB_CCOB_MAGIC,
						HIPFB_CCOB_MAGIC_LEN);
		stop = n ? (size_t)(n - data) : end;
	}
	if (h.uncompressed_size < HIPFB_HEADER_MIN)
		return cd_fail(err, CD_EFORMAT, "compressed bundle at 0x%zx inflates to %llu bytes, less than a bundle header",
			       base + pos, (unsigned long long)h.uncompressed_size);
	if (!(b = new_bundle(inv, DC_HIP_CCOB, section, name_len, member, base + pos)))
		return cd_fail(err, CD_ENOMEM, "out of memory");
	b->ccob_version = h.version;
	b->method = h.method;
	b->stored_bytes = stop - pos;
	b->bundle_bytes = h.uncompressed_size;
	size_t first = inv->n_hip_entries;
	for (;;) {
		unsigned char *buf = NULL;
		size_t got = 0, short_of = 0;
		bool complete;
		uint64_t extent;

		if (want > h.uncompressed_size)
			want = (size_t)h.uncompressed_size;
		if (want > inv->inflate_left) {
			char w[UNITS_BUF];
			return cd_fail(err, CD_EUNSUPPORTED, "compressed bundle at 0x%zx: its entry table needs %s inflated, "
				       "more than this file's bundles may still inflate to", base + pos,
				       units_fmt_bytes(want, w, sizeof w));
		}
		if ((rc = hipfb_ccob_inflate(&h, data + pos + h.header_size, stop - pos - h.header_size, want, &buf, &got,
					     &complete, err)))
			return cd_fail(err, rc, "compressed bundle at 0x%zx: %s", base + pos, err);
		inv->inflate_left -= got;
		rc = read_table(inv, buf, got, h.uncompressed_size, &extent, &short_of, err);
		free(buf);
		if (rc == CD_OK)
			break;
		drop_entries(inv, first);
		if (!short_of || complete || got < want)
			return cd_fail(err, rc, "compressed bundle at 0x%zx: %s", base + pos, err);
		want = short_of > 2 * want ? short_of : 2 * want;
	}
	*next = stop;
	return CD_OK;
}

int dc_hip_scan_region(struct dc_inventory *inv, const unsigned char *data, size_t start, size_t end, size_t base,
		       const char *section, size_t name_len, int member, char *err)
{
	size_t pos = start;
	int rc;

	while (pos < end && dc_hip_magic_at(data + pos, end - pos)) {
		size_t next = end;
		if (hipfb_is_bundle(data + pos, end - pos))
			rc = add_plain(inv, data, pos, end, base, section, name_len, member, &next, err);
		else
			rc = add_ccob(inv, data, pos, end, base, section, name_len, member, &next, err);
		if (rc)
			return rc;
		if (inv->progress)
			inv->progress(data + next, inv->progress_ctx);
		/* the linker pads each bundle to its alignment with zeros; anything else before the
		 * next magic is searched through, as LLVM's reader does */
		for (pos = next; pos < end && data[pos] == 0; pos++)
			;
		if (pos < end && !dc_hip_magic_at(data + pos, end - pos)) {
			const unsigned char *a = memmem(data + pos, end - pos, HIPFB_MAGIC, HIPFB_MAGIC_LEN);
			const unsigned char *c = memmem(data + pos, end - pos, HIPFB_CCOB_MAGIC, HIPFB_CCOB_MAGIC_LEN);
			const unsigned char *hit = a && (!c || a < c) ? a : c;
			pos = hit ? (size_t)(hit - data) : end;
		}
	}
	return CD_OK;
}

int dc_hip_add_code_object(struct dc_inventory *inv, const unsigned char *data, size_t size, char *err)
{
	struct amdgpu_co co;
	struct dc_hip_bundle *b;
	struct dc_hip_entry *e;
	int rc = amdgpu_co_read(data, size, &co, err);

	if (rc)
		return rc;
	if (!(b = new_bundle(inv, DC_HIP_CODE_OBJECT, "", 0, -1, 0)) || !(e = new_entry(inv)) || !(e->id = cd_strdup("")))
		return cd_fail(err, CD_ENOMEM, "out of memory");
	b->stored_bytes = b->bundle_bytes = size;
	e->size = size;
	snprintf(e->arch, sizeof e->arch, "amdgcn");
	e->target = co.target;
	e->target_known = co.target.processor[0] != '\0';
	e->generic_version = co.generic_version;
	return CD_OK;
}
