/* `arch --resources`: each SASS image's kernels with registers per thread, static shared,
 * local and constant memory and launch bounds (binfmt/cubin_attrs), and the largest block
 * each launches with on its own compute capability (rules/arch_launch). Text and JSON. */
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

static json_t *kernel_json(const struct cubin_kernel_res *k, const struct launch_fit *fit)
{
	json_t *j = json_pack("{s:s, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o}", "name", k->name,
			      "registers", k->has_registers ? json_integer(k->registers) : json_null(),
			      "static_shared_bytes", (json_int_t)k->static_shared,
			      "reserved_shared_bytes", (json_int_t)k->reserved_shared,
			      "local_bytes", (json_int_t)k->frame_bytes,
			      "min_stack_bytes", (json_int_t)k->min_stack_bytes,
			      "crs_stack_bytes", (json_int_t)k->crs_stack_bytes,
			      "param_bytes", (json_int_t)k->param_bytes,
			      "constant_bytes", (json_int_t)k->kernel_const,
			      "max_registers", k->maxreg ? json_integer(k->maxreg) : json_null(),
			      "max_threads", dims_json(k->max_threads),
			      "reqntid", dims_json(k->reqntid),
			      "largest_block", fit ? json_integer(fit->largest) : json_null());
	return j;
}

/* One image: a table in r, an object appended to arr. */
static int image_resources(struct report *r, struct dc_inventory *inv, const struct dc_image *im, size_t index,
			   json_t *arr, char *err)
{
	static const char *const hdr[] = { "kernel", "registers", "static shared", "local", "constant",
					   "launch bounds", "largest block" };
	struct cubin_resources res;
	struct kb_sm_limits lim;
	unsigned char *buf = NULL;
	size_t len = 0;
	char arch[32], ierr[CD_ERRMSG] = "", lerr[CD_ERRMSG];
	json_t *jk = NULL, *ji = NULL;
	bool have_lim;
	int rc;

	dc_image_arch_name(im, arch, sizeof(arch));
	rc = dc_image_bytes(inv, im, RESOURCES_CAP, &buf, &len, ierr);
	if (rc == CD_OK)
		rc = cubin_resources_read(buf, len, &res, ierr);
	free(buf);
	if (rc == CD_ENOMEM)
		return cd_fail(err, rc, "out of memory");
	if (rc != CD_OK) {
		if (report_line(r, "#%zu %s resources: cannot read: %s", index + 1, arch, ierr) ||
		    json_array_append_new(arr, json_pack("{s:I, s:s, s:s}", "image", (json_int_t)index, "arch", arch,
							 "error", ierr)))
			return cd_fail(err, CD_ENOMEM, "out of memory");
		return CD_OK;
	}
	have_lim = kb_sm_limits_find((int)res.sm, &lim, lerr) == CD_OK;
	jk = json_array();
	rc = report_section(r, "#%zu %s: %zu kernel%s, %s module constant memory%s", index + 1, arch, res.n,
			    res.n == 1 ? "" : "s", units_fmt_bytes(res.module_const, (char[UNITS_BUF]){ 0 }, UNITS_BUF),
			    have_lim ? "" : " (largest block: no limits for this arch in sm_limits.tsv)");
	if (!jk || rc || (res.n && report_table(r, 7, hdr)))
		goto oom;
	for (size_t i = 0; i < res.n; i++) {
		const struct cubin_kernel_res *k = &res.k[i];
		struct launch_fit fit;
		char regs[32], sh[UNITS_BUF], loc[UNITS_BUF], cst[2 * UNITS_BUF + 4], bnd[48], big[16];
		const char *cells[7];

		if (have_lim)
			launch_fit_judge(k, &lim, lim.max_threads_per_block, &fit);
		if (k->has_registers)
			snprintf(regs, sizeof(regs), "%u", k->registers);
		else
			snprintf(regs, sizeof(regs), "?");
		if (k->maxreg)
			snprintf(regs + strlen(regs), sizeof(regs) - strlen(regs), " (cap %u)", k->maxreg);
		units_fmt_bytes(k->static_shared, sh, sizeof(sh));
		units_fmt_bytes(k->frame_bytes, loc, sizeof(loc));
		{
			char p[UNITS_BUF], c[UNITS_BUF];

			units_fmt_bytes(k->param_bytes, p, sizeof(p));
			units_fmt_bytes(k->kernel_const, c, sizeof(c));
			if (k->kernel_const)
				snprintf(cst, sizeof(cst), "%s + %s", p, c);
			else
				snprintf(cst, sizeof(cst), "%s", p);
		}
		if (have_lim)
			snprintf(big, sizeof(big), "%u", fit.largest);
		else
			snprintf(big, sizeof(big), "?");
		cells[0] = k->name;
		cells[1] = regs;
		cells[2] = sh;
		cells[3] = loc;
		cells[4] = cst;
		cells[5] = bounds_text(k, bnd, sizeof(bnd));
		cells[6] = big;
		if (report_table_row(r, cells) || json_array_append_new(jk, kernel_json(k, have_lim ? &fit : NULL)))
			goto oom;
	}
	ji = json_pack("{s:I, s:s, s:I, s:o}", "image", (json_int_t)index, "arch", arch, "module_constant_bytes",
		       (json_int_t)res.module_const, "kernels", jk);
	jk = NULL;
	if (!ji || json_array_append_new(arr, ji))
		goto oom;
	cubin_resources_free(&res);
	return CD_OK;
oom:
	json_decref(jk);
	cubin_resources_free(&res);
	return cd_fail(err, CD_ENOMEM, "out of memory");
}

int arch_resources(struct report *r, struct arch_file *f, json_t **out, char *err)
{
	json_t *arr = json_array();
	int rc = CD_OK;

	*out = NULL;
	if (!arr)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	for (size_t i = 0; i < f->inv.n_images && rc == CD_OK; i++)
		if (f->inv.images[i].kind == FATBIN_KIND_ELF)
			rc = image_resources(r, &f->inv, &f->inv.images[i], i, arr, err); /* #i+1 as the listing numbers them */
	if (rc == CD_OK && json_array_size(arr) == 0 &&
	    report_line(r, "resources: no SASS image (PTX is compiled by the driver; its resources are known "
			"only then)"))
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
	if (rc != CD_OK) {
		json_decref(arr);
		return rc;
	}
	*out = arr;
	return CD_OK;
}
