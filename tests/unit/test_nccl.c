/* NCCL's loader against the fake libnccl (a current release, a 2.3 one, a failing init) and a
 * missing file; the search through a venv's nvidia-nccl wheel; lab nccl's factors and verdict. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "driver/nccl.h"
#include "lab/nccl_judge.h"
#include "probe/nccl_find.h"
#include "probe/python.h"
#include "probe_tree.h"
#include "util/err.h"

#define FAKE_NCCL CUDOCTOR_FAKES_DIR "/libnccl.so.2"
#define FAKE_NCCL_OLD CUDOCTOR_FAKES_DIR "/old/libnccl.so.2"

static int clean_env(void **state)
{
	(void)state;
	unsetenv("CUDOCTOR_LIBNCCL");
	unsetenv("FAKE_NCCL_VERSION");
	unsetenv("FAKE_NCCL_INIT_RESULT");
	unsetenv("FAKE_NCCL_LAST_ERROR");
	return 0;
}

static void test_version_decode(void **state)
{
	(void)state;
	struct version v = nccl_version_decode(22809);
	assert_int_equal(v.major, 2);
	assert_int_equal(v.minor, 28);
	assert_int_equal(v.patch, 9);
	v = nccl_version_decode(2304); /* before 2.9: X*1000 + Y*100 + Z */
	assert_int_equal(v.major, 2);
	assert_int_equal(v.minor, 3);
	assert_int_equal(v.patch, 4);
	v = nccl_version_decode(2803);
	assert_int_equal(v.minor, 8);
	assert_int_equal(v.patch, 3);
}

static void test_missing(void **state)
{
	struct nccl n;
	char err[CD_ERRMSG] = "";

	(void)state;
	setenv("CUDOCTOR_LIBNCCL", "/nonexistent/libnccl.so.2", 1);
	assert_int_equal(nccl_load(&n, NULL, err), CD_ENOTFOUND);
	assert_non_null(strstr(err, "CUDOCTOR_LIBNCCL=/nonexistent/libnccl.so.2"));
}

static void test_fake_loads(void **state)
{
	struct nccl n;
	char err[CD_ERRMSG] = "";
	int code = 0;

	(void)state;
	setenv("CUDOCTOR_LIBNCCL", FAKE_NCCL, 1);
	assert_int_equal(nccl_load(&n, NULL, err), CD_OK);
	assert_int_equal(n.version_code, 22809);
	assert_int_equal(n.version.minor, 28);
	assert_string_equal(n.lib.how, "CUDOCTOR_LIBNCCL");
	assert_string_equal(n.lib.missing, "");
	assert_non_null(strstr(n.lib.path, "libnccl.so.2"));
	assert_int_equal(n.GetVersion(&code), ncclSuccess);
	ncclComm_t comms[2];
	int devs[2] = { 0, 1 };
	assert_int_equal(n.CommInitAll(comms, 2, devs), ncclSuccess);
	nccl_unload(&n);
}

static void test_too_old(void **state)
{
	struct nccl n;
	char err[CD_ERRMSG] = "";

	(void)state;
	/* a release that reports 2.3.4 although it has every entry point */
	setenv("CUDOCTOR_LIBNCCL", FAKE_NCCL, 1);
	setenv("FAKE_NCCL_VERSION", "2304", 1);
	assert_int_equal(nccl_load(&n, NULL, err), CD_EUNSUPPORTED);
	assert_non_null(strstr(err, "is NCCL 2.3.4, older than 2.4"));
	assert_null(n.lib.handle);
	/* a real 2.3 layout: no ncclCommGetAsyncError, no ncclGetLastError */
	unsetenv("FAKE_NCCL_VERSION");
	setenv("CUDOCTOR_LIBNCCL", FAKE_NCCL_OLD, 1);
	assert_int_equal(nccl_load(&n, NULL, err), CD_EUNSUPPORTED);
	assert_non_null(strstr(err, "NCCL 2.3.4"));
	assert_non_null(strstr(err, "missing: ncclCommGetAsyncError ncclGetLastError"));
}

static void test_init_failure(void **state)
{
	struct nccl n;
	char err[CD_ERRMSG] = "";
	ncclComm_t comm;
	int dev = 0;

	(void)state;
	setenv("CUDOCTOR_LIBNCCL", FAKE_NCCL, 1);
	setenv("FAKE_NCCL_INIT_RESULT", "1", 1);
	setenv("FAKE_NCCL_LAST_ERROR", "Cuda failure 'invalid device function'", 1);
	assert_int_equal(nccl_load(&n, NULL, err), CD_OK);
	ncclResult_t r = n.CommInitAll(&comm, 1, &dev);
	assert_int_equal(r, ncclUnhandledCudaError);
	assert_int_equal(nccl_fail(&n, err, "ncclCommInitAll", r), CD_EDRIVER);
	assert_non_null(strstr(err, "ncclCommInitAll: ncclUnhandledCudaError (1): unhandled cuda error"));
	assert_non_null(strstr(err, "NCCL says: Cuda failure 'invalid device function'"));
	setenv("FAKE_NCCL_INIT_RESULT", "3", 1);
	r = n.CommInitAll(&comm, 1, &dev);
	nccl_fail(&n, err, "ncclCommInitAll", r);
	assert_non_null(strstr(err, "ncclInternalError (3)"));
	assert_string_equal(nccl_result_name((ncclResult_t)42), "ncclResult(unknown)");
	nccl_unload(&n);
}

