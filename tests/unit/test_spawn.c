/* Helper programs under a time limit (probe/spawn.c): a hanging program and the process it
 * left behind are killed with their group, output is bounded, and doctor, gencode, explain
 * and arch --python name the timeout in a helper-timeout finding when nvcc or python3 on
 * PATH hangs (shell scripts that sleep, made at test time). A FIFO named by
 * CUDOCTOR_LIBCUDA / CUDOCTOR_LIBNVML does not hang the driver load. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe/spawn.h"
#include "testlib.h"
#include "util/err.h"

static char dir[64], bin[128], path_env[400];

static void script(const char *name, const char *body)
{
	char p[256];
	FILE *f;
	snprintf(p, sizeof p, "%s/%s", bin, name);
	assert_non_null(f = fopen(p, "w"));
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	assert_int_equal(chmod(p, 0755), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/cudoctor-spawn-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(bin, sizeof bin, "%s/bin", dir);
	if (mkdir(bin, 0755) != 0)
		return -1;
	/* only the hanging programs and the basic tools: no other nvcc or python3 is found first */
	snprintf(path_env, sizeof path_env, "PATH=%s:/usr/bin:/bin", bin);
	setenv("CUDOCTOR_HELPER_TIMEOUT", "0.3", 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_capture_and_status(void **state)
{
	char out[64], err[CD_ERRMSG], p[256];
	size_t len;
	(void)state;
	{
		char *argv[] = { "/bin/echo", "hello", NULL };
		assert_int_equal(spawn_capture(argv, out, sizeof out, &len, err), CD_OK);
		assert_string_equal(out, "hello\n");
		assert_int_equal(len, 6);
	}
	{
		char *argv[] = { "/nonexistent/nvcc", "--version", NULL };
		assert_int_equal(spawn_capture(argv, out, sizeof out, &len, err), CD_EIO);
		assert_non_null(strstr(err, "cannot run /nonexistent/nvcc: No such file or directory"));
	}
	script("fails", "echo partial; exit 3");
	snprintf(p, sizeof p, "%s/fails", bin);
	{
		char *argv[] = { p, NULL };
		assert_int_equal(spawn_capture(argv, out, sizeof out, &len, err), CD_EIO);
		assert_non_null(strstr(err, "exited with status 3"));
		assert_string_equal(out, "partial\n");
	}
	assert_int_equal(spawn_find_program("sh", p, sizeof p), CD_OK);
	assert_true(p[0] == '/');
	assert_int_equal(spawn_find_program("no-such-program-here", p, sizeof p), CD_ENOTFOUND);
}

static bool alive(int pid)
{
	char p[64], stat[256] = "";
	FILE *f;
	const char *close_paren;
	snprintf(p, sizeof p, "/proc/%d/stat", pid);
	if (!(f = fopen(p, "r")))
		return false;
	if (!fgets(stat, sizeof stat, f))
		stat[0] = 0;
	fclose(f);
	close_paren = strrchr(stat, ')');
	return close_paren && close_paren[1] == ' ' && close_paren[2] != 'Z' && close_paren[2] != 'X';
}

/* A program that hangs, and a child it started that keeps the pipe open, are both gone at
 * the limit. */
static void test_hang_kills_the_group(void **state)
{
	char out[64], err[CD_ERRMSG], p[256], pidfile[256], body[512];
	size_t len;
	FILE *f;
	int pid = 0;
	(void)state;
	snprintf(pidfile, sizeof pidfile, "%s/grandchild.pid", dir);
	snprintf(body, sizeof body, "sleep 60 & echo $! > %s\necho started\nsleep 60", pidfile);
	script("hangs", body);
	snprintf(p, sizeof p, "%s/hangs", bin);
	{
		char *argv[] = { p, "--version", NULL };
		assert_int_equal(spawn_capture(argv, out, sizeof out, &len, err), CD_ETIMEOUT);
	}
	assert_string_equal(err, "hangs --version did not answer within 0.3 s");
	assert_string_equal(out, "started\n");
	assert_non_null(f = fopen(pidfile, "r"));
	assert_int_equal(fscanf(f, "%d", &pid), 1);
	fclose(f);
	assert_true(pid > 0);
	/* killed: gone, or a zombie waiting for an init that may never reap it */
	for (int i = 0; i < 100 && alive(pid); i++)
		usleep(10000);
	assert_false(alive(pid));
}

static void test_output_is_bounded(void **state)
{
	char out[64], err[CD_ERRMSG], p[256];
	size_t len;
	(void)state;
	script("chatty", "exec yes 'nvcc: NVIDIA (R) Cuda compiler driver'");
	snprintf(p, sizeof p, "%s/chatty", bin);
	{
		char *argv[] = { p, NULL };
		int rc = spawn_capture(argv, out, sizeof out, &len, err);
		assert_int_equal(rc, CD_EIO);
	}
	assert_non_null(strstr(err, "printed more than 4 MiB; stopped"));
	assert_int_equal(len, 0);
	assert_int_equal(strlen(out), sizeof out - 1);
}

static void test_timeout_setting(void **state)
{
	char buf[32];
	(void)state;
	assert_int_equal(spawn_timeout_ms(), 300);
	setenv("CUDOCTOR_HELPER_TIMEOUT", "not a number", 1);
	assert_int_equal(spawn_timeout_ms(), SPAWN_TIMEOUT_DEFAULT_MS);
	setenv("CUDOCTOR_HELPER_TIMEOUT", "0", 1);
	assert_int_equal(spawn_timeout_ms(), SPAWN_TIMEOUT_DEFAULT_MS);
	setenv("CUDOCTOR_HELPER_TIMEOUT", "0.3", 1);
	assert_string_equal(spawn_timeout_text(5000, buf, sizeof buf), "5 s");
	assert_string_equal(spawn_timeout_text(300, buf, sizeof buf), "0.3 s");
}

static char *run(const char *const *args, const char *stdin_text)
{
	const char *argv[12] = { CUDOCTOR_BINARY };
	const char *env[] = { path_env, "CUDA_HOME=", "CUDACXX=", "CONDA_PREFIX=", "CUDOCTOR_HELPER_TIMEOUT=0.3", NULL };
	struct run_result res;
	size_t n = 1;
	char *out;
	for (size_t i = 0; args[i] && n < 11; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	assert_int_equal(testlib_run(argv, env, stdin_text, &res), 0);
	out = res.out;
	res.out = NULL;
	run_result_free(&res);
	return out;
}

static void test_hanging_nvcc_is_a_finding(void **state)
{
	char want[256], *out;
	(void)state;
	script("nvcc", "sleep 60");
	snprintf(want, sizeof want, "\"subject\": \"%s/nvcc\"", bin);
	{
		const char *args[] = { "--json", "doctor", NULL };
		out = run(args, NULL);
		assert_non_null(strstr(out, "\"helper-timeout\""));
		assert_non_null(strstr(out, "nvcc --version did not answer within 0.3 s"));
		assert_non_null(strstr(out, want));
		free(out);
	}
	{
		const char *args[] = { "--json", "gencode", "--gpu", "H200", NULL };
		out = run(args, NULL);
		assert_non_null(strstr(out, "nvcc --version did not answer within 0.3 s"));
		assert_non_null(strstr(out, "-gencode arch=compute_90,code=sm_90")); /* the answer still comes */
		free(out);
	}
	{
		const char *args[] = { "--json", "explain", "nvcc fatal   : Unsupported gpu architecture 'compute_89'", NULL };
		out = run(args, NULL);
		assert_non_null(strstr(out, "nvcc --version did not answer within 0.3 s (stopped)"));
		free(out);
	}
}

static void test_hanging_python_is_a_finding(void **state)
{
	char *out;
	(void)state;
	script("python3", "sleep 60");
	{
		const char *args[] = { "--json", "arch", "--gpu", "9.0", "--python", NULL };
		out = run(args, NULL);
		assert_non_null(strstr(out, "\"helper-timeout\""));
		assert_non_null(strstr(out, "python3 -c 'import site; print(site.getsitepackages())' did not answer within 0.3 s"));
		free(out);
	}
}

/* A FIFO with no writer named as the driver: refused by a stat, never opened. */
static void test_fifo_as_driver_library(void **state)
{
	char fifo[128], env_cuda[200], env_nvml[200];
	struct run_result res;
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "doctor", NULL };
	(void)state;
	snprintf(fifo, sizeof fifo, "%s/libcuda.so.1", dir);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	snprintf(env_cuda, sizeof env_cuda, "CUDOCTOR_LIBCUDA=%s", fifo);
	snprintf(env_nvml, sizeof env_nvml, "CUDOCTOR_LIBNVML=%s", fifo);
	{
		const char *env[] = { env_cuda, env_nvml, NULL };
		assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	}
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.out, "\"no-driver\""));
	assert_non_null(strstr(res.out, "a FIFO (named pipe), not a regular file"));
	run_result_free(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_and_status),
		cmocka_unit_test(test_hang_kills_the_group),
		cmocka_unit_test(test_output_is_bounded),
		cmocka_unit_test(test_timeout_setting),
		cmocka_unit_test(test_hanging_nvcc_is_a_finding),
		cmocka_unit_test(test_hanging_python_is_a_finding),
		cmocka_unit_test(test_fifo_as_driver_library),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
