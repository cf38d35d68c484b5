/* Measuring the CUDA context's device memory through NVML. */
#include "mem/context_cost.h"

#include <string.h>

#include "os/proc.h"
#include "util/err.h"

#define MAX_PROCS 1024

/* Our own usage in NVML's list; *listed counts the entries. */
static bool own_usage(const struct nvml *nv, nvmlDevice_t dev, uint64_t *bytes, unsigned *listed)
{
	static nvmlProcessInfo_v2_t infos[MAX_PROCS];
	static nvmlProcessInfo_v1_t infos1[MAX_PROCS];
	unsigned n = MAX_PROCS;
	unsigned pid = os_pid();
	*listed = 0;
	if (nv->DeviceGetComputeRunningProcesses) {
		if (nv->DeviceGetComputeRunningProcesses(dev, &n, infos) != NVML_SUCCESS)
			return false;
		*listed = n;
		for (unsigned i = 0; i < n; i++)
			if (infos[i].pid == pid && infos[i].usedGpuMemory != NVML_VALUE_NOT_AVAILABLE) {
				*bytes = infos[i].usedGpuMemory;
				return true;
			}
	} else if (nv->DeviceGetComputeRunningProcesses_v1) {
		if (nv->DeviceGetComputeRunningProcesses_v1(dev, &n, infos1) != NVML_SUCCESS)
			return false;
		*listed = n;
		for (unsigned i = 0; i < n; i++)
			if (infos1[i].pid == pid && infos1[i].usedGpuMemory != NVML_VALUE_NOT_AVAILABLE) {
				*bytes = infos1[i].usedGpuMemory;
				return true;
			}
	}
	return false;
}

static bool device_used(const struct nvml *nv, nvmlDevice_t dev, uint64_t *used)
{
	nvmlMemory_t m;
	if (!nv->DeviceGetMemoryInfo || nv->DeviceGetMemoryInfo(dev, &m) != NVML_SUCCESS)
		return false;
	*used = m.used;
	return true;
}

int mem_context_cost(const struct cudrv *cu, const struct nvml *nv, int cuda_ordinal, int nvml_index,
		     struct mem_context_cost *c, char *err)
{
	nvmlDevice_t ndev = NULL;
	CUdevice dev;
	CUcontext ctx = NULL;
	uint64_t used0 = 0, used1 = 0;
	unsigned listed0 = 0, listed1 = 0;
	bool have_used0 = false;
	memset(c, 0, sizeof *c);
	if (!cu->DeviceGet || !cu->DevicePrimaryCtxRetain || !cu->DevicePrimaryCtxRelease || !cu->CtxSetCurrent)
		return cd_fail(err, CD_EDRIVER, "libcuda lacks the primary-context calls");
	if (nv && nvml_index >= 0 && nv->DeviceGetHandleByIndex &&
	    nv->DeviceGetHandleByIndex((unsigned)nvml_index, &ndev) == NVML_SUCCESS) {
		uint64_t dummy;
		have_used0 = device_used(nv, ndev, &used0);
		own_usage(nv, ndev, &dummy, &listed0);
	} else {
		ndev = NULL;
	}
	CUresult r = cu->DeviceGet(&dev, cuda_ordinal);
	if (r != CUDA_SUCCESS)
		return cudrv_fail(cu, err, "cuDeviceGet", r);
	if ((r = cu->DevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS)
		return cudrv_fail(cu, err, "cuDevicePrimaryCtxRetain", r);
	int rc = CD_OK;
	if ((r = cu->CtxSetCurrent(ctx)) != CUDA_SUCCESS) {
		rc = cudrv_fail(cu, err, "cuCtxSetCurrent", r);
		goto out;
	}
	size_t f = 0, t = 0;
	if (cu->MemGetInfo && cu->MemGetInfo(&f, &t) == CUDA_SUCCESS) {
		c->cu_valid = true;
		c->cu_free = f;
		c->cu_total = t;
	}
	if (ndev) {
		uint64_t own = 0;
		if (own_usage(nv, ndev, &own, &listed1) && own) {
			c->measured = true;
			c->bytes = own;
			c->how = "NVML, this process";
		} else {
			/* a new entry that is not our PID: NVML reports PIDs of another namespace */
			c->pid_namespace_differs = listed1 > listed0;
			if (have_used0 && device_used(nv, ndev, &used1) && used1 > used0) {
				c->measured = true;
				c->bytes = used1 - used0;
				c->how = "NVML device used, before and after";
			}
		}
	}
out:
	cu->CtxSetCurrent(NULL);
	cu->DevicePrimaryCtxRelease(dev);
	return rc;
}
