/* cudoctor arch end to end: the built binary on the nvcc fixtures. Listings against the
 * cuobjdump output committed in tests/fixtures/expected, the JSON contract, exit codes,
 * the JIT environment variables, --driver, --kernels and directory scans. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "arch_fixtures.h"
#include "testlib.h"

#ifndef CUDOCTOR_BINARY
#define CUDOCTOR_BINARY "build/cudoctor"
#endif
#ifndef CUDOCTOR_SOURCE_DIR
#define CUDOCTOR_SOURCE_DIR "."
#endif

/* No libcuda in the child: verdicts come from --gpu/--driver only, on any machine. */
static const char *const no_driver[] = {"CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1",
					"CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1", "CUDA_FORCE_PTX_JIT=",
					"CUDA_DISABLE_PTX_JIT=", "CUDA_FORCE_JIT=", "CUDA_DISABLE_JIT=", NULL};

static void need_fixtures(void)
{
	if (access(ARCH_FIXTURES "/k_sm90.fatbin", R_OK) != 0) {
		fprintf(stderr, "skipping: %s has no fixtures (nvcc was not found at configure time)\n", ARCH_FIXTURES);
		skip();
	}
}

static int run_in(const char *dir, const char *const argv[], const char *const env[], struct run_result *res)
{
	char old[PATH_MAX];
	if (!getcwd(old, sizeof(old)) || chdir(dir) != 0)
		return -1;
	int rc = testlib_run(argv, env, NULL, res);
	if (chdir(old) != 0)
		return -1;
	return rc;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 20);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* "/work/main/.gpu/arch/fx" (where the listings were made) -> the fixture folder here */
static char *localise(const char *text, const char *dir)
{
	static const char there[] = "/work/main/.gpu/arch/fx";
	char *out = calloc(1, strlen(text) * 2 + 4096);
	const char *p = text, *q;
	while ((q = strstr(p, there))) {
		strncat(out, p, (size_t)(q - p));
		strcat(out, dir);
		p = q + strlen(there);
	}
	strcat(out, p);
	return out;
}

static void test_listings_equal_cuobjdump(void **state)
{
	(void)state;
	need_fixtures();
	char *ver = read_all(ARCH_FIXTURES "/nvcc-version.txt");
	if (!ver || !strstr(ver, "cuda_13.0")) {
		fprintf(stderr, "skipping: the expected listings were made from nvcc 13.0 fixtures; this nvcc is %s",
			ver ? ver : "unknown\n");
		free(ver);
		skip();
	}
	free(ver);
	char dir[PATH_MAX];
	assert_non_null(realpath(ARCH_FIXTURES, dir));
	DIR *d = opendir(CUDOCTOR_SOURCE_DIR "/tests/fixtures/expected");
	assert_non_null(d);
	struct dirent *de;
	int compared = 0;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 4, ".txt") != 0)
			continue;
		char name[256], path[PATH_MAX];
		snprintf(name, sizeof(name), "%.*s", (int)(n - 4), de->d_name);
		snprintf(path, sizeof(path), "%s/tests/fixtures/expected/%s", CUDOCTOR_SOURCE_DIR, de->d_name);
		char *want_raw = read_all(path);
		char *want = localise(want_raw, dir);
		const char *argv[] = {CUDOCTOR_BINARY, "arch", "--cuobjdump", name, NULL};
		struct run_result res;
		assert_int_equal(run_in(ARCH_FIXTURES, argv, no_driver, &res), 0);
		if (strcmp(res.out, want) != 0)
			fprintf(stderr, "listing of %s differs:\n--- cuobjdump\n%s--- cudoctor\n%s", name, want, res.out);
		assert_string_equal(res.out, want);
		assert_int_equal(res.status, 0);
		run_result_free(&res);
		free(want);
		free(want_raw);
		compared++;
	}
	closedir(d);
	assert_true(compared >= 25);
}

/* NVIDIA's libraries: cuobjdump 13.0.85's listings of the pip wheels' copies on the H200
 * machine (tests/fixtures/expected/libs/NAME.SIZE.txt.gz); compared where this machine has
 * a library of that name and exact size (the same build, as checked when they were
 * committed), skipped otherwise. */
static void test_library_listings_equal_cuobjdump(void **state)
{
	(void)state;
	DIR *d = opendir(CUDOCTOR_SOURCE_DIR "/tests/fixtures/expected/libs");
	assert_non_null(d);
	struct dirent *de;
	int compared = 0;
	while ((de = readdir(d))) {
		char name[256];
		unsigned long long size;
		const char *so = strstr(de->d_name, ".so.");
		if (!so || sscanf(so + 4, "%*[0-9].%llu.txt.gz", &size) != 1)
			continue;
		/* NAME is everything before ".SIZE.txt.gz" */
		char tail[64];
		snprintf(tail, sizeof(tail), ".%llu.txt.gz", size);
		snprintf(name, sizeof(name), "%.*s", (int)(strlen(de->d_name) - strlen(tail)), de->d_name);
		char lib[512], gz[PATH_MAX];
		snprintf(lib, sizeof(lib), "/usr/local/cuda/lib64/%s", name);
		struct stat st;
		if (stat(lib, &st) != 0 || (unsigned long long)st.st_size != size) {
			fprintf(stderr, "note: %s absent or another build here; its listing is not compared\n", lib);
			continue;
		}
		snprintf(gz, sizeof(gz), "%s/tests/fixtures/expected/libs/%s", CUDOCTOR_SOURCE_DIR, de->d_name);
		gzFile g = gzopen(gz, "rb");
		assert_non_null(g);
		size_t cap = 1 << 22, len = 0;
		char *want = malloc(cap);
		int n;
		while ((n = gzread(g, want + len, (unsigned)(cap - 1 - len))) > 0)
			len += (size_t)n;
		want[len] = 0;
		gzclose(g);
		const char *argv[] = {CUDOCTOR_BINARY, "arch", "--cuobjdump", lib, NULL};
		struct run_result res;
		assert_int_equal(testlib_run(argv, no_driver, NULL, &res), 0);
		assert_int_equal(res.status, 0);
		assert_true(strcmp(res.out, want) == 0);
		run_result_free(&res);
		free(want);
		compared++;
	}
	closedir(d);
	if (!compared) {
		fprintf(stderr, "skipping: none of the CUDA 13.0 libraries with committed listings is installed here\n");
		skip();
	}
}

