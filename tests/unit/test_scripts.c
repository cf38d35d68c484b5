/* Output for scripts: -q prints the essential answer only, gencode --format prints one line,
 * --output writes the report whole or not at all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"
#include "util/err.h"
#include "util/file.h"

static const char *const no_driver[] = { "CUDOCTOR_LIBCUDA=/nonexistent", "CUDOCTOR_LIBNVML=/nonexistent", NULL };

static struct run_result runv(const char *const *argv)
{
	struct run_result r;

	assert_int_equal(testlib_run(argv, no_driver, NULL, &r), 0);
	return r;
}

#define RUN(...) runv((const char *const[]){ CUDOCTOR_BINARY, __VA_ARGS__, NULL })

static void test_gencode_prints_only_the_line(void **state)
{
	struct run_result a = RUN("gencode", "--gpu", "sm_89", "-g", "sm_90", "--toolkit", "12.8", "--format", "nvcc");
	struct run_result b = RUN("-q", "gencode", "--gpu=sm_90", "--toolkit=12.8");
	struct run_result c = RUN("gencode", "--gpu", "sm_90", "--toolkit", "12.8", "--format=cmake");
	struct run_result d = RUN("gencode", "--gpu", "sm_90", "--toolkit", "12.8", "--format=torch");

	(void)state;
	assert_int_equal(a.status, 0);
	assert_string_equal(a.out, "-gencode arch=compute_89,code=sm_89 -gencode arch=compute_90,code=sm_90 "
				   "-gencode arch=compute_90,code=compute_90\n");
	assert_string_equal(b.out, "-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90\n");
	assert_string_equal(c.out, "-DCMAKE_CUDA_ARCHITECTURES=\"90\"\n");
	assert_string_equal(d.out, "TORCH_CUDA_ARCH_LIST=\"9.0+PTX\"\n");
	run_result_free(&a);
	run_result_free(&b);
	run_result_free(&c);
	run_result_free(&d);
}

static void test_doctor_quiet_is_the_verdict_line(void **state)
{
	struct run_result r = RUN("-q", "doctor");

	(void)state;
	assert_int_equal(r.status, 1);
	assert_true(strncmp(r.out, "error: 1 error", 14) == 0);
	assert_non_null(strstr(r.out, "first: no-driver: "));
	assert_non_null(strchr(r.out, '\n'));
	assert_string_equal(strchr(r.out, '\n'), "\n"); /* one line */
	run_result_free(&r);
}

static void test_arch_quiet_is_a_verdict_per_file_and_gpu(void **state)
{
	struct run_result r = RUN("arch", "-q", "-g", "sm_90", "--gpu", "sm_80", CUDOCTOR_FIXTURES_DIR "/arch/k_sm80.fatbin", "/bin/sh");

	(void)state;
	if (access(CUDOCTOR_FIXTURES_DIR "/arch/k_sm80.fatbin", R_OK) != 0)
		skip(); /* the fixtures need nvcc */
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, CUDOCTOR_FIXTURES_DIR "/arch/k_sm80.fatbin: --gpu sm_90: no-image\n"
				   CUDOCTOR_FIXTURES_DIR "/arch/k_sm80.fatbin: --gpu sm_80: native\n"
				   "/bin/sh: no device code\n");
	run_result_free(&r);
}

static size_t files_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_output_is_whole_or_absent(void **state)
{
	char dir[] = "/tmp/cudoctor-output-XXXXXX", path[64], *text = NULL;
	char err[CD_ERRMSG];
	struct run_result r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/report.json", dir);
	r = RUN("kb", "gpu", "H200", "--json", "--output", path);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "");
	assert_int_equal(file_read_text(path, 1 << 20, &text, NULL, err), CD_OK);
	assert_true(strncmp(text, "{\n  \"tool\": \"cudoctor\"", 22) == 0);
	assert_int_equal(files_in(dir), 1); /* no temporary file left */
	free(text);
	run_result_free(&r);
	unlink(path);
	/* a usage error writes nothing */
	r = RUN("kb", "gpu", "no-such-gpu-anywhere", "-o", path);
	assert_int_equal(r.status, 2);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(files_in(dir), 0);
	run_result_free(&r);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gencode_prints_only_the_line),
		cmocka_unit_test(test_doctor_quiet_is_the_verdict_line),
		cmocka_unit_test(test_arch_quiet_is_a_verdict_per_file_and_gpu),
		cmocka_unit_test(test_output_is_whole_or_absent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
