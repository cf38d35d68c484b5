/* HIP device code in `arch`: offload bundles and compressed bundles (CCOB v1 and v2 zlib, v3
 * zstd) built here around made-up code objects and read back through dc_scan and `arch
 * --json`; damaged ones refused with the offset; entry and target ids as clang writes them;
 * and the real JAX ROCm plug-ins of the package index (jax-rocm60-plugin 0.5.0: plain bundles
 * of 11 gfx targets; jax-rocm7-plugin 0.10.0: CCOB v3 zstd with generic targets,
 * tests/wheels/rocm_files.py, cached in ~/.cache/cudoctor-test/rocm): their targets, and
 * `arch --llvm-offloading` byte for byte what LLVM 22's `llvm-readobj --offloading` prints on
 * every .so, and on the wheels' members read from a stream. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "binfmt/devcode.h"
#include "binfmt/hipfb.h"
#include "hip_fixtures.h"
#include "testlib.h"
#include "util/err.h"

#ifndef CUDOCTOR_BINARY
#define CUDOCTOR_BINARY "build/cudoctor"
#endif

static const char *const ids3[] = {"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+",
				   "hipv4-amdgcn-amd-amdhsa--gfx1100"};

static void scan(const struct buf *b, struct dc_inventory *inv, int want_rc)
{
	char err[CD_ERRMSG] = "";
	dc_init(inv);
	int rc = dc_scan(inv, b->p, b->n, DC_SCAN_ALL_SECTIONS, err);
	if (rc != want_rc)
		fail_msg("dc_scan returned %d (%s), expected %d", rc, err, want_rc);
}

static void check_three(const struct dc_inventory *inv, size_t first)
{
	char name[64];
	assert_true(inv->n_hip_entries >= first + 3);
	assert_true(inv->hip_entries[first].host);
	assert_string_equal(inv->hip_entries[first].id, ids3[0]);
	dc_hip_entry_name(&inv->hip_entries[first + 1], name, sizeof name);
	assert_string_equal(name, "gfx90a:sramecc+:xnack+");
	assert_int_equal(inv->hip_entries[first + 1].target.xnack, HIPFB_FEAT_ON);
	assert_int_equal(inv->hip_entries[first + 1].size, 1010);
	dc_hip_entry_name(&inv->hip_entries[first + 2], name, sizeof name);
	assert_string_equal(name, "gfx1100");
	assert_int_equal(inv->hip_entries[first + 2].target.xnack, HIPFB_FEAT_ANY);
	assert_string_equal(inv->hip_entries[first + 2].arch, "amdgcn");
}

static void ids_and_targets(void **state)
{
	(void)state;
	static const struct {
		const char *id, *kind, *arch, *target;
	} cases[] = {
		{"hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "hipv4", "amdgcn", "gfx90a:sramecc+:xnack-"},
		{"host-x86_64-unknown-linux-gnu-", "host", "x86_64", ""},
		{"host-x86_64-unknown-linux--", "host", "x86_64", ""},
		{"hip-amdgcn-amd-amdhsa-gfx906", "hip", "amdgcn", "gfx906"},  /* ROCm 4's three-part triple */
		{"hipv4-amdgcn-amd-amdhsa--gfx10-3-generic", "hipv4", "amdgcn", "gfx10-3-generic"},
		{"hipv4-spirv64-amd-amdhsa--amdgcnspirv", "hipv4", "spirv64", "amdgcnspirv"},
		{"openmp-amdgcn-amd-amdhsa--gfx942:xnack+", "openmp", "amdgcn", "gfx942:xnack+"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct hipfb_id id;
		hipfb_parse_id(cases[i].id, strlen(cases[i].id), &id);
		assert_int_equal(id.kind_len, strlen(cases[i].kind));
		assert_memory_equal(id.kind, cases[i].kind, id.kind_len);
		assert_int_equal(id.arch_len, strlen(cases[i].arch));
		assert_memory_equal(id.arch, cases[i].arch, id.arch_len);
		assert_int_equal(id.target_len, strlen(cases[i].target));
		assert_memory_equal(id.target, cases[i].target, id.target_len);
	}
	struct hipfb_target t;
	char name[64];
	assert_true(hipfb_parse_target("gfx90a:xnack-:sramecc+", 22, &t));
	assert_string_equal(t.processor, "gfx90a");
	assert_int_equal(t.xnack, HIPFB_FEAT_OFF);
	assert_int_equal(t.sramecc, HIPFB_FEAT_ON);
	hipfb_target_name(&t, name, sizeof name);
	assert_string_equal(name, "gfx90a:sramecc+:xnack-"); /* clang's order */
	assert_false(hipfb_parse_target("gfx90a:tgsplit+", 15, &t));
	assert_false(hipfb_parse_target("gfx90a:xnack", 12, &t));
	assert_false(hipfb_parse_target("", 0, &t));
	assert_false(hipfb_parse_target("GFX90A", 6, &t));
}