static json_t *run_json(const char *const argv[], const char *const env[], int *status)
{
	struct run_result res;
	json_error_t je;
	assert_int_equal(run_in(ARCH_FIXTURES, argv, env, &res), 0);
	json_t *j = json_loads(res.out, 0, &je);
	if (!j)
		fprintf(stderr, "not JSON (%s): %s\nstderr: %s\n", je.text, res.out, res.err);
	*status = res.status;
	run_result_free(&res);
	assert_non_null(j);
	return j;
}

static json_t *file_entry(json_t *j, const char *path)
{
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(j, "files"), i, f)
	if (strcmp(json_string_value(json_object_get(f, "path")), path) == 0)
		return f;
	fail_msg("no files[] entry for %s", path);
	return NULL;
}

static const char *result_of(json_t *j, const char *path)
{
	json_t *v = json_array_get(json_object_get(file_entry(j, path), "verdicts"), 0);
	return v ? json_string_value(json_object_get(v, "result")) : "(none)";
}

static void test_json_contract(void **state)
{
	(void)state;
	need_fixtures();
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "arch", "--gpu", "9.0", "--driver", "580.65.06",
			      "k_exe", "k_sm80.fatbin", "libk.a", "k_debug.fatbin", "no_such_file", NULL};
	int status;
	json_t *j = run_json(argv, no_driver, &status);
	assert_int_equal(status, 3); /* no_such_file could not be read; k_sm80's error finding is in the report */
	assert_string_equal(json_string_value(json_object_get(j, "command")), "arch");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "driver"), "ptx_isa_max")), "9.0");
	json_t *f = file_entry(j, "libk.a");
	assert_string_equal(json_string_value(json_object_get(f, "format")), "archive");
	assert_int_equal(json_integer_value(json_object_get(f, "containers")), 2);
	json_t *im = json_array_get(json_object_get(f, "images"), 3);
	assert_string_equal(json_string_value(json_object_get(im, "kind")), "ptx");
	assert_string_equal(json_string_value(json_object_get(im, "arch")), "compute_90");
	assert_string_equal(json_string_value(json_object_get(im, "section")), "__nv_relfatbin");
	assert_string_equal(json_string_value(json_object_get(im, "member")), "k_rdc.o");
	assert_string_equal(json_string_value(json_object_get(im, "ptx_isa")), "9.0");
	assert_string_equal(json_string_value(json_object_get(im, "compression")), "zstd");
	assert_true(json_integer_value(json_object_get(im, "stored_bytes")) <
		    json_integer_value(json_object_get(im, "uncompressed_bytes")));
	assert_true(json_is_false(json_object_get(im, "debug")));
	json_t *dbg = json_array_get(json_object_get(file_entry(j, "k_debug.fatbin"), "images"), 0);
	assert_true(json_is_true(json_object_get(dbg, "debug")));
	assert_non_null(strstr(json_string_value(json_object_get(dbg, "identifier")), "k.cu"));

	json_t *v = json_array_get(json_object_get(file_entry(j, "k_exe"), "verdicts"), 0);
	assert_string_equal(json_string_value(json_object_get(v, "gpu")), "--gpu 9.0");
	assert_string_equal(json_string_value(json_object_get(v, "compute_capability")), "9.0");
	assert_string_equal(json_string_value(json_object_get(v, "result")), "jit");
	assert_string_equal(json_string_value(json_object_get(v, "image")), "compute_80");
	assert_non_null(strstr(json_string_value(json_object_get(v, "reason")), "ComputeCache"));
	assert_int_equal(json_integer_value(json_object_get(v, "containers_without_image")), 0);
	/* nvlink's two kernel-less containers, told by their decompressed images, are not judged */
	assert_int_equal(json_integer_value(json_object_get(v, "containers_without_kernels")), 2);
	assert_int_equal(json_integer_value(json_object_get(v, "containers_judged")), 1);
	assert_string_equal(result_of(j, "k_sm80.fatbin"), "no-image");
	assert_string_equal(result_of(j, "libk.a"), "native");

	json_t *bad = file_entry(j, "no_such_file");
	const char *e = json_string_value(json_object_get(bad, "error"));
	assert_non_null(e);
	assert_null(strchr(e, '\n'));
	assert_null(json_object_get(bad, "images"));

	size_t i;
	json_t *fd;
	bool seen = false;
	json_array_foreach(json_object_get(j, "findings"), i, fd)
	{
		if (strcmp(json_string_value(json_object_get(fd, "id")), "no-kernel-image") != 0)
			continue;
		seen = true;
		assert_string_equal(json_string_value(json_object_get(fd, "severity")), "error");
		assert_non_null(strstr(json_string_value(json_array_get(json_object_get(fd, "fix"), 0)), "-gencode arch=compute_90"));
	}
	assert_true(seen);
	json_decref(j);
}

