/* The NVML loader against the fake libnvidia-ml (new and old ABI) and a missing file:
 * which file was loaded, which versioned symbols were bound, and our struct layouts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "driver/nvml.h"

#define FAKE_NVML CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"
#define FAKE_NVML_OLD CUDOCTOR_FAKES_DIR "/old/libnvidia-ml.so.1"

static int clear_env(void **state)
{
	(void)state;
	unsetenv("FAKE_NVML_INIT_RESULT");
	unsetenv("FAKE_GPUS");
	unsetenv("CUDOCTOR_LIBNVML");
	return 0;
}

/* Layouts from NVIDIA's nvml.h (API 12/13): a wrong one corrupts what NVML writes. */
static void test_struct_layouts(void **state)
{
	(void)state;
	assert_int_equal(sizeof(nvmlPciInfo_t), 68);
	assert_int_equal(offsetof(nvmlPciInfo_t, domain), 16);
	assert_int_equal(offsetof(nvmlPciInfo_t, pciSubSystemId), 32);
	assert_int_equal(offsetof(nvmlPciInfo_t, busId), 36);
	assert_int_equal(sizeof(nvmlMemory_t), 24);
	assert_int_equal(sizeof(nvmlMemory_v2_t), 40);
	assert_int_equal(offsetof(nvmlMemory_v2_t, total), 8);
	assert_int_equal(NVML_MEMORY_V2_VERSION, 0x02000028);
	assert_int_equal(sizeof(nvmlProcessInfo_v1_t), 16);
	assert_int_equal(sizeof(nvmlProcessInfo_v2_t), 24);
	assert_int_equal(offsetof(nvmlProcessInfo_v2_t, gpuInstanceId), 16);
}

static void test_load_override_binds_newest_symbols(void **state)
{
	struct nvml n;
	char err[CD_ERRMSG] = "", real[PATH_MAX];

	(void)state;
	setenv("CUDOCTOR_LIBNVML", FAKE_NVML, 1);
	assert_int_equal(nvml_load(&n, err), CD_OK);
	assert_non_null(realpath(FAKE_NVML, real));
	assert_string_equal(n.path, real);
	assert_string_equal(n.how, "CUDOCTOR_LIBNVML");
	assert_string_equal(n.missing, "");
	assert_string_equal(n.fallbacks, "");
	assert_int_equal(n.pci_info_version, 3);
	assert_int_equal(n.processes_version, 3);
	assert_non_null(n.Init);
	assert_non_null(n.DeviceGetMemoryInfo_v2);
	assert_non_null(n.DeviceGetComputeRunningProcesses);
	assert_null(n.DeviceGetComputeRunningProcesses_v1);
	assert_non_null(n.DeviceGetMaxMigDeviceCount);
	assert_non_null(n.DeviceGetMigDeviceHandleByIndex);
	assert_non_null(n.DeviceIsMigDeviceHandle);
	assert_non_null(n.DeviceGetGpuInstanceId);
	assert_non_null(n.DeviceGetComputeInstanceId);
	assert_int_equal(n.Init(), NVML_SUCCESS);
	unsigned int count = 0;
	assert_int_equal(n.DeviceGetCount(&count), NVML_SUCCESS);
	assert_int_equal(count, 1); /* the fake's default machine: one H200 */
	assert_int_equal(n.Shutdown(), NVML_SUCCESS);
	nvml_unload(&n);
	assert_null(n.handle);
}

static void test_load_old_abi_falls_back(void **state)
{
	struct nvml n;
	char err[CD_ERRMSG] = "";

	(void)state;
	setenv("CUDOCTOR_LIBNVML", FAKE_NVML_OLD, 1);
	assert_int_equal(nvml_load(&n, err), CD_OK);
	assert_non_null(strstr(n.fallbacks, "nvmlInit (not nvmlInit_v2)"));
	assert_non_null(strstr(n.fallbacks, "nvmlDeviceGetPciInfo (not nvmlDeviceGetPciInfo_v3)"));
	assert_non_null(strstr(n.fallbacks,
			       "nvmlDeviceGetCurrentClocksThrottleReasons (not nvmlDeviceGetCurrentClocksEventReasons)"));
	assert_non_null(strstr(n.missing, "nvmlDeviceGetMemoryInfo_v2"));
	/* the old process call is a fallback, not missing */
	assert_null(strstr(n.missing, "ComputeRunningProcesses"));
	assert_int_equal(n.pci_info_version, 1);
	assert_int_equal(n.processes_version, 1);
	assert_null(n.DeviceGetComputeRunningProcesses);
	assert_non_null(n.DeviceGetComputeRunningProcesses_v1);
	assert_null(n.DeviceGetMemoryInfo_v2);
	assert_non_null(n.DeviceGetCurrentClocksEventReasons);
	nvml_unload(&n);
}

