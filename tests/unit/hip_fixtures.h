/* Shared by the tests of AMD device code: offload bundles and compressed bundles (CCOB)
 * built in memory as clang-offload-bundler lays them out, written to a file, and the JAX ROCm
 * plug-in wheels of the package index fetched into the test cache
 * (tests/wheels/rocm_files.py). Header-only so each test stays one file. */
#ifndef CUDOCTOR_TEST_HIP_FIXTURES_H
#define CUDOCTOR_TEST_HIP_FIXTURES_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "binfmt/hipfb.h"
#include "testlib.h"

struct buf {
	unsigned char *p;
	size_t n;
};

static inline void put(struct buf *b, const void *d, size_t n)
{
	b->p = realloc(b->p, b->n + n);
	assert_non_null(b->p);
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static inline void put64(struct buf *b, uint64_t v)
{
	unsigned char le[8];
	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	put(b, le, 8);
}

static inline void put32(struct buf *b, uint32_t v)
{
	unsigned char le[4];
	for (int i = 0; i < 4; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	put(b, le, 4);
}

static inline void put16(struct buf *b, uint16_t v)
{
	unsigned char le[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
	put(b, le, 2);
}

/* A bundle as clang-offload-bundler lays it out: the table, then each entry's bytes at a
 * 4096-aligned offset (the host's entry empty). */
/* A bundle as clang-offload-bundler lays it out: the table, then each entry's bytes at a
 * 4096-aligned offset (the host's entry empty); a bundle of many entries packs small ones
 * 16 bytes apart, so a long table stays a few hundred KiB. */
static inline struct buf make_bundle(const char *const *ids, size_t n)
{
	struct buf b = {0};
	size_t table = HIPFB_HEADER_MIN, at, align = n > 64 ? 16 : 4096;
	for (size_t i = 0; i < n; i++)
		table += HIPFB_ENTRY_MIN + strlen(ids[i]);
	at = (table + align - 1) & ~(align - 1);
	put(&b, HIPFB_MAGIC, HIPFB_MAGIC_LEN);
	put64(&b, n);
	for (size_t i = 0; i < n; i++) {
		bool host = strncmp(ids[i], "host-", 5) == 0;
		size_t size = host ? 0 : n > 64 ? 16 : 1000 + 10 * (i % 8);
		put64(&b, at);
		put64(&b, size);
		put64(&b, strlen(ids[i]));
		put(&b, ids[i], strlen(ids[i]));
		if (!host)
			at = (at + size + align - 1) & ~(align - 1);
	}
	/* the code objects: a made-up ELF header at each page, filler between */
	size_t from = b.n;
	b.p = realloc(b.p, at > from ? at : from);
	assert_non_null(b.p);
	for (size_t k = from; k < at; k++)
		b.p[k] = k % 4096 == 0 ? 0x7f : (unsigned char)(k * 7);
	b.n = at > from ? at : from;
	return b;
}

static inline uint64_t fake_hash(const struct buf *in)
{
	return crc32(0, in->p, (uInt)in->n) * 0x9e3779b97f4a7c15ull; /* any 64 bits: not checked */
}

/* A compressed bundle of `in`, version 1 or 2 (zlib) or 3 (zstd), as OffloadBundle.cpp writes. */
static inline struct buf make_ccob(const struct buf *in, unsigned version)
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

/* b written to a new file /tmp/cudoctor-hip-XXXXXX (path: its name; the caller unlinks it). */
static inline void write_bundle_file(const struct buf *b, char *path, size_t cap)
{
	snprintf(path, cap, "/tmp/cudoctor-hip-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->p, b->n), (ssize_t)b->n);
	close(fd);
}

struct rocm_wheel {
	char whl[PATH_MAX], dir[PATH_MAX];
};
static struct rocm_wheel rocm60 __attribute__((unused)), rocm7 __attribute__((unused));

/* Fetches them once (reused from the cache); false when the index cannot be reached. */
static inline bool rocm_files(void)
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

#endif