/* A fatbin of k_exe's first stub container twice and its container of code: the second stub
 * is told from the first's answer (the same bytes), the code is not taken for a stub. */
static void test_repeated_stubs(void **state)
{
	(void)state;
	need_fixtures();
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "arch", "--gpu", "9.0", "--driver", "580.65.06", "k_exe", NULL};
	int status;
	json_t *j = run_json(argv, no_driver, &status), *im;
	size_t i, start[3] = {0}, size[3] = {0};
	FILE *in = fopen(ARCH_FIXTURES "/k_exe", "rb");
	assert_non_null(in);
	json_array_foreach(json_object_get(file_entry(j, "k_exe"), "images"), i, im) {
		size_t c = (size_t)json_integer_value(json_object_get(im, "container"));
		unsigned char hdr[16];
		if (c > 2 || size[c])
			continue;
		start[c] = (size_t)json_integer_value(json_object_get(im, "offset")) - 16; /* the first entry follows the header */
		assert_int_equal(fseek(in, (long)start[c], SEEK_SET), 0);
		assert_int_equal(fread(hdr, 1, 16, in), 16);
		for (int b = 7; b >= 0; b--)
			size[c] = size[c] << 8 | hdr[8 + b];
		size[c] += 16;
	}
	json_decref(j);
	assert_true(size[0] && size[2]);
	char dir[] = "/tmp/cudoctor-stubs-XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/stubs.fatbin", dir);
	FILE *out = fopen(path, "wb");
	assert_non_null(out);
	static const size_t order[] = {0, 0, 2};
	for (size_t k = 0; k < 3; k++) {
		unsigned char *buf = malloc(size[order[k]]);
		assert_non_null(buf);
		assert_int_equal(fseek(in, (long)start[order[k]], SEEK_SET), 0);
		assert_int_equal(fread(buf, 1, size[order[k]], in), size[order[k]]);
		assert_int_equal(fwrite(buf, 1, size[order[k]], out), size[order[k]]);
		free(buf);
	}
	fclose(in);
	assert_int_equal(fclose(out), 0);
	const char *argv2[] = {CUDOCTOR_BINARY, "--json", "arch", "--gpu", "9.0", "--driver", "580.65.06", path, NULL};
	j = run_json(argv2, no_driver, &status);
	json_t *v = json_array_get(json_object_get(file_entry(j, path), "verdicts"), 0);
	assert_int_equal(json_integer_value(json_object_get(file_entry(j, path), "containers")), 3);
	assert_int_equal(json_integer_value(json_object_get(v, "containers_without_kernels")), 2);
	assert_int_equal(json_integer_value(json_object_get(v, "containers_judged")), 1);
	assert_string_equal(json_string_value(json_object_get(v, "result")), "jit");
	json_decref(j);
	unlink(path);
	rmdir(dir);
}

static void test_exit_codes(void **state)
{
	(void)state;
	struct run_result res;
	const char *all_bad[] = {CUDOCTOR_BINARY, "arch", "--gpu", "9.0", "/nonexistent/x.so", NULL};
	assert_int_equal(testlib_run(all_bad, no_driver, NULL, &res), 0);
	assert_int_equal(res.status, 3);
	assert_non_null(strstr(res.out, "error: /nonexistent/x.so: "));
	run_result_free(&res);
	const char *usage[] = {CUDOCTOR_BINARY, "arch", "--gpu", "banana", "x", NULL};
	assert_int_equal(testlib_run(usage, no_driver, NULL, &res), 0);
	assert_int_equal(res.status, 2);
	assert_non_null(strstr(res.err, "banana"));
	run_result_free(&res);
	const char *none[] = {CUDOCTOR_BINARY, "arch", NULL};
	assert_int_equal(testlib_run(none, no_driver, NULL, &res), 0);
	assert_int_equal(res.status, 2);
	run_result_free(&res);
	/* a wildcard the shell left as it is (quoted here; Windows' shells never expand one) is
	 * expanded as a shell would, sorted; one that matches nothing is an input that cannot be
	 * read (it was "No such file or directory", or on Windows "Invalid argument") */
	if (access(ARCH_FIXTURES "/k_sm90.fatbin", R_OK) == 0) {
		const char *glob[] = {CUDOCTOR_BINARY, "-q", "arch", "--gpu", "9.0", "k_sm9?.fatbin", "*.nomatch", NULL};
		assert_int_equal(run_in(ARCH_FIXTURES, glob, no_driver, &res), 0);
		assert_int_equal(res.status, 3);
		assert_string_equal(res.out, "k_sm90.fatbin: --gpu 9.0: native\n");
		assert_string_equal(res.err, "cudoctor arch: *.nomatch: no file matches\n");
		run_result_free(&res);
	}
	/* a file without device code is not an error */
	const char *host[] = {CUDOCTOR_BINARY, "--json", "arch", "--gpu", "9.0", "/bin/sh", NULL};
	int status;
	json_t *j = run_json(host, no_driver, &status);
	assert_int_equal(status, 0);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "files"), 0), "format")),
			    "no-device-code");
	json_decref(j);
}

