/* probe/toolkits: the real toolkit on this machine, and fake trees for runfile
 * (version.json / version.txt), pip (dist-info) and version-less (nvcc --version) layouts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>

#include "probe/toolkits.h"
#include "probe_tree.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"

static void clear_env(void)
{
	unsetenv("CUDA_HOME");
	unsetenv("CUDA_PATH");
	unsetenv("CUDACXX");
	unsetenv("CONDA_PREFIX");
}

static const struct toolkit *by_real(const struct toolkits *ts, const char *suffix)
{
	for (size_t i = 0; i < ts->n; i++)
		if (str_ends_with(ts->t[i].real_nvcc, suffix))
			return &ts->t[i];
	return NULL;
}

/* The wheel-assembled CUDA 13.0 toolkit of the build machine: version from its dist-info. */
static void test_real_toolkit(void **state)
{
	struct toolkits ts;
	struct toolkits_opts o = { .no_spawn = true };
	char err[CD_ERRMSG];
	const struct toolkit *t;

	(void)state;
	char real[4096];

	if (!path_is_file("/usr/local/cuda/bin/nvcc") || !realpath("/usr/local/cuda/bin/nvcc", real) ||
	    !str_ends_with(real, "/cuda-13.0/bin/nvcc"))
		skip();
	clear_env();
	setenv("PATH", "/usr/local/cuda/bin:/usr/bin:/bin", 1);
	assert_int_equal(toolkits_probe(&ts, &o, err), CD_OK);
	t = by_real(&ts, "/cuda-13.0/bin/nvcc");
	assert_non_null(t);
	assert_true(t->selected);
	assert_string_equal(t->nvcc, "/usr/local/cuda/bin/nvcc");
	assert_true(t->found_by & TK_PATH);
	assert_true(t->found_by & TK_SYSTEM);
	assert_int_equal(t->version.major, 13);
	assert_int_equal(t->version.minor, 0);
	assert_non_null(t->version_source);
	assert_false(ts.spawned);
	toolkits_free(&ts);
}

#define FAKE_NVCC(release, full) \
	"#!/bin/sh\n[ \"$1\" = --version ] || exit 1\n" \
	"echo 'nvcc: NVIDIA (R) Cuda compiler driver'\necho 'Cuda compilation tools, release " release ", V" full "'\n"