static void plain_and_compressed(void **state)
{
	(void)state;
	struct buf plain = make_bundle(ids3, 3);
	struct dc_inventory inv;

	scan(&plain, &inv, CD_OK);
	assert_int_equal(inv.format, DC_OFFLOAD_BUNDLE);
	assert_int_equal(inv.n_hip_bundles, 1);
	assert_int_equal(inv.hip_bundles[0].form, DC_HIP_BUNDLE);
	check_three(&inv, 0);
	dc_free(&inv);
	for (unsigned v = 1; v <= 3; v++) {
		struct buf c = make_ccob(&plain, v);
		scan(&c, &inv, CD_OK);
		assert_int_equal(inv.format, DC_OFFLOAD_BUNDLE);
		assert_int_equal(inv.n_hip_bundles, 1);
		assert_int_equal(inv.hip_bundles[0].form, DC_HIP_CCOB);
		assert_int_equal(inv.hip_bundles[0].ccob_version, v);
		assert_int_equal(inv.hip_bundles[0].method, v == 3 ? HIPFB_ZSTD : HIPFB_ZLIB);
		assert_int_equal(inv.hip_bundles[0].bundle_bytes, plain.n);
		assert_int_equal(inv.hip_bundles[0].stored_bytes, c.n);
		check_three(&inv, 0);
		dc_free(&inv);
		free(c.p);
	}
	/* a .hip_fatbin of three translation units: plain, then V2 and V3, each padded to 4096 */
	struct buf sec = {0}, v2 = make_ccob(&plain, 2), v3 = make_ccob(&plain, 3);
	static const unsigned char zero[4096];
	put(&sec, plain.p, plain.n);
	put(&sec, zero, (4096 - sec.n % 4096) % 4096);
	put(&sec, v2.p, v2.n);
	put(&sec, zero, (4096 - sec.n % 4096) % 4096);
	put(&sec, v3.p, v3.n);
	scan(&sec, &inv, CD_OK);
	assert_int_equal(inv.n_hip_bundles, 3);
	assert_int_equal(inv.hip_bundles[1].file_offset, (plain.n + 4095) / 4096 * 4096);
	assert_int_equal(inv.hip_bundles[2].ccob_version, 3);
	for (size_t k = 0; k < 3; k++)
		check_three(&inv, 3 * k);
	dc_free(&inv);
	free(sec.p);
	free(v2.p);
	free(v3.p);
	free(plain.p);
}

/* A table longer than the first bytes inflated (64 KiB): read again from more. */
static void long_table(void **state)
{
	(void)state;
	enum { N = 3000 };
	static char idbuf[N][64];
	const char *ids[N];
	for (size_t i = 0; i < N; i++) {
		snprintf(idbuf[i], sizeof idbuf[i], "hipv4-amdgcn-amd-amdhsa--gfx%zu", 1000 + i);
		ids[i] = idbuf[i];
	}
	struct buf plain = make_bundle(ids, N), c = make_ccob(&plain, 3);
	struct dc_inventory inv;
	scan(&c, &inv, CD_OK);
	assert_int_equal(inv.n_hip_entries, N);
	assert_string_equal(inv.hip_entries[N - 1].target.processor, "gfx3999");
	dc_free(&inv);
	free(plain.p);
	free(c.p);
}

static void damaged(void **state)
{
	(void)state;
	struct buf plain = make_bundle(ids3, 3), c = make_ccob(&plain, 2), x = {0};
	struct dc_inventory inv;
	char err[CD_ERRMSG] = "";

	/* V2 whose total size runs past the file */
	put(&x, c.p, c.n - 10);
	scan(&x, &inv, CD_EFORMAT);
	dc_free(&inv);
	/* a header that says one size more than the stream inflates to */
	x.n = 0;
	put(&x, c.p, c.n);
	x.p[12]++;
	scan(&x, &inv, CD_EFORMAT);
	dc_free(&inv);
	/* corrupt compressed bytes */
	x.p[12]--;
	for (size_t i = 24; i < x.n; i++)
		x.p[i] ^= 0x5a;
	scan(&x, &inv, CD_EFORMAT);
	dc_free(&inv);
	/* version 4, method 2 */
	x.n = 0;
	put(&x, c.p, c.n);
	x.p[4] = 4;
	scan(&x, &inv, CD_EFORMAT);
	dc_free(&inv);
	x.p[4] = 2;
	x.p[6] = 2;
	scan(&x, &inv, CD_EFORMAT);
	dc_free(&inv);
	/* a plain bundle cut inside its table; one declaring more entries than it could hold */
	x.n = 0;
	put(&x, plain.p, 100);
	dc_init(&inv);
	assert_int_equal(dc_scan(&inv, x.p, x.n, 0, err), CD_EFORMAT);
	assert_non_null(strstr(err, "offload bundle at 0x0"));
	dc_free(&inv);
	x.n = 0;
	put(&x, plain.p, plain.n);
	memset(x.p + 24, 0xff, 7);
	scan(&x, &inv, CD_EFORMAT);
	dc_free(&inv);
	free(x.p);
	free(c.p);
	free(plain.p);
}