/* CUDA_FORCE_PTX_JIT and CUDA_DISABLE_PTX_JIT change verdicts as they changed the H200's
 * cuModuleLoadData results (bench/results/arch_h200_run1.md) */
static void test_jit_environment(void **state)
{
	(void)state;
	need_fixtures();
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "arch", "--gpu", "9.0", "--driver", "13.0", "k_sm90.fatbin",
			      "k_cm_none.fatbin", "k_ptx80.fatbin", "k_sm90.cubin", "k_ptx99.fatbin", NULL};
	const char *force[] = {"CUDOCTOR_LIBCUDA=/nonexistent", "CUDA_FORCE_PTX_JIT=1", "CUDA_DISABLE_PTX_JIT=", NULL};
	const char *disable[] = {"CUDOCTOR_LIBCUDA=/nonexistent", "CUDA_FORCE_PTX_JIT=", "CUDA_DISABLE_PTX_JIT=1", NULL};
	int status;
	json_t *j = run_json(argv, no_driver, &status);
	assert_string_equal(result_of(j, "k_sm90.fatbin"), "native");
	assert_string_equal(result_of(j, "k_ptx80.fatbin"), "jit");
	assert_string_equal(result_of(j, "k_ptx99.fatbin"), "ptx-too-new");
	json_decref(j);
	j = run_json(argv, force, &status);
	assert_string_equal(result_of(j, "k_sm90.fatbin"), "no-image");
	assert_string_equal(result_of(j, "k_cm_none.fatbin"), "jit");
	assert_string_equal(result_of(j, "k_sm90.cubin"), "native"); /* a bare cubin still loads */
	json_decref(j);
	j = run_json(argv, disable, &status);
	assert_string_equal(result_of(j, "k_sm90.fatbin"), "native");
	assert_string_equal(result_of(j, "k_ptx80.fatbin"), "jit-disabled");
	assert_string_equal(result_of(j, "k_ptx99.fatbin"), "jit-disabled");
	json_decref(j);
}

static bool has_finding(json_t *j, const char *id)
{
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(j, "findings"), i, f)
	if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0)
		return true;
	return false;
}

/* The fix line for the no-kernel-image finding of file on CC 9.0 that names needle, else NULL. */
static bool image_fix_has(const char *file, const char *needle)
{
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "arch", "--gpu", "9.0", "--driver", "590", file, NULL};
	int status;
	bool found = false;
	size_t i, k;
	json_t *j = run_json(argv, no_driver, &status), *f, *line;

	json_array_foreach(json_object_get(j, "findings"), i, f)
	if (strcmp(json_string_value(json_object_get(f, "id")), "no-kernel-image") == 0)
		json_array_foreach(json_object_get(f, "fix"), k, line)
		found |= strstr(json_string_value(line), needle) != NULL;
	json_decref(j);
	return found;
}

/* A library linked against libc10 is a PyTorch extension: rebuilt with TORCH_CUDA_ARCH_LIST,
 * never fixed by reinstalling torch; one's own library is rebuilt with -gencode. */
static void test_torch_extension_fix(void **state)
{
	(void)state;
	need_fixtures();
	if (access(ARCH_FIXTURES "/../arch_ext/k_torch_ext.so", R_OK) != 0)
		skip();
	assert_true(image_fix_has("../arch_ext/k_torch_ext.so", "TORCH_CUDA_ARCH_LIST=\"9.0"));
	assert_false(image_fix_has("../arch_ext/k_torch_ext.so", "--force-reinstall torch"));
	assert_true(image_fix_has("k_sm80.fatbin", "-gencode arch=compute_90"));
}

static void test_driver_option(void **state)
{
	(void)state;
	need_fixtures();
	int status;
	/* CUDA 12.4's JIT takes PTX ISA 8.4: nvcc 13's 9.0 PTX is too new */
	const char *old_jit[] = {CUDOCTOR_BINARY, "--json", "arch", "--gpu", "9.0", "--driver", "12.4", "k_ptx80.fatbin", NULL};
	json_t *j = run_json(old_jit, no_driver, &status);
	assert_string_equal(result_of(j, "k_ptx80.fatbin"), "ptx-too-new");
	assert_true(has_finding(j, "ptx-too-new"));
	assert_int_equal(status, 1);
	json_decref(j);
	/* a zstd-compressed SASS image on a 535 driver (before 550.54.14) */
	const char *zstd[] = {CUDOCTOR_BINARY, "--json", "arch", "--gpu", "9.0", "--driver", "535.104.05", "k_zstdall.fatbin",
			      "k_cm_none.fatbin", NULL};
	j = run_json(zstd, no_driver, &status);
	assert_true(has_finding(j, "zstd-needs-newer-driver"));
	json_decref(j);
	const char *none[] = {CUDOCTOR_BINARY, "--json", "arch", "--gpu", "9.0", "--driver", "535.104.05", "k_cm_none.fatbin", NULL};
	j = run_json(none, no_driver, &status);
	assert_false(has_finding(j, "zstd-needs-newer-driver"));
	assert_int_equal(status, 0);
	json_decref(j);
	/* family and arch-specific images chosen on Blackwell and Thor */
	const char *fam[] = {CUDOCTOR_BINARY, "--json", "arch", "--gpu", "10.3", "--gpu", "12.1", "--gpu", "11.0", "--driver", "13.0",
			     "k_mixed.fatbin", NULL};
	j = run_json(fam, no_driver, &status);
	json_t *vs = json_object_get(file_entry(j, "k_mixed.fatbin"), "verdicts");
	assert_string_equal(json_string_value(json_object_get(json_array_get(vs, 0), "image")), "sm_100f");
	assert_string_equal(json_string_value(json_object_get(json_array_get(vs, 1), "image")), "sm_120");
	/* 11.0: no SASS, compute_90a/compute_100f are not for it, compute_120 is above it */
	assert_string_equal(json_string_value(json_object_get(json_array_get(vs, 2), "result")), "no-image");
	json_decref(j);
}