/* MIG device handles through the fake: the handle answers as a MIG device. */
static void test_mig_device_handles(void **state)
{
	struct nvml n;
	char err[CD_ERRMSG] = "", name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
	nvmlDevice_t dev, mig;
	unsigned int max = 0, is_mig = 9, gi = 0, ci = 9;
	nvmlMemory_t mem;

	(void)state;
	setenv("CUDOCTOR_LIBNVML", FAKE_NVML, 1);
	setenv("FAKE_NVML_MIG_DEVICES", "0:2g.35gb:35GiB:1GiB", 1);
	assert_int_equal(nvml_load(&n, err), CD_OK);
	assert_int_equal(n.Init(), NVML_SUCCESS);
	assert_int_equal(n.DeviceGetHandleByIndex(0, &dev), NVML_SUCCESS);
	assert_int_equal(n.DeviceGetMaxMigDeviceCount(dev, &max), NVML_SUCCESS);
	assert_int_equal(max, 7);
	assert_int_equal(n.DeviceIsMigDeviceHandle(dev, &is_mig), NVML_SUCCESS);
	assert_int_equal(is_mig, 0);
	assert_int_equal(n.DeviceGetMigDeviceHandleByIndex(dev, 1, &mig), NVML_ERROR_NOT_FOUND);
	assert_int_equal(n.DeviceGetMigDeviceHandleByIndex(dev, 0, &mig), NVML_SUCCESS);
	assert_int_equal(n.DeviceIsMigDeviceHandle(mig, &is_mig), NVML_SUCCESS);
	assert_int_equal(is_mig, 1);
	assert_int_equal(n.DeviceGetGpuInstanceId(mig, &gi), NVML_SUCCESS);
	assert_int_equal(n.DeviceGetComputeInstanceId(mig, &ci), NVML_SUCCESS);
	assert_int_equal(gi, 1);
	assert_int_equal(ci, 0);
	assert_int_equal(n.DeviceGetName(mig, name, sizeof(name)), NVML_SUCCESS);
	assert_string_equal(name, "NVIDIA H200 MIG 2g.35gb");
	assert_int_equal(n.DeviceGetMemoryInfo(mig, &mem), NVML_SUCCESS);
	assert_int_equal(mem.total, 35ULL << 30);
	assert_int_equal(mem.used, 1ULL << 30);
	assert_int_equal(n.Shutdown(), NVML_SUCCESS);
	nvml_unload(&n);
	unsetenv("FAKE_NVML_MIG_DEVICES");
}

static void test_missing_file_names_it(void **state)
{
	struct nvml n;
	char err[CD_ERRMSG] = "";

	(void)state;
	setenv("CUDOCTOR_LIBNVML", "/nonexistent/libnvidia-ml.so.1", 1);
	assert_int_equal(nvml_load(&n, err), CD_ENOTFOUND);
	assert_non_null(strstr(err, "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1"));
	assert_null(n.handle);
}

static void test_init_mismatch_and_error_names(void **state)
{
	struct nvml n;
	char err[CD_ERRMSG] = "";

	(void)state;
	setenv("CUDOCTOR_LIBNVML", FAKE_NVML, 1);
	setenv("FAKE_NVML_INIT_RESULT", "18", 1);
	assert_int_equal(nvml_load(&n, err), CD_OK);
	nvmlReturn_t r = n.Init();
	assert_int_equal(r, NVML_ERROR_LIB_RM_VERSION_MISMATCH);
	assert_string_equal(nvml_result_name(r), "NVML_ERROR_LIB_RM_VERSION_MISMATCH");
	assert_string_equal(nvml_result_text(&n, r), "Driver/library version mismatch");
	assert_int_equal(nvml_fail(&n, err, "nvmlInit_v2", r), CD_EDRIVER);
	assert_string_equal(err, "nvmlInit_v2: NVML_ERROR_LIB_RM_VERSION_MISMATCH (18, \"Driver/library version mismatch\")");
	nvml_unload(&n);
	/* without a library the text falls back to the name */
	assert_string_equal(nvml_result_text(NULL, NVML_ERROR_GPU_IS_LOST), "NVML_ERROR_GPU_IS_LOST");
	assert_string_equal(nvml_result_name(12345), "NVML_ERROR_(unnamed)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_struct_layouts),
		cmocka_unit_test_setup(test_load_override_binds_newest_symbols, clear_env),
		cmocka_unit_test_setup(test_load_old_abi_falls_back, clear_env),
		cmocka_unit_test_setup(test_mig_device_handles, clear_env),
		cmocka_unit_test_setup(test_missing_file_names_it, clear_env),
		cmocka_unit_test_setup(test_init_mismatch_and_error_names, clear_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