/* `arch --json` on a bare CCOB V1 file: the code objects and how they are stored. */
static void arch_json_on_ccob_v1(void **state)
{
	(void)state;
	char path[] = "/tmp/cudoctor-hipfb-XXXXXX";
	int fd = mkstemp(path);
	struct buf plain = make_bundle(ids3, 3), c = make_ccob(&plain, 1);
	struct run_result res;
	json_error_t je;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, c.p, c.n), (ssize_t)c.n);
	close(fd);
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "arch", path, NULL};
	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	json_t *j = json_loads(res.out, 0, &je), *f = json_array_get(json_object_get(j, "files"), 0);
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "format")), "offload-bundle");
	assert_int_equal(json_integer_value(json_object_get(f, "offload_bundles")), 1);
	json_t *co = json_object_get(f, "code_objects");
	assert_int_equal(json_array_size(co), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(co, 0), "target")), "gfx90a:sramecc+:xnack+");
	assert_string_equal(json_string_value(json_object_get(json_array_get(co, 0), "xnack")), "on");
	assert_string_equal(json_string_value(json_object_get(json_array_get(co, 0), "bundle_format")), "ccob v1 zlib");
	assert_string_equal(json_string_value(json_object_get(json_array_get(co, 1), "processor")), "gfx1100");
	json_decref(j);
	run_result_free(&res);
	unlink(path);
	free(c.p);
	free(plain.p);
}

/* The targets of each code object `arch --json` lists for path, joined by ' '. */
static void targets_of(const char *path, char *out, size_t cap, const char *want_form)
{
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "arch", path, NULL};
	struct run_result res;
	json_error_t je;
	size_t i;
	json_t *o;
	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	json_t *j = json_loads(res.out, 0, &je);
	assert_non_null(j);
	out[0] = 0;
	json_array_foreach(json_object_get(json_array_get(json_object_get(j, "files"), 0), "code_objects"), i, o) {
		snprintf(out + strlen(out), cap - strlen(out), "%s%s", i ? " " : "", json_string_value(json_object_get(o, "target")));
		assert_string_equal(json_string_value(json_object_get(o, "bundle_format")), want_form);
	}
	json_decref(j);
	run_result_free(&res);
}

static void real_targets(void **state)
{
	(void)state;
	char path[PATH_MAX + 64], got[1024];
	if (!rocm_files())
		skip();
	snprintf(path, sizeof path, "%s/jax_rocm60_plugin/_blas.so", rocm60.dir);
	targets_of(path, got, sizeof got, "plain");
	assert_string_equal(got, "gfx1030 gfx1100 gfx1200 gfx1201 gfx900 gfx906 gfx908 gfx90a gfx940 gfx941 gfx942");
	snprintf(path, sizeof path, "%s/jax_rocm7_plugin/_linalg.so", rocm7.dir);
	targets_of(path, got, sizeof got, "ccob v3 zstd");
	assert_string_equal(got, "gfx10-3-generic gfx11-generic gfx12-generic gfx9-4-generic gfx908 gfx90a");
	/* two translation units: two bundles of the same six targets */
	snprintf(path, sizeof path, "%s/jax_rocm7_plugin/_solver.so", rocm7.dir);
	targets_of(path, got, sizeof got, "ccob v3 zstd");
	assert_string_equal(got, "gfx10-3-generic gfx11-generic gfx12-generic gfx9-4-generic gfx908 gfx90a "
				 "gfx10-3-generic gfx11-generic gfx12-generic gfx9-4-generic gfx908 gfx90a");
}