static void test_kernels_and_directories(void **state)
{
	(void)state;
	need_fixtures();
	struct run_result res;
	const char *k[] = {CUDOCTOR_BINARY, "arch", "--kernels", "--gpu", "9.0", "k_lz4all.fatbin", NULL};
	assert_int_equal(run_in(ARCH_FIXTURES, k, no_driver, &res), 0);
	assert_non_null(strstr(res.out, "sm_90 kernels (2): add, scale"));
	assert_non_null(strstr(res.out, "compute_90 kernels (2): scale, add"));
	run_result_free(&res);
	int status;
	const char *dir[] = {CUDOCTOR_BINARY, "--json", "arch", "-r", "--gpu", "9.0", "--driver", "13.0", ".", NULL};
	json_t *j = run_json(dir, no_driver, &status);
	size_t n = json_array_size(json_object_get(j, "files"));
	assert_true(n >= 25);
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(j, "files"), i, f)
	{
		assert_null(json_object_get(f, "error"));
		assert_string_not_equal(json_string_value(json_object_get(f, "format")), "no-device-code");
	}
	json_decref(j);
}

/* "file carries:" lists SASS then PTX, each in natural arch order, not in the order the
 * containers hold them (k_mixed holds sm_90a, compute_90a, sm_100f, ...) */
static void test_file_carries_in_natural_order(void **state)
{
	(void)state;
	need_fixtures();
	struct run_result res;
	const char *argv[] = {CUDOCTOR_BINARY, "arch", "--gpu", "7.0", "--driver", "13.0", "k_mixed.fatbin", NULL};
	const char *env[] = {"COLUMNS=9999", no_driver[0], no_driver[1], NULL}; /* one line per evidence */
	assert_int_equal(run_in(ARCH_FIXTURES, argv, env, &res), 0);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.out, "file carries: sm_75, sm_80, sm_90a, sm_100f, sm_120, compute_90a, "
					"compute_100f, compute_120"));
	run_result_free(&res);
}

/* A directory among files without -r is named on stderr and skipped; the files are still
 * judged and the run exits 3 (an input not read). A directory alone is a usage error. */
static void test_directory_among_files(void **state)
{
	(void)state;
	need_fixtures();
	struct run_result res;
	const char *mixed[] = {CUDOCTOR_BINARY, "-q", "arch", "--gpu", "9.0", "--driver", "13.0", ".",
			       "k_sm90.fatbin", NULL};
	assert_int_equal(run_in(ARCH_FIXTURES, mixed, no_driver, &res), 0);
	assert_int_equal(res.status, 3);
	assert_non_null(strstr(res.err, ". is a directory; skipped (use -r to search it)"));
	assert_non_null(strstr(res.out, "k_sm90.fatbin: --gpu 9.0: native"));
	run_result_free(&res);
	const char *alone[] = {CUDOCTOR_BINARY, "arch", "--gpu", "9.0", ".", NULL};
	assert_int_equal(run_in(ARCH_FIXTURES, alone, no_driver, &res), 0);
	assert_int_equal(res.status, 2);
	assert_non_null(strstr(res.err, ". is a directory; use -r to search it"));
	run_result_free(&res);
}

#ifndef CUDOCTOR_FAKES_DIR
#define CUDOCTOR_FAKES_DIR "build/tests/fakes"
#endif

/* Without --gpu: the GPUs and driver of this machine, here the fake libcuda's. */
static void test_gpus_here(void **state)
{
	(void)state;
	need_fixtures();
	if (access(CUDOCTOR_FAKES_DIR "/libcuda.so.1", R_OK) != 0) {
		fprintf(stderr, "skipping: no fake libcuda in %s\n", CUDOCTOR_FAKES_DIR);
		skip();
	}
	/* two kinds of GPU in CUDA's default order: NVML cannot tell that order, libcuda says it */
	const char *env[] = {"CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1",
			     "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1",
			     "FAKE_GPUS=NVIDIA GeForce RTX 4060 Ti:8.9:8GiB;NVIDIA H200:9.0:141GiB",
			     "FAKE_CUDA_DRIVER_VERSION=12040", "CUDA_VISIBLE_DEVICES=", "CUDA_FORCE_PTX_JIT=",
			     "CUDA_DISABLE_PTX_JIT=", NULL};
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "arch", "k_sm90.fatbin", "k_ptx80.fatbin", NULL};
	int status;
	json_t *j = run_json(argv, env, &status);
	json_t *gpus = json_object_get(j, "gpus");
	assert_int_equal(json_array_size(gpus), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(gpus, 0), "gpu")),
			    "GPU 0 (NVIDIA GeForce RTX 4060 Ti)");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "driver"), "cuda_version")), "12.4");
	json_t *v = json_object_get(file_entry(j, "k_sm90.fatbin"), "verdicts");
	assert_string_equal(json_string_value(json_object_get(json_array_get(v, 0), "result")), "no-image");
	assert_string_equal(json_string_value(json_object_get(json_array_get(v, 1), "result")), "native");
	/* CUDA 12.4's JIT takes PTX ISA 8.4; nvcc 13 wrote 9.0 */
	v = json_object_get(file_entry(j, "k_ptx80.fatbin"), "verdicts");
	assert_string_equal(json_string_value(json_object_get(json_array_get(v, 1), "result")), "ptx-too-new");
	assert_int_equal(status, 1);
	json_decref(j);

	/* a driver that fails cuInit: listing only, said in the report, not an error */
	const char *broken[] = {"CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1",
				"CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1", "FAKE_CUDA_INIT_RESULT=999", NULL};
	const char *text[] = {CUDOCTOR_BINARY, "arch", "k_sm90.fatbin", NULL};
	struct run_result res;
	assert_int_equal(run_in(ARCH_FIXTURES, text, broken, &res), 0);
	assert_int_equal(res.status, 0);
	assert_non_null(strstr(res.out, "cuInit failed"));
	assert_non_null(strstr(res.out, "sm_90"));
	run_result_free(&res);
}

