/* probe/vertext and probe/ldcache: version texts as the tools and files really write them,
 * and this machine's /etc/ld.so.cache against `ldconfig -p`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe/ldcache.h"
#include "probe/vertext.h"
#include "util/err.h"
#include "util/file.h"

/* nvcc --version of /usr/local/cuda-13.0/bin/nvcc on the build machine */
static const char nvcc_13[] =
	"nvcc: NVIDIA (R) Cuda compiler driver\n"
	"Copyright (c) 2005-2025 NVIDIA Corporation\n"
	"Built on Wed_Aug_20_01:58:59_PM_PDT_2025\n"
	"Cuda compilation tools, release 13.0, V13.0.88\n"
	"Build cuda_13.0.r13.0/compiler.36424714_0\n";

static void test_nvcc_version(void **state)
{
	char out[32];
	static const char old_release_only[] = "Cuda compilation tools, release 9.2\n";

	(void)state;
	assert_int_equal(vt_nvcc_version(nvcc_13, strlen(nvcc_13), out, sizeof out), CD_OK);
	assert_string_equal(out, "13.0.88");
	assert_int_equal(vt_nvcc_version(old_release_only, strlen(old_release_only), out, sizeof out), CD_OK);
	assert_string_equal(out, "9.2");
	assert_int_equal(vt_nvcc_version("gcc (Debian 12.2.0-14) 12.2.0", 29, out, sizeof out), CD_ENOTFOUND);
	/* cut in the middle of the number: bounded by len, not by a NUL */
	assert_int_equal(vt_nvcc_version(nvcc_13, strstr(nvcc_13, "V13.0") + 3 - nvcc_13, out, sizeof out), CD_OK);
	assert_string_equal(out, "13");
}

static void test_version_json(void **state)
{
	/* the shape of a runfile toolkit's version.json (CUDA 12.4.1) */
	static const char j[] =
		"{\n   \"cuda\" : {\n      \"name\" : \"CUDA SDK\",\n      \"version\" : \"12.4.1\"\n   },\n"
		"   \"cuda_cudart\" : {\n      \"name\" : \"CUDA Runtime (cudart)\",\n      \"version\" : \"12.4.127\"\n   },\n"
		"   \"cuda_nvcc\" : {\n      \"name\" : \"CUDA NVCC\",\n      \"version\" : \"12.4.131\"\n   }\n}\n";
	char out[32];

	(void)state;
	assert_int_equal(vt_version_json(j, strlen(j), "cuda", out, sizeof out), CD_OK);
	assert_string_equal(out, "12.4.1");
	assert_int_equal(vt_version_json(j, strlen(j), "cuda_cudart", out, sizeof out), CD_OK);
	assert_string_equal(out, "12.4.127");
	assert_int_equal(vt_version_json(j, strlen(j), "cuda_nvcc", out, sizeof out), CD_OK);
	assert_string_equal(out, "12.4.131");
	assert_int_equal(vt_version_json(j, strlen(j), "libcublas", out, sizeof out), CD_ENOTFOUND);
	assert_int_equal(vt_version_json(j, 20, "cuda", out, sizeof out), CD_EFORMAT);
	static const char numeric[] = "{\"cuda\":{\"version\":12}}";
	assert_int_equal(vt_version_json(numeric, strlen(numeric), "cuda", out, sizeof out), CD_ENOTFOUND);
}

static void test_version_txt(void **state)
{
	char out[32];

	(void)state;
	assert_int_equal(vt_version_txt("CUDA Version 10.2.89\n", 21, out, sizeof out), CD_OK);
	assert_string_equal(out, "10.2.89");
	assert_int_equal(vt_version_txt("CUDA Version \n", 14, out, sizeof out), CD_ENOTFOUND);
}

static void test_proc_driver_version(void **state)
{
	/* proprietary and open kernel modules, as /proc/driver/nvidia/version prints them */
	static const char prop[] =
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n"
		"GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n";
	static const char open_km[] =
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (dvs-builder@U22-I3-AE18-23-3)  Tue Oct 14 18:00:00 UTC 2025\n"
		"GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04.2)\n";
	static const char aarch64[] =
		"NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.104.05  Sat Aug 19 00:59:57 UTC 2023\n";
	char out[64];
	bool open_module;

	(void)state;
	assert_int_equal(vt_proc_driver_version(prop, strlen(prop), out, sizeof out, &open_module), CD_OK);
	assert_string_equal(out, "550.54.14");
	assert_false(open_module);
	assert_int_equal(vt_proc_driver_version(open_km, strlen(open_km), out, sizeof out, &open_module), CD_OK);
	assert_string_equal(out, "580.159.04");
	assert_true(open_module);
	assert_int_equal(vt_proc_driver_version(aarch64, strlen(aarch64), out, sizeof out, &open_module), CD_OK);
	assert_string_equal(out, "535.104.05");
	assert_int_equal(vt_proc_driver_version("GCC version: 12\n", 16, out, sizeof out, &open_module), CD_ENOTFOUND);
}

