/* The SVG charts: well-formed documents with every finite point drawn, axes that
 * follow the data, escaped text, and nothing at all for an empty plot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab/svg.h"

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void test_staircase(void **state)
{
	(void)state;
	struct lab_plot p;
	memset(&p, 0, sizeof p);
	p.logx = true;
	strcpy(p.title, "Pointer-chase latency <staircase> & more");
	strcpy(p.xlabel, "working set (bytes)");
	strcpy(p.ylabel, "cycles");
	const double x[] = { 4096, 65536, 1 << 20, 16 << 20, 1 << 30 }, y[] = { 33, 36, 270, 317, 655 };
	for (int i = 0; i < 5; i++)
		assert_true(lab_plot_point(&p, 0, "cycles per load", x[i], y[i]));
	assert_true(lab_plot_point(&p, 1, "model", 4096, 40));
	assert_true(lab_plot_point(&p, 1, "model", NAN, 40)); /* skipped when drawn */
	char *svg = lab_svg_render(&p);
	assert_non_null(svg);
	assert_true(strncmp(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39) == 0);
	assert_non_null(strstr(svg, "</svg>\n"));
	assert_non_null(strstr(svg, "latency &lt;staircase&gt; &amp; more"));
	assert_null(strstr(svg, "<staircase>"));
	assert_int_equal(count(svg, "<polyline"), 2);
	assert_int_equal(count(svg, "<circle"), 6); /* 5 + 1 finite model point */
	assert_non_null(strstr(svg, ">cycles per load</text>"));
	assert_non_null(strstr(svg, ">model</text>"));
	/* log axis: ticks at powers of ten, shortened */
	assert_non_null(strstr(svg, ">10k</text>"));
	assert_non_null(strstr(svg, ">1G</text>"));
	assert_null(strstr(svg, "nan"));
	assert_int_equal(count(svg, "<text"), count(svg, "</text>"));
	free(svg);
}

static void test_bars(void **state)
{
	(void)state;
	struct lab_plot p;
	memset(&p, 0, sizeof p);
	strcpy(p.title, "Shared-memory bank conflicts");
	const char *lab[] = { "bcast", "1", "2", "4", "8", "16", "32", "32+pad" };
	const double v[] = { 1, 1, 2, 4, 8, 16, 32, 1 };
	for (int i = 0; i < 8; i++)
		assert_true(lab_plot_bar(&p, lab[i], v[i]));
	char *svg = lab_svg_render(&p);
	assert_non_null(svg);
	assert_int_equal(count(svg, "<rect "), 1 + 8); /* background + bars */
	assert_non_null(strstr(svg, ">32+pad</text>"));
	assert_int_equal(count(svg, "<polyline"), 0);
	/* the tallest bar reaches the top of the plot area; the shortest is a sliver */
	assert_non_null(strstr(svg, "<title>32</title>"));
	free(svg);
}

static void test_empty_and_full(void **state)
{
	(void)state;
	struct lab_plot p;
	memset(&p, 0, sizeof p);
	assert_null(lab_svg_render(&p));
	p.logy = true;
	assert_true(lab_plot_point(&p, 0, "s", 1, 0)); /* zero cannot sit on a log axis */
	assert_null(lab_svg_render(&p));
	assert_false(lab_plot_point(&p, LAB_MAX_SERIES, "s", 1, 1));
	for (int i = 0; i < LAB_MAX_POINTS; i++)
		lab_plot_point(&p, 0, "s", i + 1, i + 1);
	assert_false(lab_plot_point(&p, 0, "s", 1, 1));
	char *svg = lab_svg_render(&p);
	assert_non_null(svg);
	free(svg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_staircase),
		cmocka_unit_test(test_bars),
		cmocka_unit_test(test_empty_and_full),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
