/* One machine context per run: every command that touches the driver loads libcuda and NVML
 * at most once and calls cuInit at most once, whichever of its parts ask for them (explain's
 * checks and its binary's target, arch's caps, doctor's topology, a lab opening its GPU).
 * Counted by the fake libraries' call logs (tests/fakes/README.md: FAKE_CUDA_CALL_LOG,
 * FAKE_NVML_CALL_LOG). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

/* What one run did to the driver libraries. */
struct calls {
	int cuda_loads, cuinits, nvml_loads;
};

static int count_lines(const char *path, const char *line)
{
	char buf[256];
	int n = 0;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	while (fgets(buf, sizeof buf, f))
		n += strncmp(buf, line, strlen(line)) == 0 && buf[strlen(line)] == '\n';
	fclose(f);
	return n;
}

/* Runs cudoctor with args (and env's extra entries) on the fakes, two H200s by default, no
 * host files (so the fakes answer, not this machine's kernel module). */
static struct calls run_counted(const char *const *args, const char *const *extra)
{
	char cu_log[] = "/tmp/cudoctor-cu-calls-XXXXXX", nv_log[] = "/tmp/cudoctor-nv-calls-XXXXXX";
	char cu_env[64], nv_env[64];
	const char *argv[16] = { CUDOCTOR_BINARY }, *env[24];
	struct run_result res;
	struct calls c;
	size_t n = 0, a = 1;
	int fd;

	assert_true((fd = mkstemp(cu_log)) >= 0);
	close(fd);
	assert_true((fd = mkstemp(nv_log)) >= 0);
	close(fd);
	snprintf(cu_env, sizeof cu_env, "FAKE_CUDA_CALL_LOG=%s", cu_log);
	snprintf(nv_env, sizeof nv_env, "FAKE_NVML_CALL_LOG=%s", nv_log);
	env[n++] = "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1";
	env[n++] = "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1";
	env[n++] = "CUDOCTOR_HOST_ROOT=/nonexistent";
	env[n++] = "FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA H200:9.0:141GiB";
	env[n++] = "CUDA_VISIBLE_DEVICES=";
	env[n++] = "CUDA_DEVICE_ORDER=";
	env[n++] = cu_env;
	env[n++] = nv_env;
	for (size_t i = 0; extra && extra[i] && n < 23; i++)
		env[n++] = extra[i];
	env[n] = NULL;
	for (size_t i = 0; args[i] && a < 15; i++)
		argv[a++] = args[i];
	argv[a] = NULL;
	assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	if (res.status > 3)
		fail_msg("%s: exit %d\n%s", args[0], res.status, res.err);
	c.cuda_loads = count_lines(cu_log, "load libcuda");
	c.cuinits = count_lines(cu_log, "cuInit");
	c.nvml_loads = count_lines(nv_log, "load libnvidia-ml");
	run_result_free(&res);
	unlink(cu_log);
	unlink(nv_log);
	return c;
}

static void expect(const char *const *args, const char *const *extra, int cuda_loads, int cuinits, int nvml_loads)
{
	struct calls c = run_counted(args, extra);

	if (c.cuda_loads != cuda_loads || c.cuinits != cuinits || c.nvml_loads != nvml_loads)
		fail_msg("cudoctor %s %s: libcuda loaded %d times (want %d), cuInit %d (want %d), NVML loaded %d (want %d)",
			 args[0], args[1] ? args[1] : "", c.cuda_loads, cuda_loads, c.cuinits, cuinits, c.nvml_loads,
			 nvml_loads);
}

/* The commands main.c judges the driver for, and doctor, which opens it beside its host task */
static void test_driver_commands_load_once(void **state)
{
	(void)state;
	expect((const char *const[]){ "doctor", NULL }, NULL, 1, 1, 1);
	expect((const char *const[]){ "devices", NULL }, NULL, 1, 1, 1);
	expect((const char *const[]){ "check", "--no-load", NULL }, NULL, 1, 1, 1);
	/* the topology part reads through the driver part's libraries and its cuInit */
	expect((const char *const[]){ "topo", NULL }, NULL, 1, 1, 1);
}

/* explain's checks read the driver part, and its binary's target the same part's caps */
static void test_explain_checks_load_once(void **state)
{
	(void)state;
	expect((const char *const[]){ "explain", "--binary", CUDOCTOR_BINARY,
				      "CUDA error: no kernel image is available for execution on the device", NULL },
	       NULL, 1, 1, 1);
	expect((const char *const[]){ "explain", "--binary", CUDOCTOR_BINARY,
				      "CUDA error: too many resources requested for launch", NULL },
	       NULL, 1, 1, 1);
	expect((const char *const[]){ "explain", "--binary", CUDOCTOR_BINARY,
				      "CUDA driver version is insufficient for CUDA runtime version", NULL },
	       NULL, 1, 1, 1);
}

/* The commands that ask for the driver on one path only */
static void test_driver_on_demand_load_once(void **state)
{
	(void)state;
	expect((const char *const[]){ "mem", "status", NULL }, NULL, 1, 1, 1);
	expect((const char *const[]){ "mem", "estimate", "--params", "7B", NULL }, NULL, 1, 1, 1);
	expect((const char *const[]){ "plan", NULL }, NULL, 1, 1, 1);
	expect((const char *const[]){ "gencode", "--native", NULL }, NULL, 1, 1, 1);
	/* the lab opens its GPU on the run's driver: cuInit was called already */
	expect((const char *const[]){ "lab", "run", "bandwidth", NULL }, NULL, 1, 1, 1);
	expect((const char *const[]){ "lab", "list", NULL }, NULL, 0, 0, 0);
}

/* arch's caps the cheap way: NVML when it can tell what CUDA sees, libcuda's version without
 * cuInit when GPUs are named, the whole driver part (one load of each) only where neither can */
static void test_arch_caps_load_once(void **state)
{
	(void)state;
	expect((const char *const[]){ "arch", CUDOCTOR_BINARY, NULL }, NULL, 0, 0, 1);
	expect((const char *const[]){ "arch", "--gpu", "sm_90", CUDOCTOR_BINARY, NULL }, NULL, 1, 0, 0);
	/* two different GPUs in CUDA's own FASTEST_FIRST order: only cuInit can say */
	expect((const char *const[]){ "arch", CUDOCTOR_BINARY, NULL },
	       (const char *const[]){ "FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA GeForce RTX 4060 Ti:8.9:8GiB", NULL }, 1, 1, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_driver_commands_load_once),
		cmocka_unit_test(test_explain_checks_load_once),
		cmocka_unit_test(test_driver_on_demand_load_once),
		cmocka_unit_test(test_arch_caps_load_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
