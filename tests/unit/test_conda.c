/* Conda packages: `arch` on a .conda built at test time (tests/wheels/conda_files.py) from the
 * Linux nvjpeg wheel's library and the nvcc-built fixtures gives the same images, verdicts
 * (--json) and --cuobjdump listing as `arch` on its unpacked files; a bare .tar.zst with GNU
 * long names is read the same way; the tar reader over pax, GNU and ustar headers; a zstd
 * frame whose window is over the limit is refused; a 300 MiB library in a tarball judged in
 * flat memory; and 2,000 damaged copies of a small .conda:
 * each read whole or named unreadable (exit 3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fuzz/fuzz_report.h"
#include "arch_fixtures.h"
#include "archive_report.h"
#include "binfmt/conda.h"
#include "binfmt/devcode.h"
#include "binfmt/zip.h"
#include "testlib.h"
#include "util/err.h"
#include "util/file.h"

#ifndef CUDOCTOR_BINARY
#define CUDOCTOR_BINARY "build/cudoctor"
#endif

static char *cache_dir(const char *leaf)
{
	static char out[2][1024];
	static int i;
	const char *home = getenv("HOME");
	i ^= 1;
	snprintf(out[i], sizeof out[i], "%s/.cache/cudoctor-test/%s", home && *home ? home : "/tmp", leaf);
	return out[i];
}

/* Runs a helper script; its stdout, or NULL (the test skips) when it exits 77. */
static char *run_script(const char *const argv[])
{
	struct run_result res;
	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	if (res.status == 77) {
		fprintf(stderr, "skipping: %s", res.err);
		run_result_free(&res);
		return NULL;
	}
	if (res.status != 0)
		fail_msg("%s exited %d: %s", argv[2], res.status, res.err);
	free(res.err);
	return res.out;
}

/* The value of "KEY\t..." in the helper's lines (field 1 or 2), copied into out. */
static bool field(const char *lines, const char *key, int n, char *out, size_t cap)
{
	char want[64];
	snprintf(want, sizeof want, "%s\t", key);
	const char *at = strstr(lines, want);
	if (!at)
		return false;
	at += strlen(want);
	for (int i = 1; i < n; i++) {
		at = strchr(at, '\t');
		assert_non_null(at);
		at++;
	}
	size_t len = strcspn(at, "\t\n");
	assert_true(len < cap);
	memcpy(out, at, len);
	out[len] = 0;
	return true;
}

/* The conda files' lines (big, tarzst, small), built once into the cache. NULL: skip. */
static char *conda_files(void)
{
	static char *lines;
	if (lines)
		return lines;
	if (access(ARCH_FIXTURES "/libk_shared.so", R_OK) != 0) {
		fprintf(stderr, "skipping: the nvcc-built fixtures are missing\n");
		return NULL;
	}
	const char *zargv[] = { "/usr/bin/env", "python3", CUDOCTOR_SOURCE_DIR "/tests/wheels/zip_files.py",
				cache_dir("zip-files"), ARCH_FIXTURES, NULL };
	char *zl = run_script(zargv), wheel_dir[2048] = "";
	if (!zl)
		return NULL;
	for (char *l = strtok(zl, "\n"); l; l = strtok(NULL, "\n"))
		if (strstr(l, "manylinux") && strchr(l, '\t'))
			snprintf(wheel_dir, sizeof wheel_dir, "%s", strchr(l, '\t') + 1);
	free(zl);
	assert_true(wheel_dir[0]);
	const char *cargv[] = { "/usr/bin/env", "python3", CUDOCTOR_SOURCE_DIR "/tests/wheels/conda_files.py",
				cache_dir("conda-files"), wheel_dir, ARCH_FIXTURES, NULL };
	return lines = run_script(cargv);
}

/* Every member of the .conda with device code: the same object as arch on the unpacked file
 * (its images and verdicts), and the same cuobjdump listing as the unpacked tree's files. */
