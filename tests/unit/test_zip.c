/* Zip archives: the reader (binfmt/zip.c) on a wheel Python's zipfile writes around the PE
 * and cubin fixtures, `arch` on real wheels of the package index (NVIDIA's nvjpeg for Windows
 * and Linux, tests/wheels/zip_files.py) against `arch` on their unpacked members, a 300 MiB
 * member judged from a stream in flat memory (tests/wheels/big_member.py), and 10,000 damaged
 * copies of the small wheel: each read whole or named unreadable (exit 3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fuzz/fuzz_report.h"
#include "arch_fixtures.h"
#include "archive_report.h"
#include "binfmt/devcode.h"
#include "binfmt/zip.h"
#include "testlib.h"
#include "util/err.h"
#include "util/file.h"

#ifndef CUDOCTOR_BINARY
#define CUDOCTOR_BINARY "build/cudoctor"
#endif

/* Fetches and unpacks the wheels (reused from the cache): lines "WHEEL\tDIR", then
 * "small\tPATH". NULL when the index cannot be reached. */
static char *zip_files(void)
{
	static char out[1024];
	const char *home = getenv("HOME");
	struct run_result res;
	snprintf(out, sizeof out, "%s/.cache/cudoctor-test/zip-files", home && *home ? home : "/tmp");
	const char *argv[] = { "/usr/bin/env", "python3", CUDOCTOR_SOURCE_DIR "/tests/wheels/zip_files.py", out,
			       ARCH_FIXTURES, NULL };
	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	if (res.status == 77) {
		fprintf(stderr, "skipping: %s", res.err);
		run_result_free(&res);
		return NULL;
	}
	if (res.status != 0)
		fail_msg("zip_files.py exited %d: %s", res.status, res.err);
	free(res.err);
	return res.out;
}

/* The path after "small\t" in zip_files()'s lines (static). */
static const char *small_wheel(void)
{
	static char path[1024];
	char *lines = zip_files();
	if (!lines)
		return NULL;
	char *at = strstr(lines, "small\t");
	assert_non_null(at);
	at += 6;
	size_t n = strcspn(at, "\n");
	assert_true(n < sizeof path);
	memcpy(path, at, n);
	path[n] = 0;
	free(lines);
	return path;
}

static void same_bytes(const struct zip_archive *z, const struct zip_member *m, const char *fixture)
{
	struct mapped_file mf;
	unsigned char *buf;
	size_t len;
	char err[CD_ERRMSG] = "";
	assert_int_equal(file_map(fixture, &mf, err), CD_OK);
	assert_int_equal(zip_member_read(z, m, ZIP_MEMBER_MAX, &buf, &len, err), CD_OK);
	assert_int_equal(len, mf.size);
	assert_memory_equal(buf, mf.data, len);
	free(buf);
	file_unmap(&mf);
}

static void reader_reads_what_zipfile_wrote(void **state)
{
	(void)state;
	const char *small = small_wheel();
	if (!small)
		skip();
	struct mapped_file mf;
	struct zip_archive z;
	struct zip_member m;
	char err[CD_ERRMSG] = "";
	int more, n = 0;
	assert_int_equal(file_map(small, &mf, err), CD_OK);
	assert_true(zip_has_magic(mf.data, mf.size));
	assert_int_equal(zip_open(&z, mf.data, mf.size, err), CD_OK);
	assert_int_equal(z.n_entries, 4);
	while ((more = zip_next(&z, &m, err)) > 0) {
		n++;
		if (m.name_len == 17 && memcmp(m.name, "pkg/bin/k_win.dll", 17) == 0) {
			assert_int_equal(m.method, ZIP_DEFLATE);
			same_bytes(&z, &m, ARCH_FIXTURES "/k_win.dll");
			/* a head shorter than the member: only that much is inflated */
			unsigned char head[64];
			size_t got;
			assert_int_equal(zip_member_head(&z, &m, head, sizeof head, &got, err), CD_OK);
			assert_int_equal(got, 64);
			assert_memory_equal(head, "MZ", 2);
		} else if (m.name_len == 16 && memcmp(m.name, "pkg/k_sm90a.cubin", 16) == 0) {
			assert_int_equal(m.method, ZIP_STORED);
			same_bytes(&z, &m, ARCH_FIXTURES "/k_sm90a.cubin");
		}
	}
	assert_int_equal(more, 0);
	assert_int_equal(n, 4);
	/* a member that declares more than deflate can make of its bytes is refused unread */
	assert_int_equal(zip_open(&z, mf.data, mf.size, err), CD_OK);
	while (zip_next(&z, &m, err) > 0 && !(m.name_len == 17 && memcmp(m.name, "pkg/bin/k_win.dll", 17) == 0))
		;
	unsigned char *buf = NULL;
	size_t len = 0;
	m.size = m.comp_size * 2000;
	assert_int_equal(zip_member_read(&z, &m, ZIP_MEMBER_MAX, &buf, &len, err), CD_EFORMAT);
	assert_non_null(strstr(err, "more than its"));
	assert_int_equal(zip_member_read(&z, &m, 1000, &buf, &len, err), CD_EUNSUPPORTED);
	/* one that declares less than it inflates to is caught at its declared size */
	m.size = 1000;
	assert_int_equal(zip_member_read(&z, &m, ZIP_MEMBER_MAX, &buf, &len, err), CD_EFORMAT);
	assert_non_null(strstr(err, "inflates to over 1001 bytes, not the 1000"));
	assert_null(buf);
	file_unmap(&mf);
}