static void test_torch_version_py(void **state)
{
	/* torch 2.x writes an annotated cuda line; torch 1.x a plain one */
	static const char cu124[] =
		"from typing import Optional\n\n"
		"__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']\n"
		"__version__ = '2.5.1+cu124'\n"
		"debug = False\n"
		"cuda: Optional[str] = '12.4'\n"
		"git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\n"
		"hip: Optional[str] = None\n"
		"xpu: Optional[str] = None\n";
	static const char cpu[] =
		"__version__ = '2.5.1+cpu'\ndebug = False\ncuda: Optional[str] = None\nhip: Optional[str] = None\n";
	static const char old[] = "__version__ = '1.13.1+cu117'\ndebug = False\ncuda = '11.7'\ngit_version = '49444c3e546bf240bed24a101e747422d1f8a0ee'\nhip = None\n";
	static const char rocm[] = "__version__ = '2.4.0+rocm6.0'\ncuda: Optional[str] = None\nhip: Optional[str] = '6.0.32830-d62f6a171'\n";
	struct torch_version_py tv;

	(void)state;
	assert_int_equal(vt_torch_version_py(cu124, strlen(cu124), &tv), CD_OK);
	assert_string_equal(tv.version, "2.5.1+cu124");
	assert_string_equal(tv.cuda, "12.4");
	assert_true(tv.has_cuda_line);
	assert_int_equal(vt_torch_version_py(cpu, strlen(cpu), &tv), CD_OK);
	assert_string_equal(tv.cuda, "");
	assert_true(tv.has_cuda_line);
	assert_int_equal(vt_torch_version_py(old, strlen(old), &tv), CD_OK);
	assert_string_equal(tv.version, "1.13.1+cu117");
	assert_string_equal(tv.cuda, "11.7");
	assert_int_equal(vt_torch_version_py(rocm, strlen(rocm), &tv), CD_OK);
	assert_string_equal(tv.hip, "6.0.32830-d62f6a171");
	assert_int_equal(vt_torch_version_py("debug = False\n", 14, &tv), CD_EFORMAT);
	/* an unterminated string is not a value */
	assert_int_equal(vt_torch_version_py("__version__ = '2.5", 18, &tv), CD_EFORMAT);
}

static void test_dist_info_and_metadata(void **state)
{
	char pkg[96], ver[48];
	static const char meta[] = "Metadata-Version: 2.4\nName: nvidia-cuda-nvcc\nVersion: 13.0.88\nSummary: CUDA nvcc\n\nVersion: 9.9\n";

	(void)state;
	assert_int_equal(vt_dist_info_name("nvidia_cuda_runtime_cu12-12.4.127.dist-info", pkg, sizeof pkg, ver, sizeof ver), CD_OK);
	assert_string_equal(pkg, "nvidia_cuda_runtime_cu12");
	assert_string_equal(ver, "12.4.127");
	assert_int_equal(vt_dist_info_name("nvidia_cudnn_cu13-9.19.0.56.dist-info", pkg, sizeof pkg, ver, sizeof ver), CD_OK);
	assert_string_equal(ver, "9.19.0.56");
	assert_int_equal(vt_dist_info_name("nvidia.dist-info", pkg, sizeof pkg, ver, sizeof ver), CD_EFORMAT);
	assert_int_equal(vt_dist_info_name("-1.0.dist-info", pkg, sizeof pkg, ver, sizeof ver), CD_EFORMAT);
	assert_int_equal(vt_dist_info_name("torch-2.5.1.egg-info", pkg, sizeof pkg, ver, sizeof ver), CD_EFORMAT);
	assert_int_equal(vt_metadata_version(meta, strlen(meta), ver, sizeof ver), CD_OK);
	assert_string_equal(ver, "13.0.88");
	/* the real METADATA of the wheel-built toolkit on this machine, when present */
	struct mapped_file mf;
	if (file_map("/usr/local/cuda-13.0/dist-info/nvidia_cuda_nvcc-13.0.88.dist-info/METADATA", &mf, NULL) == CD_OK) {
		assert_int_equal(vt_metadata_version((const char *)mf.data, mf.size, ver, sizeof ver), CD_OK);
		assert_string_equal(ver, "13.0.88");
		file_unmap(&mf);
	}
}

static void test_soname_and_header(void **state)
{
	char out[32];
	int v;
	static const char hdr[] = "/* comment */\n#define CUDART_VERSION  13000\n";

	(void)state;
	assert_int_equal(vt_soname_suffix("libcudart.so.12.4.127", "libcudart.so.", out, sizeof out), CD_OK);
	assert_string_equal(out, "12.4.127");
	assert_int_equal(vt_soname_suffix("libcuda.so.580.159.04", "libcuda.so.", out, sizeof out), CD_OK);
	assert_string_equal(out, "580.159.04");
	assert_int_equal(vt_soname_suffix("libcudart.so.13", "libcudart.so.", out, sizeof out), CD_OK);
	assert_string_equal(out, "13");
	assert_int_equal(vt_soname_suffix("libcudart-9335f6a2.so.12", "libcudart.so.", out, sizeof out), CD_ENOTFOUND);
	assert_int_equal(vt_soname_suffix("libcudart.so.12.bak", "libcudart.so.", out, sizeof out), CD_ENOTFOUND);
	assert_int_equal(vt_cudart_header(hdr, strlen(hdr), &v), CD_OK);
	assert_int_equal(v, 13000);
	assert_int_equal(vt_cudart_header("#define CUDART_VERSION\n", 23, &v), CD_EFORMAT);
}

