/* Checks kb/compat.c against the real driver: loads every primary container of each file
 * with cuModuleLoadData and compares the CUresult with the outcome cudoctor predicts for
 * the GPU here, under the CUDA_FORCE_PTX_JIT / CUDA_DISABLE_PTX_JIT the process runs with.
 * Run by hand on a GPU machine (bench/arch_gpu.sh); prints one line per container and
 * "arch_driver_check: N match, N differ". Built against the core library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfmt/devcode.h"
#include "rules/arch.h"
#include "driver/cudrv.h"
#include "kb/compat.h"
#include "util/err.h"
#include "util/file.h"

static const char *env_get(const char *n) { return getenv(n); }

static int expected_result(enum compat_outcome o)
{
	switch (o) {
	case COMPAT_SASS:
	case COMPAT_JIT: return 0;
	case COMPAT_NO_IMAGE: return 209;
	case COMPAT_PTX_TOO_NEW: return 222;
	case COMPAT_JIT_DISABLED: return 223;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct cudrv d;
	char err[CD_ERRMSG];
	CUdevice dev;
	CUcontext ctx;
	int major = 0, minor = 0, ver = 0, match = 0, differ = 0;
	if (cudrv_load(&d, err)) {
		fprintf(stderr, "arch_driver_check: %s\n", err);
		return 3;
	}
	if (d.Init(0) || d.DeviceGet(&dev, 0) || d.DevicePrimaryCtxRetain(&ctx, dev) || d.CtxSetCurrent(ctx)) {
		fprintf(stderr, "arch_driver_check: no usable GPU 0\n");
		return 3;
	}
	d.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
	d.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
	d.DriverGetVersion(&ver);
	struct arch_driver drv = {.known = true, .cuda = ver};
	arch_driver_complete(&drv);
	struct compat_env env = {.cc = (unsigned)(major * 10 + minor), .ptx_isa_max = drv.ptx_isa_max,
				 .zstd_ok = drv.zstd_ok};
	env.family = compat_family_table(&env.n_family);
	compat_env_from_vars(&env, env_get);
	printf("# GPU 0 cc %d.%d, driver CUDA %d, PTX ISA max %u, force_jit=%d disable_jit=%d\n", major, minor, ver,
	       env.ptx_isa_max, env.force_ptx_jit, env.disable_ptx_jit);
	for (int a = 1; a < argc; a++) {
		struct mapped_file mf;
		struct dc_inventory inv;
		dc_init(&inv);
		if (file_map(argv[a], &mf, err) || dc_scan(&inv, mf.data, mf.size, DC_SCAN_ALL_SECTIONS, err)) {
			printf("%s: error %s\n", argv[a], err);
			file_unmap(&mf);
			continue;
		}
		for (size_t c = 0; c < inv.n_containers; c++) {
			const struct dc_container *dc = &inv.containers[c];
			if (!dc->primary)
				continue;
			struct compat_image imgs[256];
			size_t n = dc->n_images < 256 ? dc->n_images : 256;
			for (size_t k = 0; k < n; k++)
				arch_compat_image(&inv.images[dc->first_image + k], &imgs[k]);
			struct compat_env e = env;
			if (inv.format == DC_CUBIN)
				e.force_ptx_jit = false; /* a bare cubin is loaded as is */
			struct compat_choice ch;
			compat_choose(imgs, n, &e, &ch);
			/* the image handed to the driver: the container, or the whole bare file (PTX needs its NUL) */
			size_t len = inv.format == DC_CUBIN || inv.format == DC_PTX ? mf.size : (size_t)dc->size;
			unsigned char *img = calloc(1, len + 1);
			memcpy(img, mf.data + dc->file_offset, len);
			CUmodule m = NULL;
			CUresult rc = d.ModuleLoadData(&m, img);
			if (rc == CUDA_SUCCESS)
				d.ModuleUnload(m);
			free(img);
			int want = expected_result(ch.outcome);
			bool ok = want == (int)rc;
			ok ? match++ : differ++;
			printf("%s container %zu (%zu images, %llu bytes): predicted %s (%d), driver %s (%d)%s\n", argv[a], c,
			       n, (unsigned long long)dc->size, compat_outcome_name(ch.outcome), want,
			       cudrv_result_name(&d, rc), (int)rc, ok ? "" : "  <-- DIFFERS");
		}
		dc_free(&inv);
		file_unmap(&mf);
	}
	printf("arch_driver_check: %d match, %d differ\n", match, differ);
	return differ ? 1 : 0;
}
