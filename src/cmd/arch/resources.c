/* `arch --resources`: each SASS image's kernels with registers per thread, static shared,
 * local and constant memory and launch bounds (binfmt/cubin_attrs), and the largest block
 * each launches with on its own compute capability (rules/arch_launch); then each AMD code
 * object's kernels (hip_kernels.c). Text and JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfmt/cubin_attrs.h"
#include "cmd/arch/arch.h"
#include "rules/arch_launch.h"
#include "util/err.h"
#include "util/units.h"

#define RESOURCES_CAP ((size_t)256 << 20) /* largest image decompressed */

static const char *bounds_text(const struct cubin_kernel_res *k, char *buf, size_t n)
{
	const unsigned *d = k->reqntid[0] ? k->reqntid : k->max_threads;

	if (!d[0])
		return "-";
	if (d[1] > 1 || d[2] > 1)
		snprintf(buf, n, "%s%ux%ux%u", k->reqntid[0] ? "exactly " : "", d[0], d[1], d[2]);
	else
		snprintf(buf, n, "%s%u", k->reqntid[0] ? "exactly " : "", d[0]);
	return buf;
}

static json_t *dims_json(const unsigned d[3])
{
	return d[0] ? json_pack("[i, i, i]", (int)d[0], (int)(d[1] ? d[1] : 1), (int)(d[2] ? d[2] : 1)) : json_null();
}

/* One kernel: a row of the image's table and an object of its "kernels". */
static void kernel_fields(struct report_rec *w, const struct cubin_kernel_res *k, const struct launch_fit *fit)
{
	char regs[32], sh[UNITS_BUF], loc[UNITS_BUF], p[UNITS_BUF], c[UNITS_BUF], bnd[48];

	if (k->has_registers)
		snprintf(regs, sizeof(regs), "%u", k->registers);
	else
		snprintf(regs, sizeof(regs), "?");
	if (k->maxreg)
		snprintf(regs + strlen(regs), sizeof(regs) - strlen(regs), " (cap %u)", k->maxreg);
	report_field(w, "kernel", "name", rv_str(k->name));
	report_fieldf(w, "registers", "registers", k->has_registers ? rv_int(k->registers) : rv_null(), "%s", regs);
	report_fieldf(w, "static shared", "static_shared_bytes", rv_int(k->static_shared), "%s",
		      units_fmt_bytes(k->static_shared, sh, sizeof(sh)));
	report_field(w, NULL, "reserved_shared_bytes", rv_int(k->reserved_shared));
	report_fieldf(w, "local", "local_bytes", rv_int(k->frame_bytes), "%s", units_fmt_bytes(k->frame_bytes, loc, sizeof(loc)));
	report_field(w, NULL, "min_stack_bytes", rv_int(k->min_stack_bytes));
	report_field(w, NULL, "crs_stack_bytes", rv_int(k->crs_stack_bytes));
	units_fmt_bytes(k->param_bytes, p, sizeof(p));
	if (k->kernel_const)
		report_fieldf(w, "constant", "param_bytes", rv_int(k->param_bytes), "%s + %s", p,
			      units_fmt_bytes(k->kernel_const, c, sizeof(c)));
	else
		report_fieldf(w, "constant", "param_bytes", rv_int(k->param_bytes), "%s", p);
	report_field(w, NULL, "constant_bytes", rv_int(k->kernel_const));
	report_field(w, NULL, "max_registers", k->maxreg ? rv_int(k->maxreg) : rv_null());
	report_fieldf(w, "launch bounds", "max_threads", rv_json(dims_json(k->max_threads)), "%s",
		      bounds_text(k, bnd, sizeof(bnd)));
	report_field(w, NULL, "reqntid", rv_json(dims_json(k->reqntid)));
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
		report_field(&w, NULL, "kernels", rv_json(json_array()));
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
	if ((res.n && report_rec_end(&tab) != CD_OK) || report_rec_end(&w) != CD_OK)
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