/* `arch` on the small wheel names its members WHEEL!MEMBER and judges the two with code. */
static void arch_names_members(void **state)
{
	(void)state;
	const char *small = small_wheel();
	if (!small)
		skip();
	struct run_result res;
	const char *argv[] = { CUDOCTOR_BINARY, "arch", "-q", "--gpu", "sm_90a", "--driver", "580.65", small, NULL };
	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	char want[2048];
	snprintf(want, sizeof want, "%s!pkg/bin/k_win.dll: --gpu sm_90a: native", small);
	assert_non_null(strstr(res.out, want));
	snprintf(want, sizeof want, "%s!pkg/k_sm90a.cubin: --gpu sm_90a: native", small);
	assert_non_null(strstr(res.out, want));
	assert_null(strstr(res.out, "__init__"));
	assert_int_equal(res.status, 0);
	run_result_free(&res);
}

/* arch on a real wheel: each member with device code has the same images and verdicts as
 * arch on that member unpacked, and the same cuobjdump listing. */
static void wheels_judged_as_unpacked(void **state)
{
	(void)state;
	char *lines = zip_files();
	if (!lines)
		skip();
	size_t wheels = 0;
	for (char *line = strtok(lines, "\n"); line; line = strtok(NULL, "\n")) {
		char *tab = strchr(line, '\t');
		assert_non_null(tab);
		*tab = 0;
		const char *whl = line, *dir = tab + 1;
		if (strcmp(whl, "small") == 0)
			continue;
		const char *a[] = { CUDOCTOR_BINARY, "--json", "arch", "--gpu", "sm_75", "--gpu", "sm_120", "--driver",
				    "572.61", whl, NULL };
		char *ja = run_out(a, 0), pa[2048];
		snprintf(pa, sizeof pa, "%s!", whl);
		json_t *fa = files_by_member(ja, pa), *f;
		const char *member;
		assert_int_equal(json_object_size(fa), 1); /* nvjpeg64_12.dll, libnvjpeg.so.12 */
		json_object_foreach(fa, member, f) {
			char unpacked[4096];
			snprintf(unpacked, sizeof unpacked, "%s/%s", dir, member);
			const char *b[] = { CUDOCTOR_BINARY, "--json", "arch", "--gpu", "sm_75", "--gpu", "sm_120",
					    "--driver", "572.61", unpacked, NULL };
			char *jb = run_out(b, 0);
			json_t *fb = files_by_member(jb, unpacked);
			assert_true(json_equal(f, json_object_get(fb, "")));
			assert_true(json_array_size(json_object_get(f, "images")) > 100);
			const char *ca[] = { CUDOCTOR_BINARY, "arch", "--cuobjdump", whl, NULL };
			const char *cb[] = { CUDOCTOR_BINARY, "arch", "--cuobjdump", unpacked, NULL };
			char *la = run_out(ca, 0), *lb = run_out(cb, 0);
			assert_true(strlen(la) > 1000);
			assert_string_equal(la, lb);
			free(la);
			free(lb);
			json_decref(fb);
			free(jb);
		}
		json_decref(fa);
		free(ja);
		wheels++;
	}
	assert_int_equal(wheels, 2);
	free(lines);
}

/* A stored member of 300 MiB (big_member.py: zeros, its section names in the middle, a real
 * fatbin at the end) is judged from a stream in little memory, from two passes, with the same
 * images and verdicts as the library itself; --kernels, which holds the member whole, is the
 * measure that this one is not. */
static void large_member_streamed_flat(void **state)
{
	(void)state;
	const char *home = getenv("HOME");
	char dir[1024], so[1200], whl[1200], out[1200];
	snprintf(dir, sizeof dir, "%s/.cache/cudoctor-test/zip-stream", home && *home ? home : "/tmp");
	big_member(dir, so, whl);
	snprintf(out, sizeof out, "%s/out.json", dir);
	streamed_member_flat(whl, "pkg/lib/libbig.so", so, out);
}