/* Runs arch on k_sm90.fatbin with env plus a cuInit log; returns the JSON, and in
 * *cuinit whether libcuda's cuInit was called. */
static json_t *gpus_run(const char *const extra[], bool *cuinit)
{
	char log[] = "/tmp/cudoctor-cuinit-XXXXXX", log_env[64];
	int fd = mkstemp(log);
	assert_true(fd >= 0);
	close(fd);
	snprintf(log_env, sizeof(log_env), "FAKE_CUDA_CALL_LOG=%s", log);
	const char *env[16] = {"CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1",
			       "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1", log_env,
			       "CUDA_VISIBLE_DEVICES=", "CUDA_DEVICE_ORDER=", "FAKE_CUDA_ORDER=",
			       "CUDOCTOR_HOST_ROOT=/nonexistent", NULL};
	size_t n = 7;
	for (size_t i = 0; extra[i] && n < 15; i++)
		env[n++] = extra[i];
	env[n] = NULL;
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "arch", "k_sm90.fatbin", NULL};
	int status;
	json_t *j = run_json(argv, env, &status);
	char *calls = read_all(log);
	assert_non_null(calls);
	*cuinit = strstr(calls, "cuInit") != NULL;
	free(calls);
	unlink(log);
	return j;
}

static const char *gpu_name(json_t *j, size_t i);

/* A host root whose /proc/driver/nvidia is as the kernel module writes it (H200, 580.159.04 on the
 * project's GPU machine), one directory per GPU. */
static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static void make_proc(const char *root, const char *const buses[], const char *const models[], size_t n)
{
	char p[512];
	snprintf(p, sizeof p, "mkdir -p %s/proc/driver/nvidia/gpus", root);
	assert_int_equal(system(p), 0);
	snprintf(p, sizeof p, "%s/proc/driver/nvidia/version", root);
	write_file(p, "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  "
		      "(dvs-builder@U22-I3-AE18-23-3)  Thu Mar  6 2025\nGCC version:  gcc version 12.3.0\n");
	for (size_t i = 0; i < n; i++) {
		char text[512];
		snprintf(p, sizeof p, "mkdir -p %s/proc/driver/nvidia/gpus/%s %s/proc/driver/nvidia/capabilities/gpu%zu/mig",
			 root, buses[i], root, i);
		assert_int_equal(system(p), 0);
		snprintf(p, sizeof p, "%s/proc/driver/nvidia/gpus/%s/information", root, buses[i]);
		snprintf(text, sizeof text,
			 "Model: \t\t %s\nIRQ:   \t\t 50\nGPU UUID: \t GPU-16288b7a-ae7b-af08-6b95-94e095802d%02zx\n"
			 "Video BIOS: \t 96.00.a5.00.01\nBus Type: \t PCIe\nDMA Size: \t 52 bits\n"
			 "DMA Mask: \t 0xfffffffffffff\nBus Location: \t %s\nDevice Minor: \t %zu\nGPU Excluded:\t No\n",
			 models[i], i, buses[i], i);
		write_file(p, text);
	}
}

static json_t *proc_run(const char *root, const char *visible, bool *cuinit)
{
	char proc_env[300], vis_env[200];
	snprintf(proc_env, sizeof proc_env, "CUDOCTOR_HOST_ROOT=%s", root);
	snprintf(vis_env, sizeof vis_env, "CUDA_VISIBLE_DEVICES=%s", visible ? visible : "");
	const char *extra[] = {proc_env, visible ? vis_env : "FAKE_GPUS=NVIDIA GeForce RTX 3090:8.6:24GiB", NULL};
	return gpus_run(extra, cuinit);
}

/* arch reads the GPUs from the kernel module's /proc files and the kb's names, with no
 * NVML and no cuInit; what /proc cannot settle (MIG, an unknown model) goes to the libraries. */
