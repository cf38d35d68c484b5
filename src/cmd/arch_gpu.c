/* What `arch` judges against: GPU specs from the command line or the GPUs here, and
 * the driver (installed, or --driver) with the PTX ISA its JIT accepts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/arch_internal.h"
#include "driver/cudrv.h"
#include "util/err.h"
#include "util/version.h"

int arch_parse_gpu_spec(const char *spec, unsigned *cc, char *err)
{
	const char *p = spec;
	if (strncmp(p, "sm_", 3) == 0)
		p += 3;
	else if (strncmp(p, "compute_", 8) == 0)
		p += 8;
	char *end;
	long major = strtol(p, &end, 10);
	if (end == p || major < 0)
		goto bad;
	long v;
	if (*end == '.') {
		const char *q = end + 1;
		long minor = strtol(q, &end, 10);
		if (end == q || minor < 0 || minor > 9)
			goto bad;
		v = major * 10 + minor;
	} else {
		v = major;
	}
	if (*end == 'a' || *end == 'f')
		end++;
	if (*end || v < 10 || v > 999)
		goto bad;
	*cc = (unsigned)v;
	return CD_OK;
bad:
	return cd_fail(err, CD_EUSAGE,
		       "GPU spec '%s' is not a compute capability (sm_89, 8.9, 89, sm_90a)", spec);
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

/* PTX ISA each CUDA release's JIT accepts (fatbin.md §4.8, from NVIDIA's PTX ISA table):
 * 9.x for 13.x, 8.x for 12.0-12.5, then 12.6 -> 8.5, 12.8 -> 8.7, 12.9 -> 8.8; 7.x for 11.x. */
static unsigned ptx_isa_for_cuda(int cuda)
{
	int major = cuda / 1000, minor = (cuda % 1000) / 10;
	if (major >= 13)
		return COMPAT_ISA(9 + (major - 13), minor);
	if (major == 12)
		return minor <= 5 ? COMPAT_ISA(8, minor) : COMPAT_ISA(8, minor - 1);
	if (major == 11)
		return COMPAT_ISA(7, minor);
	if (major == 10)
		return COMPAT_ISA(6, 3 + minor);
	if (major == 9)
		return COMPAT_ISA(6, minor);
	return 0;
}

/* Driver branch -> newest CUDA it supports (GA drivers of CUDA Toolkit Release Notes
 * Table 3, as in fatbin.md §4.8). */
static const struct { int driver_major, driver_minor; int cuda; } driver_cuda[] = {
	{595, 45, 13020}, {590, 44, 13010}, {580, 65, 13000}, {575, 51, 12090}, {570, 26, 12080},
	{560, 28, 12060}, {555, 42, 12050}, {550, 54, 12040}, {545, 23, 12030}, {535, 54, 12020},
	{530, 30, 12010}, {525, 60, 12000}, {520, 61, 11080}, {515, 43, 11070}, {510, 39, 11060},
	{495, 29, 11050}, {470, 42, 11040}, {465, 19, 11030}, {460, 27, 11020}, {455, 23, 11010},
	{450, 36, 11000}, {440, 33, 10020}, {418, 39, 10010}, {410, 48, 10000}, {396, 26, 9020},
	{390, 46, 9010}, {384, 81, 9000},
};

void arch_driver_complete(struct arch_driver *d)
{
	if (!d->cuda && d->version[0]) {
		struct version v;
		if (version_parse(d->version, &v) == CD_OK)
			for (size_t i = 0; i < sizeof(driver_cuda) / sizeof(driver_cuda[0]); i++)
				if (v.major > driver_cuda[i].driver_major ||
				    (v.major == driver_cuda[i].driver_major && v.minor >= driver_cuda[i].driver_minor)) {
					d->cuda = driver_cuda[i].cuda;
					break;
				}
	}
	d->ptx_isa_max = d->cuda ? ptx_isa_for_cuda(d->cuda) : 0;
	/* Zstandard images need the CUDA 12.4 driver (550.54.14) or newer (fatbin.md §3.3) */
	d->zstd_ok = d->cuda ? d->cuda >= 12040 : -1;
}

int arch_driver_from_text(const char *text, struct arch_driver *d, char *err)
{
	struct version v;
	memset(d, 0, sizeof(*d));
	if (version_parse(text, &v) != CD_OK || v.major <= 0)
		return cd_fail(err, CD_EUSAGE, "--driver '%s' is neither a driver version (550.54.14) nor a CUDA version (12.4)", text);
	d->known = true;
	snprintf(d->source, sizeof(d->source), "--driver %s", text);
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

/* Programming Guide Table 28: `Xf` code runs on these compute capabilities. */
static const struct compat_family_member family[] = {
	{100, 100}, {100, 103}, {103, 103}, {110, 110}, {120, 120}, {120, 121}, {121, 121},
};

const struct compat_family_member *arch_family_table(size_t *n)
{
	*n = sizeof(family) / sizeof(family[0]);
	return family;
}