/* Offsets of the archive's structure: local headers with their names, the central directory
 * and the end record (not the deflated payloads: a flipped payload bit is a CRC error found
 * the same way each time, and inflating it 10,000 times is slow). */
static size_t header_offsets(const unsigned char *d, size_t size, size_t *at, size_t cap)
{
	struct zip_archive z;
	struct zip_member m;
	char err[CD_ERRMSG];
	size_t n = 0;
	assert_int_equal(zip_open(&z, d, size, err), CD_OK);
	for (size_t i = z.cd_off; i < size && n < cap; i++)
		at[n++] = i;
	while (zip_next(&z, &m, err) > 0)
		for (size_t i = (size_t)m.local_off; i < m.local_off + 30 + m.name_len && n < cap; i++)
			at[n++] = i;
	return n;
}

/* What arch must make of a mutant, from the reader alone: false when the archive or a member
 * that can carry device code cannot be read. */
static bool reads_whole(const unsigned char *d, size_t size)
{
	struct zip_archive z;
	struct zip_member m;
	char err[CD_ERRMSG] = "";
	bool ok = true;
	int more;
	if (!zip_has_magic(d, size) || zip_open(&z, d, size, err) != CD_OK)
		return false;
	if (zip_find_overlaps(&z, err) != CD_OK)
		return false;
	while (ok && (more = zip_next(&z, &m, err)) > 0) {
		unsigned char *buf = NULL, head[4096];
		size_t len, got;
		struct dc_inventory inv;
		assert_true(err[0] == 0);
		if (m.overlaps) { /* skipped and named */
			ok = false;
			break;
		}
		if (!dc_name_may_carry_code(m.name, m.name_len))
			continue;
		if (zip_member_head(&z, &m, head, sizeof head, &got, err) != CD_OK) {
			ok = false;
			break;
		}
		if (!dc_has_magic(head, got))
			continue;
		if (zip_member_read(&z, &m, ZIP_MEMBER_MAX, &buf, &len, err) != CD_OK) {
			ok = false;
			break;
		}
		dc_init(&inv);
		ok = dc_scan(&inv, buf, len, DC_SCAN_IF_CUDA, err) == CD_OK;
		dc_free(&inv);
		free(buf);
	}
	if (err[0])
		assert_true(strlen(err) > 10); /* a failure says what was wrong */
	zip_close(&z);
	return ok && more == 0;
}

/* 10,000 truncated and bit-flipped copies of small.whl: the reader takes each (under ASan:
 * no crash, no leak) and a sample runs through the whole arch report, which exits 3 exactly
 * when the reader named something unreadable. */
static void damaged_wheels(void **state)
{
	(void)state;
	const char *small = small_wheel();
	if (!small)
		skip();
	static const char *const words[] = { "arch", "--gpu", "sm_90a", "--driver", "580.65", NULL };
	struct mapped_file mf;
	char err[CD_ERRMSG] = "";
	size_t at[8192], n_at, whole = 0, failed = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	assert_int_equal(file_map(small, &mf, err), CD_OK);
	n_at = header_offsets(mf.data, mf.size, at, sizeof at / sizeof at[0]);
	assert_true(n_at > 200);
	unsigned char *d = malloc(mf.size);
	int saved = dup(2), null = open("/dev/null", O_WRONLY);
	dup2(null, 2); /* the run's one-line errors, 10,000 of them */
	for (int i = 0; i < 10000; i++) {
		memcpy(d, mf.data, mf.size);
		size_t size = mutate(d, mf.size, at, n_at, &seed); /* cut or flipped inside a header */
		bool ok = reads_whole(d, size);
		whole += ok;
		failed += !ok;
		if (i % 50 == 0) {
			int exit_override = fuzz_command_report(&cmd_arch, NULL, words + 1, d, size);
			if ((exit_override == CD_EXIT_FAILED) == ok) {
				dup2(saved, 2);
				fail_msg("mutant %d: the reader says %s, arch's exit override is %d", i,
					 ok ? "whole" : "unreadable", exit_override);
			}
		}
	}
	dup2(saved, 2);
	close(saved);
	close(null);
	free(d);
	file_unmap(&mf);
	print_message("damaged wheels: %zu read whole, %zu named unreadable\n", whole, failed);
	assert_true(whole > 100 && failed > 5000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reader_reads_what_zipfile_wrote),
		cmocka_unit_test(arch_names_members),
		cmocka_unit_test(wheels_judged_as_unpacked),
		cmocka_unit_test(large_member_streamed_flat),
		cmocka_unit_test(damaged_wheels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