static void test_gpus_from_proc(void **state)
{
	(void)state;
	need_fixtures();
	char root[] = "/tmp/cudoctor-proc-XXXXXX", p[600];
	assert_non_null(mkdtemp(root));
	const char *buses[] = {"0000:00:06.0", "0000:00:07.0"};
	const char *models[] = {"NVIDIA H200", "NVIDIA H200"};
	make_proc(root, buses, models, 2);
	bool cuinit;
	/* NVML and libcuda point nowhere: /proc alone answers */
	char proc_env[300];
	snprintf(proc_env, sizeof proc_env, "CUDOCTOR_HOST_ROOT=%s", root);
	const char *alone[] = {proc_env, "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1",
			       "CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1", "CUDA_VISIBLE_DEVICES=1", NULL};
	json_t *j = gpus_run(alone, &cuinit);
	assert_false(cuinit);
	assert_int_equal(json_array_size(json_object_get(j, "gpus")), 1);
	assert_string_equal(gpu_name(j, 0), "GPU 0 (NVIDIA H200)");
	json_t *d = json_object_get(j, "driver");
	assert_string_equal(json_string_value(json_object_get(d, "version")), "580.159.04");
	assert_string_equal(json_string_value(json_object_get(d, "cuda_version")), "13.0");
	json_t *v = json_object_get(file_entry(j, "k_sm90.fatbin"), "verdicts");
	assert_string_equal(json_string_value(json_object_get(json_array_get(v, 0), "result")), "native");
	json_decref(j);
	/* a UUID prefix maps through /proc's "GPU UUID" */
	j = proc_run(root, "GPU-16288b7a-ae7b-af08-6b95-94e095802d01", &cuinit);
	assert_false(cuinit);
	assert_int_equal(json_array_size(json_object_get(j, "gpus")), 1);
	json_decref(j);
	/* MIG instances on a GPU: CUDA shows those, so the libraries decide */
	snprintf(p, sizeof p, "mkdir -p %s/proc/driver/nvidia/capabilities/gpu1/mig/gi1", root);
	assert_int_equal(system(p), 0);
	j = proc_run(root, NULL, &cuinit);
	assert_string_equal(gpu_name(j, 0), "GPU 0 (NVIDIA GeForce RTX 3090)");
	json_decref(j);
	/* a model the kb does not name: the libraries decide */
	const char *odd[] = {"NVIDIA Prototype X1"};
	char root2[] = "/tmp/cudoctor-proc-XXXXXX";
	assert_non_null(mkdtemp(root2));
	make_proc(root2, buses, odd, 1);
	j = proc_run(root2, NULL, &cuinit);
	assert_string_equal(gpu_name(j, 0), "GPU 0 (NVIDIA GeForce RTX 3090)");
	json_decref(j);
	snprintf(p, sizeof p, "rm -rf %s %s", root, root2);
	assert_int_equal(system(p), 0);
}

static const char *gpu_name(json_t *j, size_t i)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(j, "gpus"), i), "gpu"));
}

/* arch takes the GPUs and the driver from NVML, without cuInit, where NVML can say what CUDA
 * would see; where it cannot (MIG, CUDA's own ordering of differing GPUs, unknown tokens),
 * from libcuda. */
