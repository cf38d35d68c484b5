/* Asking libcuda for the driver version and each visible GPU's name, CC and memory. */
#include <stdio.h>
#include <string.h>

#include "driver/cudrv.h"
#include "probe/gpus_here.h"
#include "util/err.h"

int gpus_here_probe(struct gpus_here *out, char *err)
{
	struct cudrv d;
	char lerr[CD_ERRMSG];
	int count = 0;
	CUresult r;

	(void)err;
	memset(out, 0, sizeof(*out));
	out->init_result = -1;
	if (cudrv_load(&d, lerr) != CD_OK) {
		snprintf(out->init_error, sizeof(out->init_error), "%.95s", lerr);
		return CD_OK;
	}
	out->loaded = true;
	snprintf(out->lib_path, sizeof(out->lib_path), "%s", d.path);
	if (!d.Init) {
		snprintf(out->init_error, sizeof(out->init_error), "libcuda has no cuInit");
		goto out;
	}
	r = d.Init(0);
	out->init_result = r;
	if (r != CUDA_SUCCESS) {
		snprintf(out->init_error, sizeof(out->init_error), "%s", cudrv_result_name(&d, r));
		goto out;
	}
	if (d.DriverGetVersion)
		d.DriverGetVersion(&out->driver_cuda);
	if (!d.DeviceGetCount || d.DeviceGetCount(&count) != CUDA_SUCCESS)
		goto out;
	for (int i = 0; i < count && out->n < GPUS_HERE_MAX; i++) {
		struct gpu_here *g = &out->gpu[out->n];
		CUdevice dev;

		if (!d.DeviceGet || d.DeviceGet(&dev, i) != CUDA_SUCCESS)
			continue;
		g->ordinal = i;
		if (d.DeviceGetName && d.DeviceGetName(g->name, sizeof(g->name), dev) != CUDA_SUCCESS)
			g->name[0] = '\0';
		g->name[sizeof(g->name) - 1] = '\0';
		if (d.DeviceGetAttribute) {
			d.DeviceGetAttribute(&g->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
			d.DeviceGetAttribute(&g->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
		}
		if (d.DeviceTotalMem)
			d.DeviceTotalMem(&g->total_bytes, dev);
		out->n++;
	}
out:
	cudrv_unload(&d);
	return CD_OK;
}