static void conda_judged_as_unpacked(void **state)
{
	(void)state;
	char *lines = conda_files(), conda[1024], dir[1024], pa[1100];
	if (!lines)
		skip();
	assert_true(field(lines, "big", 1, conda, sizeof conda));
	assert_true(field(lines, "big", 2, dir, sizeof dir));
	const char *a[] = { CUDOCTOR_BINARY, "--json", "arch", "--gpu", "sm_75", "--gpu", "sm_120", "--driver",
			    "572.61", conda, NULL };
	char *ja = run_out(a, 1);
	snprintf(pa, sizeof pa, "%s!", conda);
	json_t *fa = files_by_member(ja, pa), *f;
	const char *member;
	/* libnvjpeg.so.12, libk_shared.so, the cubin, the long-named copy; not __init__.py */
	assert_int_equal(json_object_size(fa), 4);
	assert_non_null(json_object_get(fa, "lib/libnvjpeg.so.12"));
	assert_true(json_array_size(json_object_get(json_object_get(fa, "lib/libnvjpeg.so.12"), "images")) > 100);
	json_object_foreach(fa, member, f) {
		char unpacked[4096];
		snprintf(unpacked, sizeof unpacked, "%s/%s", dir, member);
		const char *b[] = { CUDOCTOR_BINARY, "--json", "arch", "--gpu", "sm_75", "--gpu", "sm_120", "--driver",
				    "572.61", unpacked, NULL };
		struct run_result res;
		assert_int_equal(testlib_run(b, NULL, NULL, &res), 0);
		json_t *fb = files_by_member(res.out, unpacked);
		if (!json_equal(f, json_object_get(fb, "")))
			fail_msg("%s: judged differently inside the .conda", member);
		json_decref(fb);
		run_result_free(&res);
	}
	json_decref(fa);
	free(ja);
	/* --cuobjdump: the same lines as on the unpacked files, in the tarball's order */
	const char *ca[] = { CUDOCTOR_BINARY, "arch", "--cuobjdump", conda, NULL };
	char la_path[4200], lc_path[4200], ld_path[4200], le_path[4200];
	snprintf(la_path, sizeof la_path, "%s/lib/libnvjpeg.so.12", dir);
	snprintf(lc_path, sizeof lc_path, "%s/lib/libk_shared.so", dir);
	snprintf(ld_path, sizeof ld_path, "%s/lib/python3.12/site-packages/pkg/k_sm90a.cubin", dir);
	snprintf(le_path, sizeof le_path, "%s/lib/python3.12/site-packages/pkg/%s", dir,
		 "deep/deep/deep/deep/deep/deep/deep/deep/deep/deep/deep/deep/deep/deep/deep/deep/deep/deep/deep/deep/libk_long.so");
	const char *cb[] = { CUDOCTOR_BINARY, "arch", "--cuobjdump", la_path, lc_path, ld_path, le_path, NULL };
	char *la = run_out(ca, 0), *lb = run_out(cb, 0);
	assert_true(strlen(la) > 1000);
	assert_non_null(strstr(la, ": libnvjpeg.so.1.sm_100.cubin"));
	assert_string_equal(la, lb);
	free(la);
	free(lb);
}

/* A bare .tar.zst (GNU long names) named on the command line: its members judged as the
 * .conda's same members are. */
static void tar_zst_read(void **state)
{
	(void)state;
	char *lines = conda_files(), tz[1024], conda[1024], p1[1100], p2[1100];
	if (!lines)
		skip();
	assert_true(field(lines, "tarzst", 1, tz, sizeof tz));
	assert_true(field(lines, "big", 1, conda, sizeof conda));
	const char *a[] = { CUDOCTOR_BINARY, "--json", "arch", "--gpu", "sm_90a", tz, NULL };
	const char *b[] = { CUDOCTOR_BINARY, "--json", "arch", "--gpu", "sm_90a", conda, NULL };
	char *ja = run_out(a, 0), *jb = run_out(b, 0);
	snprintf(p1, sizeof p1, "%s!", tz);
	snprintf(p2, sizeof p2, "%s!", conda);
	json_t *fa = files_by_member(ja, p1), *fb = files_by_member(jb, p2), *f;
	const char *member;
	assert_int_equal(json_object_size(fa), 3);
	json_object_foreach(fa, member, f) {
		assert_true(strlen(member) < 100 || strstr(member, "libk_long.so"));
		assert_true(json_equal(f, json_object_get(fb, member)));
	}
	json_decref(fa);
	json_decref(fb);
	free(ja);
	free(jb);
}

