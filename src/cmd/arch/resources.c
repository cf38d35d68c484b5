/* `arch --resources`: each SASS image's kernels with registers per thread, static shared,
 * local and constant memory and launch bounds (binfmt/cubin_attrs), and the largest block
 * each launches with on its own compute capability (rules/arch_launch); then each AMD code
 * object's kernels (hip_kernels.c). Text and JSON. */
#include <stdio.h>
#include <stdlib.h>

#include "binfmt/cubin_attrs.h"
#include "cmd/arch/arch.h"
#include "facts/devcode.h"
#include "rules/arch_launch.h"
#include "util/err.h"
#include "util/units.h"

#define RESOURCES_CAP ((size_t)256 << 20) /* largest image decompressed */

/* One kernel: a row of the image's table and an object of its "kernels". */
static void kernel_fields(struct report_rec *w, const struct cubin_kernel_res *k, const struct launch_fit *fit)
{
	struct cubin_kernel_row row;

	cubin_kernel_row_make(k, &row);
	report_fields(w, &cubin_kernel_field_table, &row, FIELD_ALL);
	if (fit)
		report_field(w, "largest block", "largest_block", rv_int(fit->largest));
	else
		report_fieldf(w, "largest block", "largest_block", rv_null(), "?");
}

/* One image: its section and table, and an object appended to arr. */
static int image_resources(struct report_rec *arr, struct dc_inventory *inv, const struct dc_image *im, size_t index,
			   char *err)
{
	static const char *const hdr[] = { "kernel", "registers", "static shared", "local", "constant",
					   "launch bounds", "largest block" };
	struct cubin_resources res;
	struct kb_sm_limits lim;
	struct report_rec w, tab = { 0 }, row;
	unsigned char *buf = NULL;
	size_t len = 0;
	char arch[32], ierr[CD_ERRMSG] = "", lerr[CD_ERRMSG], mc[UNITS_BUF];
	bool have_lim;
	int rc;

	dc_image_arch_name(im, arch, sizeof(arch));
	rc = dc_image_bytes(inv, im, RESOURCES_CAP, &buf, &len, ierr);
	if (rc == CD_OK)
		rc = cubin_resources_read(buf, len, &res, ierr);
	free(buf);
	if (rc == CD_ENOMEM)
		return cd_fail(err, rc, "out of memory");
	report_rec_item(arr, &w);
	if (rc != CD_OK) {
		report_rec_line(&w, "#%zu %s resources: cannot read: %s", index + 1, arch, ierr);
		report_field(&w, NULL, "image", rv_int((long long)index));
		report_field(&w, NULL, "arch", rv_str(arch));
		report_field(&w, NULL, "error", rv_str(ierr));
		return report_rec_end(&w) == CD_OK ? CD_OK : cd_fail(err, CD_ENOMEM, "out of memory");
	}
	have_lim = kb_sm_limits_find((int)res.sm, &lim, lerr) == CD_OK;
	report_rec_section(&w, "#%zu %s: %zu kernel%s, %s module constant memory%s", index + 1, arch, res.n,
			   res.n == 1 ? "" : "s", units_fmt_bytes(res.module_const, mc, sizeof(mc)),
			   have_lim ? "" : " (largest block: no limits for this arch in sm_limits.tsv)");
	report_field(&w, NULL, "image", rv_int((long long)index));
	report_field(&w, NULL, "arch", rv_str(arch));
	report_field(&w, NULL, "module_constant_bytes", rv_int((long long)res.module_const));
	if (res.n)
		report_rec_table(&w, "kernels", 7, hdr, &tab);
	else
		report_rec_array(&w, "kernels", &tab); /* [], and no table */
	for (size_t i = 0; i < res.n; i++) {
		struct launch_fit fit;

		if (have_lim)
			launch_fit_judge(&res.k[i], &lim, lim.max_threads_per_block, &fit);
		report_rec_item(&tab, &row);
		kernel_fields(&row, &res.k[i], have_lim ? &fit : NULL);
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	cubin_resources_free(&res);
	if (report_rec_end(&tab) != CD_OK || report_rec_end(&w) != CD_OK)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	return CD_OK;
}

int arch_resources(struct report_rec *file, struct arch_file *f, char *err)
{
	struct report_rec arr;
	size_t n = 0;
	int rc = CD_OK;

	report_rec_array(file, "resources", &arr);
	for (size_t i = 0; i < f->inv.n_images && rc == CD_OK; i++)
		if (f->inv.images[i].kind == FATBIN_KIND_ELF) {
			rc = image_resources(&arr, &f->inv, &f->inv.images[i], i, err); /* #i+1 as the listing numbers them */
			n++;
		}
	if (rc == CD_OK)
		rc = arch_hip_resources(&arr, f, err);
	if (report_rec_end(&arr) != CD_OK && rc == CD_OK)
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
	if (rc == CD_OK && n == 0 && !arch_hip_device_entries(&f->inv))
		report_rec_line(file, "resources: no SASS image (PTX is compiled by the driver; its resources are known "
				      "only then)");
	return rc;
}
