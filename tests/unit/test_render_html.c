/* --html: a doctor report through the fake drivers and a lab result from fabricated
 * measurements become one self-contained page; headless Chromium draws it and the
 * screenshot shows the finding badges and the chart's own colour. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cmd/lab/render.h"
#include "lab/judge.h"
#include "report/render_html.h"
#include "testlib.h"

#define FAKE_CUDA CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define FAKE_NVML CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"

static char dir[] = "/tmp/cudoctor_html_XXXXXX";

static int make_dir(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = 0;
	if (len)
		*len = buf ? (size_t)n : 0;
	fclose(f);
	return buf;
}

/* The page stands alone: no script, no stylesheet link, no image or font fetched. */
static void assert_self_contained(const char *html)
{
	static const char *const bad[] = { "<script", "<link", "src=", "href=", "url(", "@import", "<img" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (strstr(html, bad[i]))
			fail_msg("the page refers outside itself: %s", bad[i]);
	assert_non_null(strstr(html, "<!DOCTYPE html>"));
	assert_non_null(strstr(html, "<style>"));
	assert_non_null(strstr(html, "</html>"));
}

/* ---- a minimal PNG reader (8-bit RGB or RGBA, not interlaced): Chromium's screenshots */
struct image {
	unsigned w, h, bpp;
	unsigned char *px; /* w * h * bpp */
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static bool png_read(const char *path, struct image *im)
{
	size_t len = 0, zlen = 0;
	unsigned char *buf = (unsigned char *)slurp(path, &len), *z = NULL, *raw = NULL;
	bool ok = false;
	memset(im, 0, sizeof *im);
	if (!buf || len < 33 || memcmp(buf, "\x89PNG\r\n\x1a\n", 8) != 0)
		goto out;
	z = malloc(len);
	if (!z)
		goto out;
	for (size_t p = 8; p + 12 <= len;) {
		uint32_t n = be32(buf + p);
		const unsigned char *type = buf + p + 4, *data = buf + p + 8;
		if (n > len - p - 12)
			goto out;
		if (memcmp(type, "IHDR", 4) == 0) {
			im->w = be32(data);
			im->h = be32(data + 4);
			if (data[8] != 8 || (data[9] != 2 && data[9] != 6) || data[12] != 0)
				goto out;
			im->bpp = data[9] == 6 ? 4 : 3;
		} else if (memcmp(type, "IDAT", 4) == 0) {
			memcpy(z + zlen, data, n);
			zlen += n;
		}
		p += 12 + n;
	}
	if (!im->w || !im->h || im->w > 8192 || im->h > 16384)
		goto out;
	size_t stride = (size_t)im->w * im->bpp;
	uLongf rawlen = (uLongf)((stride + 1) * im->h);
	raw = malloc(rawlen);
	im->px = malloc(stride * im->h);
	if (!raw || !im->px || uncompress(raw, &rawlen, z, zlen) != Z_OK || rawlen != (stride + 1) * im->h)
		goto out;
	for (unsigned y = 0; y < im->h; y++) {
		const unsigned char *src = raw + y * (stride + 1) + 1;
		unsigned char *row = im->px + y * stride, *up = y ? row - stride : NULL;
		int filter = src[-1];
		for (size_t x = 0; x < stride; x++) {
			int a = x >= im->bpp ? row[x - im->bpp] : 0, b = up ? up[x] : 0;
			int c = up && x >= im->bpp ? up[x - im->bpp] : 0, v = src[x];
			switch (filter) {
			case 1: v += a; break;
			case 2: v += b; break;
			case 3: v += (a + b) / 2; break;
			case 4: v += paeth(a, b, c); break;
			}
			row[x] = (unsigned char)v;
		}
	}
	ok = true;
out:
	if (!ok) {
		free(im->px);
		im->px = NULL;
	}
	free(buf);
	free(z);
	free(raw);
	return ok;
}

/* Pixels within 12 of (r, g, b) in every channel. */
static size_t count_colour(const struct image *im, int r, int g, int b)
{
	size_t n = 0;
	for (size_t i = 0; i < (size_t)im->w * im->h; i++) {
		const unsigned char *p = im->px + i * im->bpp;
		if (abs(p[0] - r) <= 12 && abs(p[1] - g) <= 12 && abs(p[2] - b) <= 12)
			n++;
	}
	return n;
}

static const char *chromium(void)
{
	static const char *const names[] = { "chromium", "chromium-browser", "chromium-headless-shell", "google-chrome" };
	static char found[512];
	const char *env = getenv("CUDOCTOR_CHROMIUM");
	if (env && *env)
		return env;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char cmd[128];
		snprintf(cmd, sizeof cmd, "command -v %s 2>/dev/null", names[i]);
		FILE *p = popen(cmd, "r");
		bool got = p && fgets(found, sizeof found, p) != NULL;
		if (p)
			pclose(p);
		if (got) {
			found[strcspn(found, "\n")] = 0;
			return found;
		}
	}
	return NULL;
}

/* Screenshot of page into png; false (with the test skipped) when there is no Chromium. */
static bool screenshot(const char *page, const char *png)
{
	const char *bin = chromium();
	if (!bin) {
		print_message("chromium is not installed (tools/deps.sh installs it): the page is not drawn\n");
		return false;
	}
	char shot[600], url[600];
	snprintf(shot, sizeof shot, "--screenshot=%s", png);
	snprintf(url, sizeof url, "file://%s", page);
	const char *argv[] = { bin, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
			       "--no-first-run", "--window-size=1000,3000", shot, url, NULL };
	const char *env[] = { "HOME=/tmp", NULL };
	struct run_result r;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	if (r.status != 0)
		fail_msg("%s exited %d: %s", bin, r.status, r.err);
	run_result_free(&r);
	return true;
}

static void test_doctor_page(void **state)
{
	(void)state;
	char page[256], png[256];
	snprintf(page, sizeof page, "%s/doctor.html", dir);
	snprintf(png, sizeof png, "%s/doctor.png", dir);
	const char *argv[] = { CUDOCTOR_BINARY, "--html", page, "doctor", NULL };
	const char *env[] = { "CUDOCTOR_LIBCUDA=" FAKE_CUDA, "CUDOCTOR_LIBNVML=" FAKE_NVML, "FAKE_NVML_ECC=0:0:3:0:3",
			      "CUDA_VISIBLE_DEVICES=", "LD_LIBRARY_PATH=", NULL };
	struct run_result r;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	assert_int_equal(r.status, 1); /* the ECC error finding */
	assert_non_null(strstr(r.out, "ecc-errors")); /* stdout keeps its text report */
	assert_null(strstr(r.out, "<html"));
	run_result_free(&r);
	char *html = slurp(page, NULL);
	assert_non_null(html);
	assert_self_contained(html);
	assert_non_null(strstr(html, "<title>cudoctor doctor</title>"));
	assert_non_null(strstr(html, "class=\"finding sev-error\""));
	assert_non_null(strstr(html, "<code>ecc-errors</code>"));
	assert_non_null(strstr(html, "<th>UUID</th>"));
	assert_non_null(strstr(html, "NVIDIA H200"));
	/* the provenance every report starts with, in the page's header */
	const char *prov = strstr(html, "<dl class=\"provenance\">");
	assert_non_null(prov);
	assert_true(prov < strstr(html, "</header>"));
	assert_non_null(strstr(prov, "<dt>cudoctor</dt><dd>"));
	assert_non_null(strstr(prov, "<dt>OS</dt><dd>"));
	assert_non_null(strstr(prov, "<dt>kernel</dt><dd>"));
	assert_non_null(strstr(prov, "<dt>date (UTC)</dt><dd>20"));
	free(html);
	if (!screenshot(page, png)) {
		skip();
		return;
	}
	struct image im;
	assert_true(png_read(png, &im));
	/* the error badge and its bar (#b3261e) and the header (#22272e) are drawn */
	size_t red = count_colour(&im, 0xb3, 0x26, 0x1e), head = count_colour(&im, 0x22, 0x27, 0x2e);
	print_message("error-red pixels: %zu, header pixels: %zu\n", red, head);
	if (red < 300 || head < 20000)
		fail_msg("the page did not render: %zu error-red and %zu header pixels", red, head);
	free(im.px);
}

/* A latency staircase as the lab would measure it, judged by the lab's own rule. */
static void fabricated_latency(struct lab_result *res)
{
	static const size_t kib[] = { 4, 16, 64, 1024, 4096, 16384, 45000, 960000 };
	static const double cyc[] = { 33, 33, 34, 260, 262, 270, 480, 830 };
	size_t bytes[8];
	double l1, l2, dram;
	memset(res, 0, sizeof *res);
	res->name = "latency";
	for (size_t i = 0; i < 8; i++) {
		bytes[i] = kib[i] << 10;
		lab_plot_point(&res->plot, 0, "cycles per load", (double)bytes[i], cyc[i]);
		lab_add(res, "cycles", cyc[i], "%zu KiB", kib[i]);
	}
	res->plot.logx = true;
	snprintf(res->plot.title, sizeof res->plot.title, "Pointer-chase latency staircase");
	snprintf(res->plot.xlabel, sizeof res->plot.xlabel, "working set (bytes)");
	snprintf(res->plot.ylabel, sizeof res->plot.ylabel, "cycles per dependent load");
	snprintf(res->setup, sizeof res->setup, "one thread follows <pointers> & counts");
	judge_latency(res, bytes, cyc, 8, (size_t)60 << 20, &l1, &l2, &dram);
}

static void test_lab_page(void **state)
{
	(void)state;
	extern const struct lab lab_latency;
	char page[256], png[256], err[CD_ERRMSG] = "";
	snprintf(page, sizeof page, "%s/lab.html", dir);
	snprintf(png, sizeof png, "%s/lab.png", dir);
	struct lab_result *res = calloc(1, sizeof *res);
	assert_non_null(res);
	fabricated_latency(res);
	assert_int_equal(res->verdict, LAB_CONFIRMED);
	struct report r;
	assert_int_equal(report_init(&r, "lab"), CD_OK);
	struct report_rec top, labs;
	report_rec_top(&top, &r);
	report_rec_array(&top, "labs", &labs);
	lab_render_result(&labs, &lab_latency, res, "");
	assert_int_equal(report_rec_end(&labs), CD_OK);
	assert_int_equal(report_rec_end(&top), CD_OK);
	assert_false(r.oom);
	assert_int_equal(render_html_file(&r, page, err), CD_OK);
	report_free(&r);
	free(res);

	char *html = slurp(page, NULL);
	assert_non_null(html);
	assert_self_contained(html);
	assert_non_null(strstr(html, "<h2>lab latency: memory hierarchy: L1, L2, DRAM latency</h2>"));
	assert_non_null(strstr(html, lab_latency.claim));
	assert_non_null(strstr(html, "one thread follows &lt;pointers&gt; &amp; counts")); /* escaped */
	assert_non_null(strstr(html, "<figure><svg"));
	assert_non_null(strstr(html, "class=\"verdict verdict-confirmed\""));
	assert_non_null(strstr(html, "<td class=\"num\">830</td>"));
	free(html);
	if (!screenshot(page, png)) {
		skip();
		return;
	}
	struct image im;
	assert_true(png_read(png, &im));
	/* the series colour (#1f77b4, src/lab/svg.c) appears only in the chart: line, points, legend */
	size_t blue = count_colour(&im, 0x1f, 0x77, 0xb4);
	print_message("chart series pixels: %zu\n", blue);
	if (blue < 400)
		fail_msg("the chart did not render: %zu pixels of its series colour", blue);
	free(im.px);
}

static void test_bad_path_and_usage(void **state)
{
	(void)state;
	const char *env[] = { "CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1", "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1",
			      NULL };
	const char *argv[] = { CUDOCTOR_BINARY, "--html", "/nonexistent/dir/page.html", "doctor", NULL };
	struct run_result r;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "--html /nonexistent/dir/page.html: No such file or directory"));
	run_result_free(&r);
	const char *none[] = { CUDOCTOR_BINARY, "doctor", "--html", NULL };
	assert_int_equal(testlib_run(none, env, NULL, &r), 0);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "option '--html' needs a value (FILE)"));
	run_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doctor_page),
		cmocka_unit_test(test_lab_page),
		cmocka_unit_test(test_bad_path_and_usage),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