static void test_find_in_venv(void **state)
{
	char root[64], p[4096], bin[4096], err[CD_ERRMSG] = "";
	const char *old_path = getenv("PATH");
	char saved[8192];
	struct nccl_copies c;
	bool found = false;

	(void)state;
	snprintf(saved, sizeof saved, "%s", old_path ? old_path : "/usr/bin:/bin");
	assert_non_null(tree_new(root, sizeof root));
	tree_file(root, "venv/pyvenv.cfg", "home = /usr/bin\nversion = 3.12.3\n", 0);
	tree_file(root, "venv/bin/python3", "#!/bin/sh\nexit 1\n", 1);
	tree_dir(root, "venv/lib/python3.12/site-packages/nvidia_nccl_cu13-2.28.9.dist-info");
	tree_link(root, "venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2", FAKE_NCCL);
	unsetenv("VIRTUAL_ENV");
	unsetenv("CONDA_PREFIX");
	setenv("PATH", tree_path(root, "venv/bin", bin, sizeof bin), 1);
	struct python_info py;
	struct python_opts po = { 0 };

	assert_int_equal(python_probe(&py, &po, err), CD_OK);
	assert_int_equal(nccl_find(&c, &py, err), CD_OK);
	python_free(&py);
	tree_path(root, "venv/lib/python3.12/site-packages/nvidia/nccl/lib", p, sizeof p);
	for (size_t i = 0; i < c.n_dirs; i++)
		found |= strcmp(c.dirs[i], p) == 0;
	assert_true(found);
	assert_null(c.dirs[c.n_dirs]);
	nccl_copies_free(&c);
	setenv("PATH", saved, 1);
	tree_remove(root);
}

static void test_factors(void **state)
{
	(void)state;
	assert_true(nccl_bus_factor(NCCL_ALL_REDUCE, 1) == 0.0);
	assert_true(nccl_bus_factor(NCCL_ALL_REDUCE, 2) == 1.0);
	assert_true(nccl_bus_factor(NCCL_ALL_REDUCE, 8) == 1.75);
	assert_true(nccl_bus_factor(NCCL_ALL_GATHER, 4) == 0.75);
	assert_true(nccl_bus_factor(NCCL_REDUCE_SCATTER, 2) == 0.5);
	assert_true(nccl_bus_factor(NCCL_BROADCAST, 8) == 1.0);
	assert_true(nccl_nvlink_rate(9, 0) == 25e9);
	assert_true(nccl_nvlink_rate(10, 0) == 50e9);
	assert_true(nccl_nvlink_rate(5, 2) == 0);
}

static void test_verdicts(void **state)
{
	struct lab_result r;

	(void)state;
	memset(&r, 0, sizeof r);
	judge_nccl(&r, 1, 60, 0, 0, 1 << 30, 0, "");
	assert_int_equal(r.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(r.decided, "no link is involved"));
	memset(&r, 0, sizeof r);
	/* 2x H200 over NV18: nccl-tests reached 342 GB/s of 450 */
	judge_nccl(&r, 2, 60, 0, 342e9, (size_t)4 << 30, 450e9, "18 NVLinks");
	assert_int_equal(r.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(r.decided, "76% of 18 NVLinks 450.0 GB/s"));
	memset(&r, 0, sizeof r);
	judge_nccl(&r, 2, 60, 0, 20e9, (size_t)4 << 30, 450e9, "18 NVLinks");
	assert_int_equal(r.verdict, LAB_REFUTED);
	memset(&r, 0, sizeof r);
	judge_nccl(&r, 2, 60, 0, 600e9, (size_t)4 << 30, 450e9, "18 NVLinks");
	assert_int_equal(r.verdict, LAB_REFUTED);
	memset(&r, 0, sizeof r);
	judge_nccl(&r, 4, 60, 0, 20e9, (size_t)4 << 30, 0, "");
	assert_int_equal(r.verdict, LAB_INCONCLUSIVE);
	memset(&r, 0, sizeof r);
	judge_nccl(&r, 2, 59, 1, 342e9, (size_t)4 << 30, 450e9, "18 NVLinks");
	assert_true(r.wrong_result);
	assert_non_null(strstr(r.decided, "1 of 60"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_decode),
		cmocka_unit_test_setup(test_missing, clean_env),
		cmocka_unit_test_setup(test_fake_loads, clean_env),
		cmocka_unit_test_setup(test_too_old, clean_env),
		cmocka_unit_test_setup(test_init_failure, clean_env),
		cmocka_unit_test_setup(test_find_in_venv, clean_env),
		cmocka_unit_test(test_factors),
		cmocka_unit_test(test_verdicts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
