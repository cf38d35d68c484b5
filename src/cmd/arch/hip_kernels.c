/* `arch --kernels` and `--resources` on AMD code objects: each device entry's bytes (in the
 * file, or in the compressed bundle once inflated) read by binfmt/amdgpu_kernels, listed per
 * code object as the NVIDIA listings list images. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfmt/amdgpu_kernels.h"
#include "binfmt/bytes.h"
#include "cmd/arch/arch.h"
#include "facts/devcode.h"
#include "util/err.h"
#include "util/units.h"

/* A compressed bundle inflated once for all its entries (they are read in order). */
struct co_cache {
	size_t bundle;
	unsigned char *buf;
	size_t len;
};

static int inflate_bundle(struct arch_file *f, size_t bi, struct co_cache *c, char *err)
{
	const struct dc_hip_bundle *b = &f->inv.hip_bundles[bi];
	struct hipfb_ccob h;
	bool complete;
	char want[UNITS_BUF];
	int rc;

	free(c->buf);
	*c = (struct co_cache){.bundle = SIZE_MAX};
	if (!in_bounds(b->file_offset, b->stored_bytes, f->size))
		return cd_fail(err, CD_EFORMAT, "compressed bundle runs past the file");
	if ((rc = hipfb_ccob_header(f->data + b->file_offset, (size_t)b->stored_bytes, &h, err)))
		return rc;
	if (h.uncompressed_size > f->inv.inflate_left)
		return cd_fail(err, CD_EUNSUPPORTED, "not inflated: it declares %s, more than this file's bundles may "
			       "still inflate to", units_fmt_bytes(h.uncompressed_size, want, sizeof want));
	if ((rc = hipfb_ccob_inflate(&h, f->data + b->file_offset + h.header_size, (size_t)b->stored_bytes - h.header_size,
				     (size_t)h.uncompressed_size, &c->buf, &c->len, &complete, err)))
		return rc;
	f->inv.inflate_left -= c->len;
	c->bundle = bi;
	return CD_OK;
}

/* The bytes of device entry i: inside the file, or inside c's inflated bundle. */
static int code_object_bytes(struct arch_file *f, size_t i, struct co_cache *c, const unsigned char **p, size_t *n,
			     char *err)
{
	const struct dc_hip_entry *e = &f->inv.hip_entries[i];
	const struct dc_hip_bundle *b = &f->inv.hip_bundles[e->bundle];
	int rc;

	if (b->form != DC_HIP_CCOB) {
		if (b->file_offset > f->size || !in_bounds(e->offset, e->size, f->size - b->file_offset))
			return cd_fail(err, CD_EFORMAT, "the code object runs past the file");
		*p = f->data + b->file_offset + e->offset;
		*n = (size_t)e->size;
		return CD_OK;
	}
	if (c->bundle != e->bundle && (rc = inflate_bundle(f, e->bundle, c, err)))
		return rc;
	if (!in_bounds(e->offset, e->size, c->len))
		return cd_fail(err, CD_EFORMAT, "the code object runs past its inflated bundle");
	*p = c->buf + e->offset;
	*n = (size_t)e->size;
	return CD_OK;
}

static int entry_kernels(struct arch_file *f, size_t i, struct co_cache *c, struct amdgpu_kernels *ks, char *err)
{
	const unsigned char *p = NULL;
	size_t n = 0;
	int rc = code_object_bytes(f, i, c, &p, &n, err);
	return rc ? rc : amdgpu_kernels_read(p, n, ks, err);
}

int arch_hip_kernel_names(struct arch_file *f, size_t i, struct report_rec *w, char *err)
{
	struct co_cache c = {.bundle = SIZE_MAX};
	struct amdgpu_kernels ks;
	struct report_rec names;
	int rc = entry_kernels(f, i, &c, &ks, err);

	free(c.buf);
	if (rc != CD_OK)
		return rc;
	report_rec_array(w, "kernels", &names);
	for (size_t k = 0; k < ks.n; k++)
		report_rec_push(&names, rv_str(ks.k[k].name ? ks.k[k].name : ""));
	amdgpu_kernels_free(&ks);
	return report_rec_end(&names) == CD_OK ? CD_OK : cd_fail(err, names.rc, "out of memory");
}

