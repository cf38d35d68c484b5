/* probe/runtimes: this machine's libcudart through the real ld.so.cache, and fake trees
 * for LD_LIBRARY_PATH, pip wheel, torch/lib, conda and runfile toolkit layouts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/runtimes.h"
#include "probe_tree.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"

static const struct runtime *by_real(const struct runtimes *rs, const char *suffix)
{
	for (size_t i = 0; i < rs->n; i++)
		if (str_ends_with(rs->r[i].real_path, suffix))
			return &rs->r[i];
	return NULL;
}

/* /usr/local/lib/libcudart.so.13 links to the toolkit's copy: one runtime, found first
 * through the ld cache under the link's name, versioned by the toolkit's dist-info. */
static void test_real_runtime(void **state)
{
	struct runtimes rs;
	struct runtimes_opts o = { 0 };
	char err[CD_ERRMSG];
	const struct runtime *rt;

	(void)state;
	if (!path_is_file("/usr/local/cuda-13.0/lib/libcudart.so.13"))
		skip();
	unsetenv("LD_LIBRARY_PATH");
	unsetenv("CUDA_HOME");
	unsetenv("CUDA_PATH");
	unsetenv("CONDA_PREFIX");
	assert_int_equal(runtimes_probe(&rs, &o, err), CD_OK);
	assert_true(rs.ldcache_ok);
	rt = by_real(&rs, "/usr/local/cuda-13.0/lib/libcudart.so.13");
	assert_non_null(rt);
	assert_true(rt->picked);
	assert_true(rt->rank >= 1000);
	assert_false(rt->from_ld_library_path);
	assert_string_equal(rt->soname, "libcudart.so.13");
	assert_int_equal(rt->origin, ORIGIN_TOOLKIT);
	assert_int_equal(rt->version.major, 13);
	assert_true(rt->version.parts >= 2);
	size_t same = 0;
	for (size_t i = 0; i < rs.n; i++)
		same += strcmp(rs.r[i].real_path, rt->real_path) == 0;
	assert_int_equal(same, 1);
	runtimes_free(&rs);
}

