/* Truncated and bit-flipped copies of every arch fixture: each gives either a normal result
 * or a one-line error, never a crash or an out-of-bounds read (this test runs under ASan
 * and UBSan in `make check`). In-process for a dense sweep through every layer arch uses
 * (inventory, kernels, stub checks, verdicts, resources, the file's report rendered as text
 * and JSON), then the binary on a sparser one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_fixtures.h"
#include "binfmt/devcode.h"
#include "cmd/arch/arch.h"
#include "report/render.h"
#include "report/report.h"
#include "testlib.h"
#include "util/err.h"

#ifndef CUDOCTOR_BINARY
#define CUDOCTOR_BINARY "build/cudoctor"
#endif

static char **fixture_names(size_t *n)
{
	DIR *d = opendir(ARCH_FIXTURES);
	char **names = NULL;
	*n = 0;
	if (!d)
		return NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strstr(de->d_name, ".txt"))
			continue;
		names = realloc(names, (*n + 1) * sizeof(*names));
		names[(*n)++] = strdup(de->d_name);
	}
	closedir(d);
	return names;
}

static unsigned char *load(const char *name, size_t *size)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", ARCH_FIXTURES, name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*size = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *b = malloc(*size ? *size : 1);
	assert_int_equal(fread(b, 1, *size, f), *size);
	fclose(f);
	return b;
}

static int count_name(const char *name, void *ctx)
{
	(void)name;
	++*(size_t *)ctx;
	return 0;
}

/* Everything arch does with one (possibly damaged) file, in process. */
static void exercise(const unsigned char *data, size_t size)
{
	struct dc_inventory inv;
	char err[CD_ERRMSG] = "";
	dc_init(&inv);
	int rc = dc_scan(&inv, data, size, DC_SCAN_ALL_SECTIONS | DC_READ_ELF, err);
	if (rc) {
		assert_true(err[0] != 0);
		assert_null(strchr(err, '\n'));
		assert_true(strlen(err) < CD_ERRMSG);
	} else {
		for (size_t i = 0; i < inv.n_images; i++) {
			char kerr[CD_ERRMSG];
			memset(kerr, 0x7f, sizeof kerr); /* what an uninitialised buffer would print */
			kerr[CD_ERRMSG - 1] = 0;
			size_t n = 0;
			if (arch_image_kernels(&inv, &inv.images[i], count_name, &n, kerr) != CD_OK)
				/* the "cannot read" line says why, in words */
				assert_true(kerr[0] != 0x7f && kerr[0] != 0 && strlen(kerr) < CD_ERRMSG - 1);
		}
		struct arch_file f = {.path = "damaged", .data = data, .size = size, .inv = inv};
		struct arch_opts o;
		memset(&o, 0, sizeof(o));
		o.target.n_gpus = 2;
		o.target.gpus[0].cc = 90;
		o.target.gpus[1].cc = 120;
		o.target.driver.known = true;
		o.target.driver.ptx_isa_max = 900;
		o.target.driver.zstd_ok = 1;
		o.json = o.kernels = o.resources = true;
		struct report r;
		struct report_rec top, files;
		struct arch_verdict v[2];
		assert_int_equal(report_init(&r, "arch"), 0);
		report_rec_top(&top, &r);
		report_rec_array(&top, "files", &files);
		arch_file_fields(&files, &f, &o, v); /* the whole per-file report, text and JSON */
		assert_int_equal(report_rec_end(&files), CD_OK); /* a damaged name is no failure */
		assert_int_equal(report_rec_end(&top), CD_OK);
		assert_false(r.oom);
		json_t *file = json_array_get(json_object_get(r.data, "files"), 0);
		assert_int_equal(json_array_size(json_object_get(file, "images")), inv.n_images);
		for (int fmt = FMT_TEXT; fmt <= FMT_JSON; fmt++) {
			struct render_opts ro = { (enum output_format)fmt, false, 1, 0, NULL };
			FILE *out = fopen("/dev/null", "w");
			assert_non_null(out);
			assert_int_equal(render_report(&r, &ro, out), 0);
			fclose(out);
		}
		report_free(&r);
		inv = f.inv;
	}
	dc_free(&inv);
}