/* LLVM 22's llvm-readobj, as the distribution's llvm-22 package installs it. */
static const char *llvm_readobj(void)
{
	static const char *const where[] = {"/usr/lib/llvm-22/bin/llvm-readobj", "/usr/bin/llvm-readobj-22",
					    "/usr/local/bin/llvm-readobj-22"};
	for (size_t i = 0; i < sizeof where / sizeof where[0]; i++)
		if (access(where[i], X_OK) == 0)
			return where[i];
	return NULL;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .so files under dir/sub, sorted: paths malloc'ed into v (at most cap). */
static size_t libraries(const char *dir, const char *sub, char **v, size_t cap)
{
	char d[PATH_MAX + 64];
	size_t n = 0;
	snprintf(d, sizeof d, "%s/%s", dir, sub);
	DIR *dd = opendir(d);
	struct dirent *de;
	assert_non_null(dd);
	while ((de = readdir(dd)) && n < cap) {
		size_t l = strlen(de->d_name);
		if (l > 3 && strcmp(de->d_name + l - 3, ".so") == 0) {
			v[n] = malloc(strlen(d) + l + 2);
			assert_non_null(v[n]);
			sprintf(v[n++], "%s/%s", d, de->d_name);
		}
	}
	closedir(dd);
	qsort(v, n, sizeof *v, by_name);
	return n;
}

/* all with out's URI lines appended, the file lib named as the wheel's member sub/NAME. */
static char *member_lines(char *all, const char *out, const char *lib, const char *whl, const char *sub)
{
	char from[PATH_MAX + 16], to[2 * PATH_MAX];
	snprintf(from, sizeof from, "\tfile://%s#", lib);
	snprintf(to, sizeof to, "\tfile://%s!%s/%s#", whl, sub, strrchr(lib, '/') + 1);
	for (const char *line = out, *eol; (eol = strchr(line, '\n')); line = eol + 1) {
		const char *at = strstr(line, from);
		if (!at || at > eol)
			continue;
		size_t keep = strlen(all);
		all = realloc(all, keep + (size_t)(eol - line) + strlen(to) + 2);
		assert_non_null(all);
		sprintf(all + keep, "%.*s%s%.*s\n", (int)(at - line), line, to, (int)(eol - at - strlen(from)), at + strlen(from));
	}
	return all;
}

static void equals_llvm_readobj(void **state)
{
	(void)state;
	const char *readobj = llvm_readobj();
	if (!rocm_files())
		skip();
	if (!readobj) {
		fprintf(stderr, "skipping: no llvm-readobj of LLVM 22 (sh tools/deps.sh test installs llvm-22)\n");
		skip();
	}
	const struct {
		struct rocm_wheel *w;
		const char *sub;
	} sets[] = {{&rocm60, "jax_rocm60_plugin"}, {&rocm7, "jax_rocm7_plugin"}};
	size_t with_bundles = 0;
	for (size_t s = 0; s < 2; s++) {
		char *libs[64], *all = calloc(1, 1);
		size_t n = libraries(sets[s].w->dir, sets[s].sub, libs, 64);
		assert_true(n >= 8);
		for (size_t i = 0; i < n; i++) {
			struct run_result a, b;
			const char *la[] = {readobj, "--offloading", libs[i], NULL};
			const char *lb[] = {CUDOCTOR_BINARY, "arch", "--llvm-offloading", libs[i], NULL};
			assert_int_equal(testlib_run(la, NULL, NULL, &a), 0);
			assert_int_equal(testlib_run(lb, NULL, NULL, &b), 0);
			assert_int_equal(a.status, 0);
			assert_int_equal(b.status, 0);
			if (strcmp(a.out, b.out) != 0)
				fail_msg("%s:\n--- llvm-readobj --offloading\n%s--- cudoctor arch --llvm-offloading\n%s", libs[i], a.out,
					 b.out);
			with_bundles += strstr(a.out, "file://") != NULL;
			/* the wheel's member, read from a stream: the same lines, named WHEEL!MEMBER */
			all = member_lines(all, a.out, libs[i], sets[s].w->whl, sets[s].sub);
			run_result_free(&a);
			run_result_free(&b);
			free(libs[i]);
		}
		struct run_result z;
		const char *lz[] = {CUDOCTOR_BINARY, "arch", "--llvm-offloading", sets[s].w->whl, NULL};
		assert_int_equal(testlib_run(lz, NULL, NULL, &z), 0);
		assert_int_equal(z.status, 0);
		if (strcmp(z.out, all) != 0)
			fail_msg("%s:\n--- its members' lines\n%s--- cudoctor arch --llvm-offloading\n%s", sets[s].w->whl, all, z.out);
		run_result_free(&z);
		free(all);
	}
	assert_int_equal(with_bundles, 7); /* ROCm 6.0's plug-in: 4 libraries carry device code; ROCm 7's: 3 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ids_and_targets),      cmocka_unit_test(plain_and_compressed),
		cmocka_unit_test(long_table),           cmocka_unit_test(damaged),
		cmocka_unit_test(arch_json_on_ccob_v1), cmocka_unit_test(real_targets),
		cmocka_unit_test(equals_llvm_readobj),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