static void test_gpus_from_nvml(void **state)
{
	(void)state;
	need_fixtures();
	if (access(CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1", R_OK) != 0) {
		fprintf(stderr, "skipping: no fake NVML in %s\n", CUDOCTOR_FAKES_DIR);
		skip();
	}
	bool cuinit;
	const char *two_h200[] = {"FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA H200:9.0:141GiB",
				  "FAKE_NVML_DRIVER_VERSION=550.54.14", "FAKE_NVML_CUDA_VERSION=12040",
				  "FAKE_CUDA_DRIVER_VERSION=12040", "CUDA_VISIBLE_DEVICES=1", NULL};
	json_t *j = gpus_run(two_h200, &cuinit);
	assert_false(cuinit);
	assert_int_equal(json_array_size(json_object_get(j, "gpus")), 1);
	assert_string_equal(gpu_name(j, 0), "GPU 0 (NVIDIA H200)");
	json_t *d = json_object_get(j, "driver");
	assert_string_equal(json_string_value(json_object_get(d, "version")), "550.54.14");
	assert_string_equal(json_string_value(json_object_get(d, "cuda_version")), "12.4");
	assert_string_equal(json_string_value(json_object_get(d, "ptx_isa_max")), "8.4");
	json_t *v = json_object_get(file_entry(j, "k_sm90.fatbin"), "verdicts");
	assert_string_equal(json_string_value(json_object_get(json_array_get(v, 0), "result")), "native");
	json_decref(j);

	/* differing GPUs in PCI order: NVML's order is CUDA's; index 1 is the H200 */
	const char *pci[] = {"FAKE_GPUS=NVIDIA GeForce RTX 4060 Ti:8.9:8GiB;NVIDIA H200:9.0:141GiB",
			     "CUDA_DEVICE_ORDER=PCI_BUS_ID", "FAKE_CUDA_ORDER=1,0", "CUDA_VISIBLE_DEVICES=1,0", NULL};
	j = gpus_run(pci, &cuinit);
	assert_false(cuinit);
	assert_string_equal(gpu_name(j, 0), "GPU 0 (NVIDIA H200)");
	assert_string_equal(gpu_name(j, 1), "GPU 1 (NVIDIA GeForce RTX 4060 Ti)");
	json_decref(j);

	/* the same GPUs in CUDA's default order: only cuInit knows it (here H200 first) */
	const char *fastest[] = {"FAKE_GPUS=NVIDIA GeForce RTX 4060 Ti:8.9:8GiB;NVIDIA H200:9.0:141GiB",
				 "FAKE_CUDA_ORDER=1,0", NULL};
	j = gpus_run(fastest, &cuinit);
	assert_true(cuinit);
	assert_string_equal(gpu_name(j, 0), "GPU 0 (NVIDIA H200)");
	assert_string_equal(gpu_name(j, 1), "GPU 1 (NVIDIA GeForce RTX 4060 Ti)");
	json_decref(j);

	/* tokens NVML cannot resolve as CUDA would, MIG on, and no NVML at all: cuInit */
	const char *mig_token[] = {"CUDA_VISIBLE_DEVICES=MIG-0c1e2f3a-0000-0000-0000-000000000000", NULL};
	const char *bad_token[] = {"CUDA_VISIBLE_DEVICES=0,banana", NULL};
	const char *mig_on[] = {"FAKE_NVML_MIG_DEVICES=0:1g.18gb:18GiB", NULL};
	const char *no_nvml[] = {"CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1", NULL};
	const char *const *fallbacks[] = {mig_token, bad_token, mig_on, no_nvml};
	for (size_t i = 0; i < sizeof(fallbacks) / sizeof(fallbacks[0]); i++) {
		j = gpus_run(fallbacks[i], &cuinit);
		if (!cuinit)
			fail_msg("case %zu: cuInit was not called", i);
		json_decref(j);
	}
	/* one plain GPU: NVML alone */
	const char *one[] = {"FAKE_GPUS=NVIDIA GeForce RTX 3090:8.6:24GiB", NULL};
	j = gpus_run(one, &cuinit);
	assert_false(cuinit);
	assert_string_equal(gpu_name(j, 0), "GPU 0 (NVIDIA GeForce RTX 3090)");
	json_decref(j);
}

/* --ollama reads $OLLAMA_LIBRARY_PATH: only modules (*.so*, *.dll, *.pyd). --python=PY asks PY for its
 * site-packages and reads there the files doctor judges: a framework's device code
 * (torch/lib/libtorch_cuda.so), not another library beside it. */
static void test_environment_scans(void **state)
{
	(void)state;
	need_fixtures();
	char dir[PATH_MAX], env_ollama[PATH_MAX + 32];
	assert_non_null(realpath(ARCH_FIXTURES, dir));
	snprintf(env_ollama, sizeof(env_ollama), "OLLAMA_LIBRARY_PATH=%s", dir);
	const char *env[] = {"CUDOCTOR_LIBCUDA=/nonexistent", env_ollama, NULL};
	const char *ollama[] = {CUDOCTOR_BINARY, "--json", "arch", "--ollama", "--gpu", "9.0", "--driver", "13.0", NULL};
	int status;
	json_t *j = run_json(ollama, env, &status);
	json_t *files = json_object_get(j, "files"), *file;
	size_t i, shared = 0;
	/* libk_shared.so is the only .so; the rest are Windows modules (k_win.dll, win_tree's):
	 * no executable, archive, object or fatbin */
	json_array_foreach(files, i, file) {
		const char *p = json_string_value(json_object_get(file, "path"));
		size_t len = strlen(p);

		if (strstr(p, "libk_shared.so")) {
			shared++;
			assert_string_equal(json_string_value(json_object_get(file, "format")), "shared-library");
		} else if (len < 4 || (strcmp(p + len - 4, ".dll") != 0 && strcmp(p + len - 4, ".pyd") != 0)) {
			fail_msg("--ollama read %s", p);
		}
	}
	assert_int_equal(shared, 1);
	json_decref(j);

	char site[] = "/tmp/cudoctor-site-XXXXXX", lib[PATH_MAX + 64], src[PATH_MAX + 64], cmd[3 * PATH_MAX];
	assert_non_null(mkdtemp(site));
	snprintf(src, sizeof(src), "%s/libk_shared.so", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/torch/lib' '%s/other' && cp '%s' '%s/torch/lib/libtorch_cuda.so' && "
		 "cp '%s' '%s/other/libk_shared.so'", site, site, src, site, src, site);
	assert_int_equal(system(cmd), 0);
	snprintf(lib, sizeof(lib), "%s/torch/lib/libtorch_cuda.so", site);
	char py[] = "/tmp/cudoctor-fakepy-XXXXXX";
	int fd = mkstemp(py);
	assert_true(fd >= 0);
	char script[PATH_MAX + 64];
	int n = snprintf(script, sizeof(script), "#!/bin/sh\necho %s\necho /nonexistent/site-packages\n", site);
	assert_int_equal(write(fd, script, (size_t)n), n);
	close(fd);
	chmod(py, 0700);
	char opt[PATH_MAX];
	snprintf(opt, sizeof(opt), "--python=%s", py);
	const char *python[] = {CUDOCTOR_BINARY, "--json", "arch", opt, "--gpu", "9.0", "--driver", "13.0", NULL};
	j = run_json(python, no_driver, &status);
	assert_int_equal(status, 0);
	assert_int_equal(json_array_size(json_object_get(j, "files")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "files"), 0), "path")), lib);
	json_decref(j);
	unlink(py);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", site);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listings_equal_cuobjdump), cmocka_unit_test(test_json_contract),
		cmocka_unit_test(test_repeated_stubs),
		cmocka_unit_test(test_exit_codes),               cmocka_unit_test(test_jit_environment),
		cmocka_unit_test(test_driver_option),            cmocka_unit_test(test_kernels_and_directories),
		cmocka_unit_test(test_environment_scans),        cmocka_unit_test(test_library_listings_equal_cuobjdump),
		cmocka_unit_test(test_gpus_here),                cmocka_unit_test(test_gpus_from_nvml),
		cmocka_unit_test(test_gpus_from_proc),              cmocka_unit_test(test_torch_extension_fix),
		cmocka_unit_test(test_file_carries_in_natural_order), cmocka_unit_test(test_directory_among_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