static void test_fake_layouts(void **state)
{
	char root[64], ld[16384], a[4096], b[4096], site[4096];
	const char *sites[1];
	struct runtimes rs;
	struct runtimes_opts o = { 0 };
	char err[CD_ERRMSG];
	const struct runtime *rt;

	(void)state;
	assert_non_null(tree_new(root, sizeof root));
	/* LD_LIBRARY_PATH: a real versioned file with its soname link, and a second dir
	 * holding only another link to the same file */
	tree_file(root, "ld/libcudart.so.12.1.105", "\177ELF", 0);
	tree_link(root, "ld/libcudart.so.12", "libcudart.so.12.1.105");
	tree_link(root, "ld2/libcudart.so.12", "../ld/libcudart.so.12.1.105");
	/* CUDA 12 wheel */
	tree_file(root, "lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12", "\177ELF", 0);
	tree_dir(root, "lib/python3.11/site-packages/nvidia_cuda_runtime_cu12-12.4.127.dist-info");
	/* torch's own hashed copy, versioned by torch/version.py */
	tree_file(root, "lib/python3.11/site-packages/torch/lib/libcudart-9335f6a2.so.12", "\177ELF", 0);
	tree_file(root, "lib/python3.11/site-packages/torch/version.py", "__version__ = '2.1.2+cu121'\ndebug = False\ncuda: Optional[str] = '12.1'\n", 0);
	/* conda */
	tree_file(root, "conda/lib/libcudart.so.11.8.89", "\177ELF", 0);
	tree_link(root, "conda/lib/libcudart.so.11.0", "libcudart.so.11.8.89");
	/* a runfile toolkit under the test root's /usr/local, version.json beside it */
	tree_file(root, "usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12", "\177ELF", 0);
	tree_link(root, "usr/local/cuda-12.4/lib64", "targets/x86_64-linux/lib");
	tree_file(root, "usr/local/cuda-12.4/version.json", "{\"cuda\":{\"version\":\"12.4.1\"},\"cuda_cudart\":{\"version\":\"12.4.127\"}}", 0);
	/* the wheel's header knows only 12.4; its dist-info knows 12.4.127 */
	tree_file(root, "lib/python3.11/site-packages/nvidia/cuda_runtime/include/cuda_runtime_api.h", "#define CUDART_VERSION 12040\n", 0);
	/* a toolkit with neither version.json nor dist-info: its header tells major.minor */
	tree_file(root, "usr/local/cuda-12.2/lib64/libcudart.so.12", "\177ELF", 0);
	tree_file(root, "usr/local/cuda-12.2/include/cuda_runtime_api.h", "/* x */\n#define CUDART_VERSION 12020\n", 0);
	tree_file(root, "usr/local/cuda-12.2/bin/nvcc", "#!/bin/sh\n", 1);
	/* something that only looks similar */
	tree_file(root, "ld/libcudart_static.a", "!<arch>\n", 0);

	snprintf(ld, sizeof ld, "%s:%s", tree_path(root, "ld", a, sizeof a), tree_path(root, "ld2", b, sizeof b));
	setenv("LD_LIBRARY_PATH", ld, 1);
	setenv("CONDA_PREFIX", tree_path(root, "conda", a, sizeof a), 1);
	unsetenv("CUDA_HOME");
	unsetenv("CUDA_PATH");
	sites[0] = tree_path(root, "lib/python3.11/site-packages", site, sizeof site);
	o.root = root;
	o.site_dirs = sites;
	o.n_site_dirs = 1;
	assert_int_equal(runtimes_probe(&rs, &o, err), CD_OK);
	assert_false(rs.ldcache_ok); /* no /etc/ld.so.cache under the test root */
	assert_non_null(strstr(rs.ldcache_error, "ld.so.cache"));
	assert_int_equal(rs.n, 6);

	rt = by_real(&rs, "/ld/libcudart.so.12.1.105");
	assert_non_null(rt);
	assert_true(str_ends_with(rt->path, "/ld/libcudart.so.12"));
	assert_string_equal(rt->soname, "libcudart.so.12");
	assert_string_equal(rt->version_text, "12.1.105");
	assert_string_equal(rt->version_source, "file name");
	assert_int_equal(rt->rank, 0);
	assert_true(rt->from_ld_library_path);
	assert_true(rt->picked);
	assert_int_equal(rt->origin, ORIGIN_SYSTEM);

	rt = by_real(&rs, "/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12");
	assert_non_null(rt);
	assert_string_equal(rt->version_text, "12.4.127");
	assert_string_equal(rt->version_source, "dist-info");
	assert_int_equal(rt->origin, ORIGIN_PIP);
	assert_int_equal(rt->rank, -1);
	assert_false(rt->picked);

	rt = by_real(&rs, "/lib/python3.11/site-packages/torch/lib/libcudart-9335f6a2.so.12");
	assert_non_null(rt);
	assert_string_equal(rt->soname, "libcudart-9335f6a2.so.12");
	assert_string_equal(rt->version_text, "12.1");
	assert_string_equal(rt->version_source, "torch/version.py");
	assert_int_equal(rt->origin, ORIGIN_TORCH);

	rt = by_real(&rs, "/conda/lib/libcudart.so.11.8.89");
	assert_non_null(rt);
	assert_string_equal(rt->soname, "libcudart.so.11");
	assert_string_equal(rt->version_text, "11.8.89");
	assert_int_equal(rt->origin, ORIGIN_CONDA);

	rt = by_real(&rs, "/targets/x86_64-linux/lib/libcudart.so.12");
	assert_non_null(rt);
	assert_string_equal(rt->version_text, "12.4.127");
	assert_string_equal(rt->version_source, "version.json");
	assert_int_equal(rt->origin, ORIGIN_TOOLKIT);

	rt = by_real(&rs, "/cuda-12.2/lib64/libcudart.so.12");
	assert_non_null(rt);
	assert_string_equal(rt->version_text, "12.2");
	assert_string_equal(rt->version_source, "cuda_runtime_api.h");
	assert_int_equal(rt->origin, ORIGIN_TOOLKIT);
	runtimes_free(&rs);

	/* another library stem with the same machinery */
	o.library = "libcudnn";
	assert_int_equal(runtimes_probe(&rs, &o, err), CD_OK);
	assert_int_equal(rs.n, 0);
	runtimes_free(&rs);
	unsetenv("LD_LIBRARY_PATH");
	unsetenv("CONDA_PREFIX");
	tree_remove(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_runtime),
		cmocka_unit_test(test_fake_layouts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