static void test_fake_layouts(void **state)
{
	char root[64], path[16384], p1[4096], p2[4096], home[4096], site[4096];
	const char *sites[1];
	struct toolkits ts;
	struct toolkits_opts o = { 0 };
	char err[CD_ERRMSG];
	const struct toolkit *t;

	(void)state;
	clear_env();
	assert_non_null(tree_new(root, sizeof root));
	/* runfile 12.4 with version.json, on PATH second and named by CUDA_HOME */
	tree_file(root, "opt/cuda-12.4/bin/nvcc", FAKE_NVCC("12.4", "12.4.131"), 1);
	tree_file(root, "opt/cuda-12.4/version.json",
		  "{\"cuda\":{\"name\":\"CUDA SDK\",\"version\":\"12.4.1\"},\"cuda_nvcc\":{\"version\":\"12.4.131\"}}", 0);
	/* 11.8 without any version file: only running it tells; first on PATH */
	tree_file(root, "opt/cuda-11.8/bin/nvcc", FAKE_NVCC("11.8", "11.8.89"), 1);
	/* an old runfile toolkit under the test root's /usr/local with version.txt */
	tree_file(root, "usr/local/cuda-10.2/bin/nvcc", FAKE_NVCC("10.2", "10.2.89"), 1);
	tree_file(root, "usr/local/cuda-10.2/version.txt", "CUDA Version 10.2.89\n", 0);
	/* pip: CUDA 12 wheel layout and CUDA 13 wheel layout in one site-packages */
	tree_file(root, "lib/python3.11/site-packages/nvidia/cuda_nvcc/bin/nvcc", FAKE_NVCC("12.6", "12.6.85"), 1);
	tree_dir(root, "lib/python3.11/site-packages/nvidia_cuda_nvcc_cu12-12.6.85.dist-info");
	tree_file(root, "lib/python3.11/site-packages/nvidia/cu13/bin/nvcc", FAKE_NVCC("13.0", "13.0.88"), 1);
	tree_dir(root, "lib/python3.11/site-packages/nvidia_cuda_nvcc-13.0.88.dist-info");
	/* a file called nvcc that is not executable is not a toolkit */
	tree_file(root, "opt/broken/bin/nvcc", "not a program", 0);

	snprintf(path, sizeof path, "%s:%s:%s", tree_path(root, "opt/cuda-11.8/bin", p1, sizeof p1),
		 tree_path(root, "opt/cuda-12.4/bin", p2, sizeof p2), tree_path(root, "opt/broken/bin", home, sizeof home));
	setenv("PATH", path, 1);
	setenv("CUDA_HOME", tree_path(root, "opt/cuda-12.4", p1, sizeof p1), 1);
	sites[0] = tree_path(root, "lib/python3.11/site-packages", site, sizeof site);
	o.root = root;
	o.site_dirs = sites;
	o.n_site_dirs = 1;
	assert_int_equal(toolkits_probe(&ts, &o, err), CD_OK);
	assert_int_equal(ts.n, 5);
	assert_true(ts.spawned);

	t = by_real(&ts, "/opt/cuda-11.8/bin/nvcc");
	assert_non_null(t);
	assert_true(t->selected);
	assert_int_equal(t->path_rank, 0);
	assert_string_equal(t->version_text, "11.8.89");
	assert_string_equal(t->version_source, "nvcc --version");

	t = by_real(&ts, "/opt/cuda-12.4/bin/nvcc");
	assert_non_null(t);
	assert_false(t->selected);
	assert_int_equal(t->path_rank, 1);
	assert_int_equal(t->found_by, TK_PATH | TK_CUDA_HOME);
	assert_string_equal(t->version_text, "12.4.1");
	assert_string_equal(t->version_source, "version.json");

	t = by_real(&ts, "/usr/local/cuda-10.2/bin/nvcc");
	assert_non_null(t);
	assert_string_equal(t->version_text, "10.2.89");
	assert_string_equal(t->version_source, "version.txt");
	assert_int_equal(t->found_by, TK_SYSTEM);

	t = by_real(&ts, "/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin/nvcc");
	assert_non_null(t);
	assert_string_equal(t->version_text, "12.6.85");
	assert_string_equal(t->version_source, "dist-info");
	assert_int_equal(t->found_by, TK_PIP);

	t = by_real(&ts, "/lib/python3.11/site-packages/nvidia/cu13/bin/nvcc");
	assert_non_null(t);
	assert_string_equal(t->version_text, "13.0.88");
	assert_int_equal(t->version.major, 13);
	toolkits_free(&ts);

	/* never running nvcc leaves 11.8 unknown rather than guessed */
	o.no_spawn = true;
	assert_int_equal(toolkits_probe(&ts, &o, err), CD_OK);
	t = by_real(&ts, "/opt/cuda-11.8/bin/nvcc");
	assert_non_null(t);
	assert_int_equal(t->version.parts, 0);
	assert_null(t->version_source);
	assert_false(ts.spawned);
	toolkits_free(&ts);

	/* a wrapper script first on PATH is the toolkit it execs, not another one */
	snprintf(home, sizeof home, "#!/bin/sh\nexec %s/opt/cuda-12.4/bin/nvcc \"$@\"\n", root);
	tree_file(root, "wrap/bin/nvcc", home, 1);
	snprintf(path, sizeof path, "%s", tree_path(root, "wrap/bin", p1, sizeof p1));
	setenv("PATH", path, 1);
	unsetenv("CUDA_HOME");
	o.n_site_dirs = 0;
	o.no_spawn = true;
	assert_int_equal(toolkits_probe(&ts, &o, err), CD_OK);
	t = by_real(&ts, "/opt/cuda-12.4/bin/nvcc");
	assert_non_null(t);
	assert_true(t->selected);
	assert_true(str_ends_with(t->nvcc, "/wrap/bin/nvcc"));
	assert_true(str_ends_with(t->root, "/opt/cuda-12.4"));
	assert_int_equal(t->found_by, TK_PATH | TK_WRAPPER);
	assert_string_equal(t->version_text, "12.4.1");
	for (size_t i = 0; i < ts.n; i++)
		assert_null(strstr(ts.t[i].real_nvcc, "/wrap/"));
	toolkits_free(&ts);

	/* $CUDACXX names an nvcc that is nowhere else */
	unsetenv("CUDA_HOME");
	setenv("PATH", "/nonexistent", 1);
	setenv("CUDACXX", tree_path(root, "opt/cuda-11.8/bin/nvcc", p1, sizeof p1), 1);
	o.n_site_dirs = 0;
	assert_int_equal(toolkits_probe(&ts, &o, err), CD_OK);
	t = by_real(&ts, "/opt/cuda-11.8/bin/nvcc");
	assert_non_null(t);
	assert_int_equal(t->found_by, TK_CUDACXX);
	assert_false(t->selected); /* nothing on PATH: no plain `nvcc` */
	toolkits_free(&ts);
	clear_env();
	tree_remove(root);
}

static void test_found_by_text(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(toolkit_found_by_text(TK_PATH | TK_SYSTEM | TK_PIP, buf, sizeof buf), "PATH, system, pip wheel");
	assert_string_equal(toolkit_found_by_text(0, buf, sizeof buf), "");
	assert_string_equal(toolkit_found_by_text(TK_CUDA_HOME | TK_CUDA_PATH, buf, 12), "CUDA_HOME");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_toolkit),
		cmocka_unit_test(test_fake_layouts),
		cmocka_unit_test(test_found_by_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