/* The tar reader on what Python's tarfile writes: entries in order, sizes as written, the
 * data given exactly. */
static void tar_entries(void **state)
{
	(void)state;
	char *lines = conda_files(), tz[1024], err[CD_ERRMSG] = "";
	if (!lines)
		skip();
	assert_true(field(lines, "tarzst", 1, tz, sizeof tz));
	struct mapped_file mf;
	struct conda_tar c;
	static struct tar_entry e;
	unsigned char buf[8192];
	size_t got, total = 0;
	int n = 0, more;
	assert_int_equal(file_map(tz, &mf, err), CD_OK);
	assert_true(conda_has_zstd_magic(mf.data, mf.size));
	assert_int_equal(conda_tar_open(&c, NULL, NULL, mf.data, mf.size, err), CD_OK);
	while ((more = conda_tar_next(&c, &e, err)) > 0) {
		n++;
		total = 0;
		do {
			assert_int_equal(conda_tar_read(&c, buf, sizeof buf, &got, err), CD_OK);
			total += got;
		} while (got);
		assert_int_equal(total, e.size);
		if (strstr(e.name, "libk_long.so"))
			assert_true(e.name_len > 100);
	}
	assert_int_equal(more, 0);
	assert_int_equal(n, 4);
	conda_tar_close(&c);
	file_unmap(&mf);
}

/* A frame that asks for a window over 128 MiB (zstd --long=28 of a stream of unknown size) is
 * refused with zstd's reason, exit 3; one of 128 MiB (--long=27) is read. */
