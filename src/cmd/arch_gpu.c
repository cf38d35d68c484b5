/* What `arch` judges against: GPU specs from the command line or the GPUs here, and
 * the driver (installed, or --driver) with the PTX ISA its JIT accepts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/arch_internal.h"
#include "driver/cudrv.h"
#include "kb/kb.h"
#include "util/err.h"
#include "util/version.h"

int arch_parse_gpu_spec(const char *spec, unsigned *cc, char *label, size_t label_cap, char *err)
{
	struct gpu_spec gs;
	int rc = kb_parse_gpu_spec(spec, &gs, err);
	if (rc)
		return rc;
	*cc = (unsigned)(gs.cc_major * 10 + gs.cc_minor);
	if (label)
		snprintf(label, label_cap, "%s", gs.gpu ? gs.label : spec);
	return CD_OK;
}

void arch_probe_here(struct arch_opts *o, char *why, size_t why_cap)
{
	struct cudrv d;
	char err[CD_ERRMSG];
	int n = 0, ver = 0;
	why[0] = 0;
	if (cudrv_load(&d, err)) {
		snprintf(why, why_cap, "no GPU to judge against: %s (name one with --gpu)", err);
		return;
	}
	/* cuDriverGetVersion needs no cuInit, which costs 0.1-0.3 s: --gpu runs skip it */
	if (!o->driver.known && d.DriverGetVersion && d.DriverGetVersion(&ver) == CUDA_SUCCESS && ver > 0) {
		o->driver.known = true;
		o->driver.cuda = ver;
		snprintf(o->driver.source, sizeof(o->driver.source), "installed driver");
		arch_driver_complete(&o->driver);
	}
	if (o->n_gpus)
		goto out; /* --gpu given: judge those only */
	CUresult rc = d.Init ? d.Init(0) : CUDA_ERROR_NOT_INITIALIZED;
	if (rc != CUDA_SUCCESS) {
		snprintf(why, why_cap, "no GPU to judge against: cuInit failed (%s); name one with --gpu",
			 cudrv_result_name(&d, rc));
		goto out;
	}
	if (!d.DeviceGetCount || d.DeviceGetCount(&n) != CUDA_SUCCESS || n <= 0) {
		snprintf(why, why_cap, "no GPU to judge against: no CUDA device visible (name one with --gpu)");
		goto out;
	}
	for (int i = 0; i < n && o->n_gpus < sizeof(o->gpus) / sizeof(o->gpus[0]); i++) {
		CUdevice dev;
		int major = 0, minor = 0;
		char name[128] = "";
		if (!d.DeviceGet || d.DeviceGet(&dev, i) != CUDA_SUCCESS || !d.DeviceGetAttribute ||
		    d.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != CUDA_SUCCESS ||
		    d.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != CUDA_SUCCESS)
			continue;
		if (d.DeviceGetName)
			d.DeviceGetName(name, sizeof(name) - 1, dev);
		struct arch_gpu *g = &o->gpus[o->n_gpus++];
		g->cc = (unsigned)(major * 10 + minor);
		snprintf(g->name, sizeof(g->name), "GPU %d (%s)", i, name[0] ? name : "unnamed");
	}
out:
	cudrv_unload(&d);
}

/* The oldest driver that loads Zstandard-compressed images: the minimum driver of the
 * first toolkit that could write them (12.4 -> 550.54.14, fatbin.md §3.3). */
static const struct kb_toolkit *first_zstd_toolkit(void)
{
	for (size_t i = 0; i < kb_toolkit_count(); i++) {
		const struct kb_toolkit *t = kb_toolkit_at(i);
		if (t->zstd != KB_ZSTD_NO && t->has_min_driver)
			return t;
	}
	return NULL;
}

void arch_driver_complete(struct arch_driver *d)
{
	struct version v;
	if (!d->cuda && d->version[0] && version_parse(d->version, &v) == CD_OK) {
		const struct kb_driver_branch *b;
		bool exact;
		if (kb_driver_branch_of(&v, &b, &exact) == CD_OK)
			d->cuda = version_to_cuda_int(&b->cuda);
	}
	d->ptx_isa_max = 0;
	d->zstd_ok = -1;
	if (!d->cuda)
		return;
	struct version cuda = version_from_cuda_int(d->cuda);
	const struct kb_ptx_isa *p = kb_ptx_isa_max_for_cuda(&cuda);
	if (p)
		d->ptx_isa_max = COMPAT_ISA(p->major, p->minor);
	const struct kb_toolkit *z = first_zstd_toolkit();
	if (z) {
		if (d->version[0] && version_parse(d->version, &v) == CD_OK)
			d->zstd_ok = version_cmp(&v, &z->min_driver) >= 0;
		else
			d->zstd_ok = version_cmp(&cuda, &z->release) >= 0;
	}
}

const char *arch_zstd_min_driver(void)
{
	const struct kb_toolkit *z = first_zstd_toolkit();
	return z ? z->min_driver_text : "?";
}

const char *arch_ptx_isa_min_driver(unsigned isa)
{
	const struct kb_ptx_isa *p = kb_ptx_isa_find((int)(isa / 100), (int)(isa % 100));
	return p && p->has_min_driver ? p->min_driver_text : NULL;
}

int arch_driver_from_text(const char *text, struct arch_driver *d, char *err)
{
	struct version v;
	memset(d, 0, sizeof(*d));
	if (version_parse(text, &v) != CD_OK || v.major <= 0)
		return cd_fail(err, CD_EUSAGE, "--driver '%s' is neither a driver version (550.54.14) nor a CUDA version (12.4)", text);
	d->known = true;
	snprintf(d->source, sizeof(d->source), "--driver");
	if (v.major >= 100) {
		snprintf(d->version, sizeof(d->version), "%s", text);
		arch_driver_complete(d);
		if (!d->cuda)
			return cd_fail(err, CD_EUSAGE, "driver %s is older than any CUDA release cudoctor knows", text);
	} else {
		d->cuda = version_to_cuda_int(&v);
		arch_driver_complete(d);
	}
	return CD_OK;
}

/* kb/arch_families.tsv (Programming Guide Table 28) as compat.c's pairs, built once. */
const struct compat_family_member *arch_family_table(size_t *n)
{
	static struct compat_family_member table[128];
	static size_t count;
	static bool built;
	if (!built) {
		for (size_t i = 0; i < kb_family_count(); i++) {
			const struct kb_family *f = kb_family_at(i);
			for (size_t k = 0; k < f->n_members && count < sizeof(table) / sizeof(table[0]); k++)
				table[count++] = (struct compat_family_member){(unsigned)f->arch, (unsigned)f->members[k]};
		}
		built = true;
	}
	*n = count;
	return table;
}
