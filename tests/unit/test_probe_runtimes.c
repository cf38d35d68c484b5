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
#include <limits.h>

#include "probe/runtimes.h"
#include "probe_tree.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"
#include "probe/paths.h"

static const struct runtime *by_real(const struct runtimes *rs, const char *suffix)
{
	for (size_t i = 0; i < rs->n; i++)
		if (str_ends_with(rs->r[i].real_path, suffix))
			return &rs->r[i];
	return NULL;
}

/* Whatever this machine has: one picked copy per soname on the loader path, versions that
 * agree with their soname, no file listed twice. On the build machine, where
 * /usr/local/lib/libcudart.so.13 links to the wheel-built toolkit's copy: that one
 * runtime, found through the ld cache under the link's name, versioned by its dist-info. */
static void test_real_runtimes(void **state)
{
	struct runtimes rs;
	struct runtimes_opts o = { 0 };
	char err[CD_ERRMSG], real[4096];
	const struct runtime *rt;

	(void)state;
	unsetenv("LD_LIBRARY_PATH");
	unsetenv("CUDA_HOME");
	unsetenv("CUDA_PATH");
	unsetenv("CONDA_PREFIX");
	assert_int_equal(runtimes_probe(&rs, &o, err), CD_OK);
	for (size_t i = 0; i < rs.n; i++) {
		const struct runtime *a = &rs.r[i];
		size_t picked = 0;
		const char *so = strstr(a->soname, ".so.");
		assert_non_null(so);
		if (a->version.parts > 0)
			assert_int_equal(a->version.major, atoi(so + 4));
		for (size_t j = 0; j < rs.n; j++) {
			if (j != i)
				assert_string_not_equal(a->real_path, rs.r[j].real_path);
			if (rs.r[j].picked && strcmp(rs.r[j].soname, a->soname) == 0)
				picked++;
		}
		assert_true(picked <= 1);
		if (a->rank >= 0)
			assert_int_equal(picked, 1);
	}
	if (!path_is_symlink("/usr/local/lib/libcudart.so.13") || !realpath("/usr/local/lib/libcudart.so.13", real) ||
	    strcmp(real, "/usr/local/cuda-13.0/lib/libcudart.so.13") != 0) {
		runtimes_free(&rs);
		skip();
	}
	assert_true(rs.ldcache_ok);
	rt = by_real(&rs, "/usr/local/cuda-13.0/lib/libcudart.so.13");
	assert_non_null(rt);
	assert_string_equal(rt->path, "/usr/local/lib/libcudart.so.13");
	assert_true(rt->picked);
	assert_true(rt->rank >= 1000);
	assert_false(rt->from_ld_library_path);
	assert_string_equal(rt->soname, "libcudart.so.13");
	assert_int_equal(rt->origin, ORIGIN_TOOLKIT);
	assert_string_equal(rt->version_source, "dist-info");
	assert_int_equal(rt->version.major, 13);
	assert_true(rt->version.parts >= 2);
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

	/* cuDNN with the same machinery: an old copy in LD_LIBRARY_PATH beside the wheel's */
	tree_file(root, "ld/libcudnn.so.9.0.0", "\177ELF", 0);
	tree_link(root, "ld/libcudnn.so.9", "libcudnn.so.9.0.0");
	tree_file(root, "lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9", "\177ELF", 0);
	tree_dir(root, "lib/python3.11/site-packages/nvidia_cudnn_cu12-9.1.0.70.dist-info");
	o.library = "libcudnn";
	assert_int_equal(runtimes_probe(&rs, &o, err), CD_OK);
	assert_int_equal(rs.n, 2);
	rt = by_real(&rs, "/ld/libcudnn.so.9.0.0");
	assert_non_null(rt);
	assert_true(rt->picked);
	assert_string_equal(rt->soname, "libcudnn.so.9");
	assert_string_equal(rt->version_text, "9.0.0");
	rt = by_real(&rs, "/nvidia/cudnn/lib/libcudnn.so.9");
	assert_non_null(rt);
	assert_string_equal(rt->version_text, "9.1.0.70");
	assert_string_equal(rt->version_source, "dist-info");
	runtimes_free(&rs);
	/* a dist-info directory whose name carries no usable version: METADATA says */
	tree_file(root, "lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2", "\177ELF", 0);
	tree_file(root, "lib/python3.11/site-packages/nvidia_nccl_cu12-local.dist-info/METADATA",
		  "Metadata-Version: 2.1\nName: nvidia-nccl-cu12\nVersion: 2.21.5\n\nbody\n", 0);
	o.library = "libnccl";
	assert_int_equal(runtimes_probe(&rs, &o, err), CD_OK);
	assert_int_equal(rs.n, 1);
	assert_string_equal(rs.r[0].version_text, "2.21.5");
	assert_string_equal(rs.r[0].version_source, "dist-info");
	runtimes_free(&rs);
	/* libcublasLt is its own library, not a libcublas copy */
	tree_file(root, "ld/libcublasLt.so.12.4.5.8", "\177ELF", 0);
	o.library = "libcublas";
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
		cmocka_unit_test(test_real_runtimes),
		cmocka_unit_test(test_fake_layouts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