static void test_damaged_in_process(void **state)
{
	size_t n;
	(void)state;
	char **names = fixture_names(&n);
	if (!names || n == 0) {
		fprintf(stderr, "skipping: no fixtures in %s (nvcc was not found at configure time)\n", ARCH_FIXTURES);
		skip();
	}
	uint32_t seed = 12345;
	size_t variants = 0;
	for (size_t k = 0; k < n; k++) {
		size_t size;
		unsigned char *orig = load(names[k], &size);
		/* truncations: every 8 bytes of the first 512, then 64 cuts across the file */
		for (size_t cut = 0; cut < size; cut += cut < 512 ? 8 : size / 64 + 1) {
			unsigned char *t = malloc(cut ? cut : 1); /* exact size: ASan sees any overread */
			memcpy(t, orig, cut);
			exercise(t, cut);
			free(t);
			variants++;
		}
		/* bit flips: 160 random bits, then every bit of the first 128 bytes' low nibbles */
		unsigned char *c = malloc(size);
		for (int i = 0; i < 288; i++) {
			memcpy(c, orig, size);
			size_t pos;
			unsigned bit;
			if (i < 160) {
				seed = seed * 1103515245u + 12345u;
				pos = (seed >> 8) % size;
				bit = (seed >> 4) & 7;
			} else {
				pos = (size_t)(i - 160) % (size < 128 ? size : 128);
				bit = (unsigned)(i % 4);
			}
			c[pos] ^= (unsigned char)(1u << bit);
			exercise(c, size);
			variants++;
		}
		free(c);
		free(orig);
		free(names[k]);
	}
	free(names);
	fprintf(stderr, "exercised %zu damaged variants\n", variants);
}

/* The binary on damaged copies: exit 0, 1 or 3, a one-line error, no sanitizer report. */
static void test_damaged_binary(void **state)
{
	size_t n;
	(void)state;
	char **names = fixture_names(&n);
	if (!names || n == 0) {
		fprintf(stderr, "skipping: no fixtures in %s\n", ARCH_FIXTURES);
		skip();
	}
	char tmpl[] = "/tmp/cudoctor-arch-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	const char *env[] = {"CUDOCTOR_LIBCUDA=/nonexistent", NULL};
	for (size_t k = 0; k < n; k++) {
		size_t size;
		unsigned char *orig = load(names[k], &size);
		for (int v = 0; v < 6; v++) {
			char path[1024];
			snprintf(path, sizeof(path), "%s/%s.%d", tmpl, names[k], v);
			FILE *f = fopen(path, "wb");
			size_t len = size;
			if (v < 3) {
				len = size * (size_t)(v + 1) / 4; /* a quarter, half, three quarters */
				fwrite(orig, 1, len, f);
			} else {
				unsigned char *c = malloc(size);
				memcpy(c, orig, size);
				c[(size * (size_t)(v - 2)) / 5 % size] ^= 0x10;
				c[(v * 37) % (size < 256 ? size : 256)] ^= 0x01;
				fwrite(c, 1, size, f);
				free(c);
			}
			fclose(f);
			const char *argv[] = {CUDOCTOR_BINARY, "--json", "arch", "--kernels", "--gpu", "9.0", "--driver", "13.0", path, NULL};
			struct run_result res;
			assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
			if (res.status != 0 && res.status != 1 && res.status != 3)
				fail_msg("%s: exit %d\n%s", path, res.status, res.err);
			assert_null(strstr(res.err, "Sanitizer"));
			assert_null(strstr(res.err, "runtime error"));
			json_error_t je;
			json_t *j = json_loads(res.out, 0, &je);
			assert_non_null(j);
			const char *e = json_string_value(json_object_get(json_array_get(json_object_get(j, "files"), 0), "error"));
			if (e)
				assert_null(strchr(e, '\n'));
			assert_true(res.status != 3 || e != NULL);
			json_decref(j);
			run_result_free(&res);
			remove(path);
		}
		free(orig);
		free(names[k]);
	}
	free(names);
	rmdir(tmpl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_damaged_in_process),
		cmocka_unit_test(test_damaged_binary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