/* Our parse of /etc/ld.so.cache lists what `ldconfig -p` lists, in the same order. */
static void test_ldcache_matches_ldconfig(void **state)
{
	struct ldcache c;
	char err[CD_ERRMSG] = "", line[4096];
	FILE *p;
	size_t i = 0, checked = 0;

	(void)state;
	if (!path_is_file("/etc/ld.so.cache") || access("/sbin/ldconfig", X_OK) != 0)
		skip();
	assert_int_equal(ldcache_load("/etc/ld.so.cache", &c, err), CD_OK);
	assert_true(c.n > 10);
	p = popen("/sbin/ldconfig -p", "r");
	assert_non_null(p);
	assert_non_null(fgets(line, sizeof line, p)); /* "N libs found in cache" */
	assert_int_equal(strtoul(line, NULL, 10), c.n);
	while (fgets(line, sizeof line, p) && i < c.n) {
		/* "\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1" */
		char *arrow = strstr(line, " => ");
		char *name = line + strspn(line, "\t ");
		assert_non_null(arrow);
		line[strcspn(line, "\n")] = '\0';
		assert_int_equal(strncmp(name, c.e[i].soname, strlen(c.e[i].soname)), 0);
		assert_string_equal(arrow + 4, c.e[i].path);
		i++;
		checked++;
	}
	pclose(p);
	assert_int_equal(checked, c.n);
	ldcache_free(&c);
}

static void test_ldcache_rejects_bad_input(void **state)
{
	struct mapped_file mf;
	struct ldcache c;
	char err[CD_ERRMSG];
	unsigned char *copy;

	(void)state;
	assert_int_equal(ldcache_parse((const unsigned char *)"", 0, &c, err), CD_EFORMAT);
	assert_int_equal(ldcache_parse((const unsigned char *)"glibc-ld.so.cache1.1", 20, &c, err), CD_EFORMAT);
	if (file_map("/etc/ld.so.cache", &mf, NULL) != CD_OK)
		skip();
	/* every truncation either parses fewer bytes cleanly or says where it broke */
	for (size_t cut = 0; cut < mf.size; cut += 1 + mf.size / 97) {
		int rc = ldcache_parse(mf.data, cut, &c, err);
		assert_true(rc == CD_OK || rc == CD_EFORMAT);
		if (rc == CD_EFORMAT)
			assert_non_null(strstr(err, "ld.so.cache"));
		else
			ldcache_free(&c);
	}
	/* an entry count far beyond the file */
	copy = malloc(mf.size);
	assert_non_null(copy);
	memcpy(copy, mf.data, mf.size);
	copy[20] = 0xff;
	copy[21] = 0xff;
	copy[22] = 0xff;
	assert_int_equal(ldcache_parse(copy, mf.size, &c, err), CD_EFORMAT);
	assert_non_null(strstr(err, "do not fit"));
	free(copy);
	file_unmap(&mf);
}

/* The crafted seeds of the fuzz corpus: new format alone and after the old table. */
static void test_ldcache_crafted(void **state)
{
	static const char *const files[] = { "three_entries", "old_and_new" };
	char path[4096], err[CD_ERRMSG];
	struct ldcache c;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/tests/fuzz/corpus/ldcache/%s", CUDOCTOR_SOURCE_DIR, files[i]);
		assert_int_equal(ldcache_load(path, &c, err), CD_OK);
		assert_int_equal(c.n, 3);
		assert_string_equal(c.e[0].soname, "libcudart.so.12");
		assert_string_equal(c.e[0].path, "/usr/local/cuda-12.4/lib64/libcudart.so.12");
		assert_string_equal(c.e[2].path, "/usr/lib32/libfoo.so.1");
#if defined(__x86_64__)
		assert_true(ldcache_entry_native(&c.e[1]));
		assert_false(ldcache_entry_native(&c.e[2])); /* an i386 library */
#endif
		ldcache_free(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvcc_version),
		cmocka_unit_test(test_version_json),
		cmocka_unit_test(test_version_txt),
		cmocka_unit_test(test_proc_driver_version),
		cmocka_unit_test(test_torch_version_py),
		cmocka_unit_test(test_dist_info_and_metadata),
		cmocka_unit_test(test_soname_and_header),
		cmocka_unit_test(test_ldcache_matches_ldconfig),
		cmocka_unit_test(test_ldcache_rejects_bad_input),
		cmocka_unit_test(test_ldcache_crafted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