void arch_hip_kernels_lines(struct report_rec *file, struct arch_file *f)
{
	struct co_cache c = {.bundle = SIZE_MAX};
	size_t row = 0;

	for (size_t i = 0; i < f->inv.n_hip_entries; i++) {
		const struct dc_hip_entry *e = &f->inv.hip_entries[i];
		struct amdgpu_kernels ks;
		char err[CD_ERRMSG] = "", target[64];
		struct strbuf sb;

		if (e->host)
			continue;
		row++;
		dc_hip_entry_name(e, target, sizeof target);
		if (entry_kernels(f, i, &c, &ks, err) != CD_OK) {
			report_rec_line(file, "code object #%zu %s kernels: (cannot read: %s)", row, target, err);
			continue;
		}
		sb_init(&sb);
		for (size_t k = 0; k < ks.n; k++)
			sb_printf(&sb, "%s%s", k ? ", " : "", ks.k[k].name ? ks.k[k].name : "");
		report_rec_line(file, "code object #%zu %s kernels (%zu): %s", row, target, ks.n, sb.buf ? sb.buf : "none");
		sb_free(&sb);
		amdgpu_kernels_free(&ks);
	}
	free(c.buf);
}

/* One kernel: a row of the code object's table and an object of its "kernels". */
static void kernel_fields(struct report_rec *w, const struct amdgpu_kernel *k)
{
	report_fields(w, &amdgpu_kernel_field_table, k, FIELD_ALL);
}

/* Device entry i (row in the listing): its section and table, and an object appended to arr. */
static int entry_resources(struct report_rec *arr, struct arch_file *f, size_t i, size_t row, struct co_cache *c,
			   char *err)
{
	static const char *const hdr[] = {"kernel", "SGPRs", "VGPRs", "AGPRs", "LDS", "scratch", "spills", "wave",
					  "max block"};
	struct amdgpu_kernels ks;
	struct report_rec w, tab = {0}, it;
	char target[64], ierr[CD_ERRMSG] = "";
	int rc;

	dc_hip_entry_name(&f->inv.hip_entries[i], target, sizeof target);
	rc = entry_kernels(f, i, c, &ks, ierr);
	if (rc == CD_ENOMEM)
		return cd_fail(err, rc, "out of memory");
	report_rec_item(arr, &w);
	report_field(&w, NULL, "code_object", rv_int((long long)row));
	report_field(&w, NULL, "target", rv_str(target));
	if (rc != CD_OK) {
		report_rec_line(&w, "code object #%zu %s resources: cannot read: %s", row, target, ierr);
		report_field(&w, NULL, "error", rv_str(ierr));
		return report_rec_end(&w) == CD_OK ? CD_OK : cd_fail(err, CD_ENOMEM, "out of memory");
	}
	report_rec_section(&w, "code object #%zu %s: %zu kernel%s%s", row, target, ks.n, ks.n == 1 ? "" : "s",
			   ks.from_metadata || !ks.n ? "" : " (no metadata note: registers unknown)");
	report_field(&w, NULL, "from_metadata", rv_bool(ks.from_metadata));
	if (ks.n)
		report_rec_table(&w, "kernels", 9, hdr, &tab);
	else
		report_rec_array(&w, "kernels", &tab); /* [], and no table */
	for (size_t k = 0; k < ks.n; k++) {
		report_rec_item(&tab, &it);
		kernel_fields(&it, &ks.k[k]);
		if (report_rec_end(&it) != CD_OK)
			break;
	}
	rc = report_rec_end(&tab) != CD_OK || report_rec_end(&w) != CD_OK;
	amdgpu_kernels_free(&ks);
	return rc ? cd_fail(err, CD_ENOMEM, "out of memory") : CD_OK;
}

int arch_hip_resources(struct report_rec *arr, struct arch_file *f, char *err)
{
	struct co_cache c = {.bundle = SIZE_MAX};
	size_t row = 0;
	int rc = CD_OK;

	for (size_t i = 0; i < f->inv.n_hip_entries && rc == CD_OK; i++)
		if (!f->inv.hip_entries[i].host)
			rc = entry_resources(arr, f, i, ++row, &c, err);
	free(c.buf);
	return rc;
}
