/* `arch --kernels` and `--resources` on AMD code objects: the msgpack reader refusing lying
 * lengths and deep nesting; and the real JAX ROCm plug-ins (tests/wheels/rocm_files.py,
 * cached in ~/.cache/cudoctor-test/rocm): every code object of a plain-bundle library listed
 * with the kernel names and register counts that LLVM 22's `llvm-readobj --notes` prints for
 * it, and the compressed (CCOB v3 zstd) bundles of ROCm 7's plug-in inflated to their kernels;
 * a code object clang builds here, read from its metadata and from its kernel descriptors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "binfmt/amdgpu_kernels.h"
#include "binfmt/msgpack.h"
#include "hip_fixtures.h"
#include "testlib.h"
#include "util/err.h"

#ifndef CUDOCTOR_BINARY
#define CUDOCTOR_BINARY "build/cudoctor"
#endif

static int skip_all(const unsigned char *p, size_t n)
{
	struct mp_reader r = {.data = p, .size = n};
	char err[CD_ERRMSG];
	return mp_skip(&r, err);
}

static void msgpack_bounds(void **state)
{
	(void)state;
	/* {"a": [1, -1, "x"]} */
	static const unsigned char ok[] = {0x81, 0xa1, 'a', 0x93, 0x01, 0xff, 0xa1, 'x'};
	struct mp_reader r = {.data = ok, .size = sizeof ok};
	struct mp_value v;
	char err[CD_ERRMSG];
	assert_int_equal(skip_all(ok, sizeof ok), CD_OK);
	assert_int_equal(mp_next(&r, &v, err), CD_OK);
	assert_int_equal(v.type, MP_MAP);
	assert_int_equal(v.u, 1);
	/* cut short: each prefix is refused, never read past */
	for (size_t n = 0; n < sizeof ok; n++)
		assert_int_equal(skip_all(ok, n), CD_EFORMAT);
	/* map32 declaring 2^32-1 pairs, str32 of 4 GiB, array16 of 65535 in 3 bytes */
	static const unsigned char map_lie[] = {0xdf, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02};
	static const unsigned char str_lie[] = {0xdb, 0xff, 0xff, 0xff, 0xff, 'a'};
	static const unsigned char arr_lie[] = {0xdc, 0xff, 0xff};
	assert_int_equal(skip_all(map_lie, sizeof map_lie), CD_EFORMAT);
	assert_int_equal(skip_all(str_lie, sizeof str_lie), CD_EFORMAT);
	assert_int_equal(skip_all(arr_lie, sizeof arr_lie), CD_EFORMAT);
	static const unsigned char unused[] = {0xc1};
	assert_int_equal(skip_all(unused, 1), CD_EFORMAT);
	/* arrays nested past MP_DEPTH_MAX */
	unsigned char deep[MP_DEPTH_MAX + 2];
	memset(deep, 0x91, sizeof deep);
	deep[sizeof deep - 1] = 0x00;
	assert_int_equal(skip_all(deep, sizeof deep), CD_EFORMAT);
	assert_int_equal(skip_all(deep + 3, sizeof deep - 3), CD_OK);
	/* a negative int16 and a uint64 */
	static const unsigned char nums[] = {0xd1, 0xff, 0x00, 0xcf, 0, 0, 0, 1, 0, 0, 0, 0};
	r = (struct mp_reader){.data = nums, .size = sizeof nums};
	assert_int_equal(mp_next(&r, &v, err), CD_OK);
	assert_int_equal(v.type, MP_INT);
	assert_int_equal(v.i, -256);
	assert_int_equal(mp_next(&r, &v, err), CD_OK);
	assert_int_equal(v.type, MP_UINT);
	assert_true(v.u == (uint64_t)1 << 32);
	/* not a code object */
	struct amdgpu_kernels ks;
	assert_int_equal(amdgpu_kernels_read(ok, sizeof ok, &ks, err), CD_EFORMAT);
}

static const char *llvm_readobj(void)
{
	static const char *const where[] = {"/usr/lib/llvm-22/bin/llvm-readobj", "/usr/bin/llvm-readobj-22",
					    "/usr/local/bin/llvm-readobj-22"};
	for (size_t i = 0; i < sizeof where / sizeof where[0]; i++)
		if (access(where[i], X_OK) == 0)
			return where[i];
	return NULL;
}

static json_t *arch_json(const char *opt, const char *path)
{
	struct run_result res;
	json_error_t je;
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "arch", opt, path, NULL};
	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	assert_int_equal(res.status, 0);
	json_t *j = json_loads(res.out, 0, &je);
	if (!j)
		fail_msg("not JSON (%s): %s", je.text, res.out);
	run_result_free(&res);
	return j;
}

