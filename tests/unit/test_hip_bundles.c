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
#include "testlib.h"
#include "util/err.h"

#ifndef CUDOCTOR_BINARY
#define CUDOCTOR_BINARY "build/cudoctor"
#endif

/* ---- building bundles ---- */

struct buf {
	unsigned char *p;
	size_t n;
};

static void put(struct buf *b, const void *d, size_t n)
{
	b->p = realloc(b->p, b->n + n);
	assert_non_null(b->p);
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void put64(struct buf *b, uint64_t v)
{
	unsigned char le[8];
	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	put(b, le, 8);
}

static void put32(struct buf *b, uint32_t v)
{
	unsigned char le[4];
	for (int i = 0; i < 4; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	put(b, le, 4);
}

static void put16(struct buf *b, uint16_t v)
{
	unsigned char le[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
	put(b, le, 2);
}

/* A bundle as clang-offload-bundler lays it out: the table, then each entry's bytes at a
 * 4096-aligned offset (the host's entry empty). */
static struct buf make_bundle(const char *const *ids, size_t n)
{
	struct buf b = {0};
	size_t table = HIPFB_HEADER_MIN, at;
	for (size_t i = 0; i < n; i++)
		table += HIPFB_ENTRY_MIN + strlen(ids[i]);
	at = (table + 4095) & ~(size_t)4095;
	put(&b, HIPFB_MAGIC, HIPFB_MAGIC_LEN);
	put64(&b, n);
	for (size_t i = 0; i < n; i++) {
		bool host = strncmp(ids[i], "host-", 5) == 0;
		size_t size = host ? 0 : 1000 + 10 * i;
		put64(&b, at);
		put64(&b, size);
		put64(&b, strlen(ids[i]));
		put(&b, ids[i], strlen(ids[i]));
		if (!host)
			at = (at + size + 4095) & ~(size_t)4095;
	}
	while (b.n < at) { /* the code objects: a made-up ELF header and filler */
		unsigned char c = b.n % 4096 == 0 ? 0x7f : (unsigned char)(b.n * 7);
		put(&b, &c, 1);
	}
	return b;
}

static uint64_t fake_hash(const struct buf *in)
{
	return crc32(0, in->p, (uInt)in->n) * 0x9e3779b97f4a7c15ull; /* any 64 bits: not checked */
}

/* A compressed bundle of `in`, version 1 or 2 (zlib) or 3 (zstd), as OffloadBundle.cpp writes. */
static struct buf make_ccob(const struct buf *in, unsigned version)
{
	struct buf out = {0};
	size_t cap = version == 3 ? ZSTD_compressBound(in->n) : compressBound((uLong)in->n);
	unsigned char *z = malloc(cap);
	size_t zn = cap;
	assert_non_null(z);
	if (version == 3) {
		zn = ZSTD_compress(z, cap, in->p, in->n, 3);
		assert_false(ZSTD_isError(zn));
	} else {
		uLongf l = (uLongf)cap;
		assert_int_equal(compress2(z, &l, in->p, (uLong)in->n, 6), Z_OK);
		zn = l;
	}
	put(&out, HIPFB_CCOB_MAGIC, 4);
	put16(&out, (uint16_t)version);
	put16(&out, version == 3 ? HIPFB_ZSTD : HIPFB_ZLIB);
	if (version == 1) {
		put32(&out, (uint32_t)in->n);
	} else if (version == 2) {
		put32(&out, (uint32_t)(24 + zn));
		put32(&out, (uint32_t)in->n);
	} else {
		put64(&out, 32 + zn);
		put64(&out, in->n);
	}
	put64(&out, fake_hash(in));
	put(&out, z, zn);
	free(z);
	return out;
}

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

/* ---- the real plug-ins ---- */

struct rocm_wheel {
	char whl[PATH_MAX], dir[PATH_MAX];
};
static struct rocm_wheel rocm60, rocm7;

/* Fetches them once (reused from the cache); false when the index cannot be reached. */
static bool rocm_files(void)
{
	static int have = -1;
	if (have >= 0)
		return have;
	const char *home = getenv("HOME");
	char out[1024];
	struct run_result res;
	snprintf(out, sizeof out, "%s/.cache/cudoctor-test/rocm", home && *home ? home : "/tmp");
	const char *argv[] = {"/usr/bin/env", "python3", CUDOCTOR_SOURCE_DIR "/tests/wheels/rocm_files.py", out, NULL};
	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	if (res.status == 77) {
		fprintf(stderr, "skipping: %s", res.err);
		run_result_free(&res);
		return (have = 0);
	}
	if (res.status != 0)
		fail_msg("rocm_files.py exited %d: %s", res.status, res.err);
	for (char *line = strtok(res.out, "\n"); line; line = strtok(NULL, "\n")) {
		struct rocm_wheel *w = strncmp(line, "rocm60\t", 7) == 0 ? &rocm60 : strncmp(line, "rocm7\t", 6) == 0 ? &rocm7 : NULL;
		char *whl = strchr(line, '\t'), *dir = whl ? strchr(whl + 1, '\t') : NULL;
		assert_non_null(w);
		assert_non_null(dir);
		*dir = 0;
		snprintf(w->whl, sizeof w->whl, "%s", whl + 1);
		snprintf(w->dir, sizeof w->dir, "%s", dir + 1);
	}
	run_result_free(&res);
	assert_true(rocm60.whl[0] && rocm7.whl[0]);
	return (have = 1);
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
