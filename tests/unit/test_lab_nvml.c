/* The labs' NVML readings go to the NVML device on the CUDA device's PCI address, even
 * when CUDA and NVML number the GPUs differently (fake drivers of tests/fakes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lab/nvml_dev.h"

static void open_cuda(struct cudrv *d, CUdevice *dev, int ordinal)
{
	char err[CD_ERRMSG];
	assert_int_equal(cudrv_load(d, err), CD_OK);
	assert_int_equal(d->Init(0), CUDA_SUCCESS);
	assert_int_equal(d->DeviceGet(dev, ordinal), CUDA_SUCCESS);
}

/* The run's NVML as the run context holds it: loaded and initialised, or NULL. */
static struct nvml *open_nvml(struct nvml *n)
{
	char err[CD_ERRMSG];
	if (nvml_load(n, err) != CD_OK)
		return NULL;
	if (!n->Init || n->Init() != NVML_SUCCESS) {
		nvml_unload(n);
		return NULL;
	}
	return n;
}

static void close_nvml(struct nvml *n)
{
	if (!n)
		return;
	if (n->Shutdown)
		n->Shutdown();
	nvml_unload(n);
}

static void test_matches_by_pci_address(void **state)
{
	(void)state;
	setenv("CUDOCTOR_LIBCUDA", CUDOCTOR_FAKES_DIR "/libcuda.so.1", 1);
	setenv("CUDOCTOR_LIBNVML", CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1", 1);
	setenv("FAKE_GPUS", "NVIDIA GeForce RTX 4060 Ti:8.9:8GiB;NVIDIA H200:9.0:141GiB", 1);
	setenv("FAKE_CUDA_ORDER", "1,0", 1); /* CUDA device 0 is the second GPU on the bus */
	setenv("FAKE_NVML_CLOCKS", "0:2535:9001;1:1980:3201", 1);
	setenv("FAKE_NVML_PCIE", "0:4:8:4:8;1:5:16:5:16", 1);
	struct cudrv d;
	CUdevice dev;
	open_cuda(&d, &dev, 0);
	struct nvml nvs, *nv = open_nvml(&nvs);
	assert_non_null(nv);
	struct lab_nvml v;
	lab_nvml_open(&v, nv, &d, dev);
	assert_true(v.ok);
	assert_int_equal(lab_nvml_sm_clock(&v), 1980);
	int gen = 0, width = 0;
	assert_int_equal(lab_nvml_link(&v, &gen, &width), 0);
	assert_int_equal(gen, 5);
	assert_int_equal(width, 16);
	lab_nvml_close(&v);
	/* CUDA device 1 is the first on the bus */
	assert_int_equal(d.DeviceGet(&dev, 1), CUDA_SUCCESS);
	lab_nvml_open(&v, nv, &d, dev);
	assert_true(v.ok);
	assert_int_equal(lab_nvml_sm_clock(&v), 2535);
	assert_int_equal(lab_nvml_link(&v, &gen, &width), 0);
	assert_int_equal(gen, 4);
	assert_int_equal(width, 8);
	lab_nvml_close(&v);
	close_nvml(nv);
	cudrv_unload(&d);
}

static void test_without_nvml(void **state)
{
	(void)state;
	setenv("CUDOCTOR_LIBCUDA", CUDOCTOR_FAKES_DIR "/libcuda.so.1", 1);
	setenv("CUDOCTOR_LIBNVML", "/nonexistent/libnvidia-ml.so.1", 1);
	unsetenv("FAKE_GPUS");
	unsetenv("FAKE_CUDA_ORDER");
	struct cudrv d;
	CUdevice dev;
	open_cuda(&d, &dev, 0);
	struct nvml nvs, *nv = open_nvml(&nvs);
	assert_null(nv);
	struct lab_nvml v;
	lab_nvml_open(&v, nv, &d, dev);
	assert_false(v.ok);
	int gen = 7, width = 7;
	assert_int_equal(lab_nvml_sm_clock(&v), 0);
	assert_int_equal(lab_nvml_link(&v, &gen, &width), -1);
	assert_int_equal(gen, 7);
	lab_nvml_close(&v);
	/* NVML that fails to initialise (driver/library mismatch) */
	setenv("CUDOCTOR_LIBNVML", CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1", 1);
	setenv("FAKE_NVML_INIT_RESULT", "18", 1);
	nv = open_nvml(&nvs);
	assert_null(nv);
	lab_nvml_open(&v, nv, &d, dev);
	assert_false(v.ok);
	lab_nvml_close(&v);
	unsetenv("FAKE_NVML_INIT_RESULT");
	cudrv_unload(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_by_pci_address),
		cmocka_unit_test(test_without_nvml),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