static void window_over_limit(void **state)
{
	(void)state;
	char dir[1100], cmd[4096];
	snprintf(dir, sizeof dir, "%s", cache_dir("conda-files"));
	snprintf(cmd, sizeof cmd,
		 "mkdir -p '%s' && head -c 1000000 /dev/zero | zstd -q --long=28 -c > '%s/w28.zst' && "
		 "head -c 1000000 /dev/zero | zstd -q --long=27 -c > '%s/w27.zst'",
		 dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	for (int log = 27; log <= 28; log++) {
		char path[1200];
		snprintf(path, sizeof path, "%s/w%d.zst", dir, log);
		const char *a[] = { CUDOCTOR_BINARY, "arch", "--gpu", "sm_90", path, NULL };
		struct run_result res;
		assert_int_equal(testlib_run(a, NULL, NULL, &res), 0);
		assert_int_equal(res.status, log == 28 ? 3 : 0);
		if (log == 28)
			assert_non_null(strstr(res.err, "Frame requires too much memory"));
		run_result_free(&res);
	}
}

/* A 300 MiB library in a .tar.zst (test_zip's big_member.py: zeros, its section names in the
 * middle, a real fatbin at the end, so a second pass rewinds the tarball) is judged from the
 * stream in little memory with the same images and verdicts as the library itself;
 * --kernels, which holds it whole, is the measure that this one is not. */
static void large_member_streamed_flat(void **state)
{
	(void)state;
	char dir[1100], so[1200], whl[1200], tz[1300], out[1200], cmd[8192];
	if (access(ARCH_FIXTURES "/k_mixed.fatbin", R_OK) != 0)
		skip();
	snprintf(dir, sizeof dir, "%s", cache_dir("zip-stream"));
	big_member(dir, so, whl);
	/* with 16 MiB that do not compress beside it: 300 MiB of zeros alone squeeze into 15 KB,
	 * which the archive's inflation budget (binfmt/budget.h) rightly takes for a bomb */
	snprintf(tz, sizeof tz, "%s.noise.tar.zst", so);
	snprintf(cmd, sizeof cmd,
		 "test -s '%s' || { d=$(mktemp -d) && mkdir $d/lib $d/info && ln -s '%s' $d/lib/libbig.so && "
		 "head -c 16777216 /dev/urandom > $d/info/noise.bin && "
		 "tar -C $d -chf - info/noise.bin lib/libbig.so | zstd -q -3 -c > '%s.part' && mv '%s.part' '%s'; "
		 "rm -rf $d; }",
		 tz, so, tz, tz, tz);
	assert_int_equal(system(cmd), 0);
	snprintf(out, sizeof out, "%s/conda-out.json", dir);
	streamed_member_flat(tz, "lib/libbig.so", so, out);
}

/* What arch must make of a mutant, from the readers alone: false when the archive, its
 * tarball or an entry that can carry device code cannot be read whole. */
static bool reads_whole(const unsigned char *d, size_t size)
{
	static struct tar_entry e;
	struct zip_archive z;
	struct zip_member m;
	struct conda_tar c;
	char err[CD_ERRMSG] = "";
	bool ok = true;
	int more;
	if (!zip_has_magic(d, size) || zip_open(&z, d, size, err) != CD_OK)
		return false;
	if (zip_find_overlaps(&z, err) != CD_OK)
		return false;
	while (ok && (more = zip_next(&z, &m, err)) > 0) {
		ok = !m.overlaps; /* skipped and named */
		if (!ok || !conda_is_pkg_member(m.name, m.name_len))
			continue;
		if (conda_tar_open(&c, &z, &m, NULL, 0, err) != CD_OK) {
			ok = false;
			break;
		}
		int entries;
		while (ok && (entries = conda_tar_next(&c, &e, err)) > 0) {
			if (!dc_name_may_carry_code(e.name, e.name_len))
				continue;
			unsigned char *buf = malloc(e.size + 1);
			size_t got = 0, more_bytes;
			assert_non_null(buf);
			do {
				ok = conda_tar_read(&c, buf + got, e.size + 1 - got, &more_bytes, err) == CD_OK;
				got += more_bytes;
			} while (ok && more_bytes);
			if (ok && dc_has_magic(buf, got)) {
				struct dc_inventory inv;
				dc_init(&inv);
				ok = dc_scan(&inv, buf, got, DC_SCAN_IF_CUDA, err) == CD_OK;
				dc_free(&inv);
			}
			free(buf);
		}
		ok = ok && entries == 0;
		conda_tar_close(&c);
	}
	zip_close(&z);
	return ok && more == 0;
}

/* 2,000 truncated and bit-flipped copies of small.conda through the whole arch report: each
 * names the archive or a member unreadable (exit 3) exactly when the readers alone cannot
 * read it whole; no crash (under ASan, no leak). */
static void damaged_condas(void **state)
{
	(void)state;
	char *lines = conda_files(), small[1024], err[CD_ERRMSG] = "";
	if (!lines)
		skip();
	assert_true(field(lines, "small", 1, small, sizeof small));
	static const char *const words[] = { "--gpu", "sm_90a", "--driver", "580.65", NULL };
	struct mapped_file mf;
	size_t whole = 0, failed = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	assert_int_equal(file_map(small, &mf, err), CD_OK);
	unsigned char *d = malloc(mf.size);
	int saved = dup(2), null = open("/dev/null", O_WRONLY);
	dup2(null, 2);
	for (int i = 0; i < 2000; i++) {
		memcpy(d, mf.data, mf.size);
		size_t size = mutate(d, mf.size, NULL, 0, &seed);
		int exit_override = fuzz_command_report_as(&cmd_arch, NULL, words, d, size, ".conda");
		bool ok = reads_whole(d, size);
		if ((exit_override == CD_EXIT_FAILED) == ok) {
			dup2(saved, 2);
			fail_msg("mutant %d: the readers say %s, arch's exit override is %d", i,
				 ok ? "whole" : "unreadable", exit_override);
		}
		whole += ok;
		failed += !ok;
	}
	dup2(saved, 2);
	close(saved);
	close(null);
	free(d);
	file_unmap(&mf);
	print_message("damaged condas: %zu read whole, %zu named unreadable\n", whole, failed);
	assert_true(whole > 20 && failed > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(conda_judged_as_unpacked),
		cmocka_unit_test(tar_zst_read),
		cmocka_unit_test(tar_entries),
		cmocka_unit_test(window_over_limit),
		cmocka_unit_test(large_member_streamed_flat),
		cmocka_unit_test(damaged_condas),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