static json_t *file0(json_t *j, const char *key)
{
	json_t *a = json_object_get(json_array_get(json_object_get(j, "files"), 0), key);
	assert_true(json_is_array(a));
	return a;
}

/* The value after "KEY:" on a line of llvm-readobj's YAML, from *pos on; advances *pos. */
static bool yaml_next(const char *text, const char **pos, const char *key, char *val, size_t cap)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\n    %s:", key); /* a kernel's key, not an argument's */
	const char *at = strstr(*pos, pat);
	if (!at)
		return false;
	at += strlen(pat);
	at += strspn(at, " ");
	size_t n = strcspn(at, "\n");
	snprintf(val, cap, "%.*s", (int)(n < cap ? n : cap - 1), at);
	*pos = at + n;
	(void)text;
	return true;
}

/* Each code object of a plain-bundle library, cut out where llvm-readobj --offloading says it
 * lies: its notes' kernels (in their order: .name, .sgpr_count, .vgpr_count sort after it) as
 * arch --resources lists them. */
static void notes_equal_llvm(void **state)
{
	(void)state;
	const char *readobj = llvm_readobj();
	if (!rocm_files())
		skip();
	if (!readobj) {
		fprintf(stderr, "skipping: no llvm-readobj of LLVM 22 (sh tools/deps.sh test installs llvm-22)\n");
		skip();
	}
	char lib[PATH_MAX + 64], tmp[] = "/tmp/cudoctor-co-XXXXXX";
	snprintf(lib, sizeof lib, "%s/jax_rocm60_plugin/_prng.so", rocm60.dir);
	struct run_result off;
	const char *lo[] = {readobj, "--offloading", lib, NULL};
	assert_int_equal(testlib_run(lo, NULL, NULL, &off), 0);
	json_t *j = arch_json("--resources", lib), *res = file0(j, "resources");
	FILE *f = fopen(lib, "rb");
	assert_non_null(f);
	int fd = mkstemp(tmp);
	assert_true(fd >= 0);
	close(fd);
	size_t objects = 0, kernels = 0;
	for (char *line = strtok(off.out, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long o, n;
		const char *uri = strstr(line, "#offset=");
		if (strncmp(line, "host-", 5) == 0 || !uri)
			continue;
		assert_int_equal(sscanf(uri, "#offset=%llu&size=%llu", &o, &n), 2);
		unsigned char *co = malloc(n);
		assert_non_null(co);
		assert_int_equal(fseek(f, (long)o, SEEK_SET), 0);
		assert_int_equal(fread(co, 1, n, f), n);
		FILE *w = fopen(tmp, "wb");
		assert_non_null(w);
		assert_int_equal(fwrite(co, 1, n, w), n);
		fclose(w);
		free(co);
		struct run_result notes;
		const char *ln[] = {readobj, "--notes", tmp, NULL};
		assert_int_equal(testlib_run(ln, NULL, NULL, &notes), 0);
		json_t *obj = json_array_get(res, objects++), *ks = json_object_get(obj, "kernels"), *k;
		assert_non_null(ks);
		const char *pos = notes.out;
		char name[4096], sgpr[32], vgpr[32];
		size_t i;
		json_array_foreach(ks, i, k) {
			/* .max_flat_workgroup_size, .name, ..., .sgpr_count, ..., .vgpr_count: in key order */
			assert_true(yaml_next(notes.out, &pos, ".name", name, sizeof name));
			assert_true(yaml_next(notes.out, &pos, ".sgpr_count", sgpr, sizeof sgpr));
			assert_true(yaml_next(notes.out, &pos, ".vgpr_count", vgpr, sizeof vgpr));
			assert_string_equal(json_string_value(json_object_get(k, "name")), name);
			assert_int_equal(json_integer_value(json_object_get(k, "sgprs")), atoll(sgpr));
			assert_int_equal(json_integer_value(json_object_get(k, "vgprs")), atoll(vgpr));
			kernels++;
		}
		assert_false(yaml_next(notes.out, &pos, ".name", name, sizeof name)); /* none left unlisted */
		run_result_free(&notes);
	}
	assert_int_equal(objects, json_array_size(res));
	assert_true(objects >= 10 && kernels >= objects);
	unlink(tmp);
	fclose(f);
	json_decref(j);
	run_result_free(&off);
}

/* ROCm 7's plug-in: compressed bundles inflated; each code object's kernels come from its
 * metadata, and --kernels lists the same names as --resources. */
static void compressed_bundles(void **state)
{
	(void)state;
	if (!rocm_files())
		skip();
	char lib[PATH_MAX + 64];
	snprintf(lib, sizeof lib, "%s/jax_rocm7_plugin/_linalg.so", rocm7.dir);
	json_t *r = arch_json("--resources", lib), *k = arch_json("--kernels", lib);
	json_t *res = file0(r, "resources"), *cos = file0(k, "code_objects"), *o;
	size_t i;
	assert_true(json_array_size(res) >= 2);
	assert_int_equal(json_array_size(res), json_array_size(cos));
	json_array_foreach(res, i, o) {
		json_t *names = json_object_get(json_array_get(cos, i), "kernels"), *kk = json_object_get(o, "kernels");
		assert_null(json_object_get(o, "error"));
		assert_true(json_is_true(json_object_get(o, "from_metadata")));
		assert_true(json_array_size(kk) > 0);
		assert_int_equal(json_array_size(kk), json_array_size(names));
		for (size_t n = 0; n < json_array_size(kk); n++) {
			json_t *kn = json_array_get(kk, n);
			assert_string_equal(json_string_value(json_object_get(kn, "name")),
					    json_string_value(json_array_get(names, n)));
			assert_true(json_integer_value(json_object_get(kn, "vgprs")) > 0);
			assert_true(json_integer_value(json_object_get(kn, "wavefront_size")) == 32 ||
				    json_integer_value(json_object_get(kn, "wavefront_size")) == 64);
		}
	}
	json_decref(r);
	json_decref(k);
}

/* A code object clang builds here (two OpenCL kernels, one with a 1 KiB __local array): its
 * metadata's LDS per kernel, and the same from the kernel descriptors once the note's type is
 * no longer NT_AMDGPU_METADATA (registers then unknown). */
static void clang_code_object(void **state)
{
	(void)state;
	char cl[] = "/tmp/cudoctor-cl-XXXXXX", co[PATH_MAX];
	int fd = mkstemp(cl);
	assert_true(fd >= 0);
	static const char src[] = "__kernel void add(__global float *a, float b, int i) { a[i] += b; }\n"
				  "__kernel void big(__global float *a, int i) { __local float s[256]; s[i & 255] = a[i];"
				  " a[i] = s[255 - (i & 255)]; }\n";
	assert_int_equal(write(fd, src, sizeof src - 1), (ssize_t)(sizeof src - 1));
	close(fd);
	snprintf(co, sizeof co, "%s.co", cl);
	struct run_result res;
	const char *cc[] = {"/usr/bin/env", "clang", "-x", "cl", "--target=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-nogpulib", "-O2", cl, "-o", co, NULL};
	assert_int_equal(testlib_run(cc, NULL, NULL, &res), 0);
	if (res.status != 0) {
		fprintf(stderr, "skipping: clang cannot build for amdgcn: %s\n", res.err ? res.err : "");
		run_result_free(&res);
		unlink(cl);
		skip();
	}
	run_result_free(&res);
	for (int pass = 0; pass < 2; pass++) {
		json_t *j = arch_json("--resources", co), *o = json_array_get(file0(j, "resources"), 0);
		json_t *ks = json_object_get(o, "kernels");
		assert_int_equal(json_array_size(ks), 2);
		assert_int_equal(json_is_true(json_object_get(o, "from_metadata")), pass == 0);
		assert_string_equal(json_string_value(json_object_get(json_array_get(ks, 0), "name")), "add");
		assert_string_equal(json_string_value(json_object_get(json_array_get(ks, 1), "name")), "big");
		assert_int_equal(json_integer_value(json_object_get(json_array_get(ks, 0), "lds_bytes")), 0);
		assert_int_equal(json_integer_value(json_object_get(json_array_get(ks, 1), "lds_bytes")), 1024);
		assert_int_equal(json_is_null(json_object_get(json_array_get(ks, 1), "vgprs")), pass == 1);
		json_decref(j);
		if (pass == 1)
			break;
		/* the note's type (32) becomes 33: an unknown note, so the descriptors speak */
		FILE *f = fopen(co, "r+b");
		assert_non_null(f);
		unsigned char buf[65536];
		size_t n = fread(buf, 1, sizeof buf, f), hits = 0;
		for (size_t i = 12; i + 7 <= n; i++)
			if (memcmp(buf + i, "AMDGPU\0", 7) == 0 && buf[i - 4] == 32 && buf[i - 12] == 7) {
				buf[i - 4] = 33;
				hits++;
			}
		assert_int_equal(hits, 1);
		assert_int_equal(fseek(f, 0, SEEK_SET), 0);
		assert_int_equal(fwrite(buf, 1, n, f), n);
		fclose(f);
	}
	unlink(co);
	unlink(cl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(msgpack_bounds),
		cmocka_unit_test(notes_equal_llvm),
		cmocka_unit_test(compressed_bundles),
		cmocka_unit_test(clang_code_object),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
