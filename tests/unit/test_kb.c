/* The kb tables: every row parses, the tables agree with each other, with nvcc here
 * and with CUDA's own headers; malformed tables are refused with file:line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kb/frameworks.h"
#include "kb/kb.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"
#include "testlib.h"

#ifndef CUDOCTOR_SOURCE_DIR
#error "CUDOCTOR_SOURCE_DIR must name the source tree"
#endif
#ifndef CUDOCTOR_CUDA_INCLUDE_DIR
#define CUDOCTOR_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

static int load(void **state)
{
	char err[CD_ERRMSG] = "";

	(void)state;
	if (kb_load(err) != CD_OK) {
		print_error("kb_load: %s\n", err);
		return -1;
	}
	return 0;
}

static struct version V(const char *s)
{
	struct version v;

	assert_int_equal(version_parse(s, &v), CD_OK);
	return v;
}

static void every_table_loads(void **state)
{
	(void)state;
	/* the counts are the rows in kb/; a lost row is a failure */
	assert_int_equal(kb_gpu_count(), 291);
	assert_true(kb_toolkit_count() >= 30);
	assert_true(kb_driver_count() >= 33);
	assert_true(kb_ptx_isa_count() >= 33);
	assert_true(kb_family_count() >= 7);
	assert_true(kb_arch_count() >= 41);
	assert_true(kb_error_count() >= 235);
}

static void every_gpu_cc_is_buildable_and_named_consistently(void **state)
{
	(void)state;
	for (size_t i = 0; i < kb_gpu_count(); i++) {
		const struct kb_gpu *g = kb_gpu_at(i);
		struct kb_arch a = { g->arch, 0 };
		const struct kb_toolkit *first, *last;
		const struct kb_arch_info *ai = kb_arch_find(a);

		if (kb_arch_toolkit_range(a, &first, &last) != CD_OK)
			fail_msg("%s: CC %d.%d is accepted by no toolkit", g->name, g->cc_major,
				 g->cc_minor);
		if (!ai)
			fail_msg("%s: sm_%d not in archs.tsv", g->name, g->arch);
		if (strcmp(ai->architecture, g->architecture) != 0)
			fail_msg("%s: architecture %s, archs.tsv says %s", g->name, g->architecture,
				 ai->architecture);
	}
}

static void every_toolkit_arch_is_described(void **state)
{
	(void)state;
	for (size_t i = 0; i < kb_toolkit_count(); i++) {
		const struct kb_toolkit *t = kb_toolkit_at(i);

		for (size_t j = 0; j < t->n_archs; j++) {
			char name[32];

			kb_arch_format(t->archs[j], "sm_", name, sizeof(name));
			if (!kb_arch_find(t->archs[j]))
				fail_msg("toolkit %s accepts %s, which archs.tsv lacks", t->release_text,
					 name);
			if (t->archs[j].suffix == 'f' && !kb_family_find(t->archs[j].num))
				fail_msg("toolkit %s accepts %s, which arch_families.tsv lacks",
					 t->release_text, name);
		}
		if (t->archs_known && !kb_toolkit_accepts(t, t->default_arch))
			fail_msg("toolkit %s: default arch not accepted", t->release_text);
	}
}

/* archs.tsv's first/last toolkit agree with the toolkit rows' arch lists. */
static void arch_ranges_match_toolkit_lists(void **state)
{
	const struct version floor = kb_toolkit_at(0)->release;

	(void)state;
	for (size_t i = 0; i < kb_arch_count(); i++) {
		const struct kb_arch_info *ai = kb_arch_at(i);
		const struct kb_toolkit *first, *last;
		char name[32];

		kb_arch_format(ai->arch, "sm_", name, sizeof(name));
		if (kb_arch_toolkit_range(ai->arch, &first, &last) != CD_OK)
			fail_msg("%s: no toolkit accepts it", name);
		if (version_cmp(&ai->first_toolkit, &floor) >= 0 &&
		    version_cmp(&ai->first_toolkit, &first->release) != 0)
			fail_msg("%s: archs.tsv first %d.%d, toolkits say %s", name,
				 ai->first_toolkit.major, ai->first_toolkit.minor, first->release_text);
		if (ai->has_last != (last != NULL))
			fail_msg("%s: archs.tsv and toolkits.tsv disagree on whether it is current", name);
		if (last && version_cmp(&ai->last_toolkit, &last->release) != 0)
			fail_msg("%s: archs.tsv last %d.%d, toolkits say %s", name,
				 ai->last_toolkit.major, ai->last_toolkit.minor, last->release_text);
	}
}

static void removed_archs_were_accepted_before(void **state)
{
	(void)state;
	for (size_t i = 1; i < kb_toolkit_count(); i++) {
		const struct kb_toolkit *t = kb_toolkit_at(i), *prev = kb_toolkit_at(i - 1);

		for (size_t j = 0; j < t->n_removed; j++) {
			if (kb_toolkit_accepts(t, t->removed[j]))
				fail_msg("%s removes sm_%d but still accepts it", t->release_text,
					 t->removed[j].num);
			if (!kb_toolkit_accepts(prev, t->removed[j]))
				fail_msg("%s removes sm_%d%c, which %s did not accept", t->release_text,
					 t->removed[j].num, t->removed[j].suffix ? t->removed[j].suffix : ' ',
					 prev->release_text);
		}
		/* and nothing disappears without being listed as removed */
		for (size_t j = 0; prev->archs_known && t->archs_known && j < prev->n_archs; j++) {
			bool listed = false;

			if (kb_toolkit_accepts(t, prev->archs[j]))
				continue;
			for (size_t k = 0; k < t->n_removed; k++)
				listed |= kb_arch_eq(t->removed[k], prev->archs[j]);
			if (!listed)
				fail_msg("%s silently drops sm_%d%c", t->release_text, prev->archs[j].num,
					 prev->archs[j].suffix ? prev->archs[j].suffix : ' ');
		}
	}
}

static void driver_minimums_are_monotonic_and_consistent(void **state)
{
	const struct kb_toolkit *prev = NULL;

	(void)state;
	for (size_t i = 0; i < kb_toolkit_count(); i++) {
		const struct kb_toolkit *t = kb_toolkit_at(i);
		const struct kb_driver_branch *b;
		const struct kb_ptx_isa *p;
		bool exact;

		p = kb_ptx_isa_find(t->ptx_major, t->ptx_minor);
		if (!p)
			fail_msg("%s emits PTX %d.%d, not in ptx_isa.tsv", t->release_text, t->ptx_major,
				 t->ptx_minor);
		if (version_cmp(&p->cuda, &t->release) > 0)
			fail_msg("%s emits PTX %d.%d from a later release", t->release_text,
				 t->ptx_major, t->ptx_minor);
		if (!t->has_min_driver)
			continue;
		if (prev && version_cmp(&prev->min_driver, &t->min_driver) > 0)
			fail_msg("minimum driver goes down from %s to %s", prev->release_text,
				 t->release_text);
		prev = t;
		/* the driver a toolkit requires reports a CUDA version at least the toolkit's */
		assert_int_equal(kb_driver_branch_of(&t->min_driver, &b, &exact), CD_OK);
		assert_true(exact);
		if (b->cuda.major < t->release.major ||
		    (b->cuda.major == t->release.major && b->cuda.minor < t->release.minor))
			fail_msg("%s needs driver %d.%d.%d whose branch R%d reports CUDA %d.%d",
				 t->release_text, t->min_driver.major, t->min_driver.minor,
				 t->min_driver.patch, b->branch, b->cuda.major, b->cuda.minor);
		/* x.0 GA can predate its family's floor (11.0 GA: 450.51.05, floor 450.80.02) */
		if (t->has_minor_compat && t->release.minor > 0 &&
		    version_cmp(&t->minor_compat_floor, &t->min_driver) > 0)
			fail_msg("%s: minor-compat floor above its own minimum", t->release_text);
	}
	for (size_t i = 1; i < kb_driver_count(); i++)
		assert_true(version_cmp(&kb_driver_at(i - 1)->cuda, &kb_driver_at(i)->cuda) <= 0);
	for (size_t i = 1; i < kb_ptx_isa_count(); i++) {
		const struct kb_ptx_isa *a = kb_ptx_isa_at(i - 1), *b = kb_ptx_isa_at(i);

		assert_true(version_cmp(&a->cuda, &b->cuda) < 0);
		if (a->has_min_driver && b->has_min_driver)
			assert_true(version_cmp(&a->min_driver, &b->min_driver) < 0);
	}
}

static void driver_lookups(void **state)
{
	const struct kb_driver_branch *b;
	struct version v;
	bool exact;

	(void)state;
	v = V("580.159.04");
	assert_int_equal(kb_driver_branch_of(&v, &b, &exact), CD_OK);
	assert_int_equal(b->branch, 580);
	assert_true(exact);
	assert_int_equal(b->cuda.major, 13);
	assert_int_equal(b->cuda.minor, 0);
	v = V("572.61"); /* Windows numbering of R570 */
	assert_int_equal(kb_driver_branch_of(&v, &b, &exact), CD_OK);
	assert_int_equal(b->branch, 570);
	assert_true(exact);
	v = V("600.10"); /* a branch the table does not know: at least R595's */
	assert_int_equal(kb_driver_branch_of(&v, &b, &exact), CD_OK);
	assert_int_equal(b->branch, 595);
	assert_false(exact);
	v = V("340.108");
	assert_int_equal(kb_driver_branch_of(&v, &b, &exact), CD_ENOTFOUND);

	v = V("12.8");
	b = kb_driver_branch_for_cuda(&v);
	assert_non_null(b);
	assert_int_equal(b->branch, 570);
	v = V("12.7");
	assert_int_equal(kb_driver_branch_for_cuda(&v)->branch, 565);
	v = V("13.0");
	assert_int_equal(kb_driver_branch_for_cuda(&v)->branch, 580);
	v = V("14.0");
	assert_null(kb_driver_branch_for_cuda(&v));
}

static void ptx_lookups(void **state)
{
	const struct kb_ptx_isa *p;
	struct version v;

	(void)state;
	p = kb_ptx_isa_find(9, 0);
	assert_non_null(p);
	assert_int_equal(p->min_driver.major, 580);
	v = V("13.0");
	p = kb_ptx_isa_max_for_cuda(&v);
	assert_int_equal(p->major * 10 + p->minor, 90);
	v = V("12.6"); /* 12.6 emitted 8.5; 8.6 is 12.7's */
	p = kb_ptx_isa_max_for_cuda(&v);
	assert_int_equal(p->major * 10 + p->minor, 85);
	assert_null(kb_ptx_isa_find(9, 9));
}

static void families(void **state)
{
	(void)state;
	assert_true(kb_family_contains(100, 100));
	assert_true(kb_family_contains(100, 103));
	assert_false(kb_family_contains(100, 120));
	assert_true(kb_family_contains(120, 121));
	assert_false(kb_family_contains(121, 120));
	assert_false(kb_family_contains(90, 90)); /* sm_90f is not a family */
	for (size_t i = 0; i < kb_family_count(); i++) {
		const struct kb_family *f = kb_family_at(i);
		struct kb_arch fa = { f->arch, 'f' };

		assert_non_null(kb_arch_find(fa));
		assert_true(kb_family_contains(f->arch, f->arch));
		for (size_t j = 0; j < f->n_members; j++)
			assert_int_equal(f->members[j] / 10, f->arch / 10);
	}
}

static void arch_parse_and_format(void **state)
{
	struct kb_arch a;
	char buf[32];

	(void)state;
	assert_int_equal(kb_arch_parse("sm_90a", &a), CD_OK);
	assert_int_equal(a.num, 90);
	assert_int_equal(a.suffix, 'a');
	assert_int_equal(kb_arch_parse("compute_100f", &a), CD_OK);
	assert_int_equal(a.num, 100);
	assert_int_equal(a.suffix, 'f');
	assert_int_equal(kb_arch_parse("12.1", &a), CD_OK);
	assert_int_equal(a.num, 121);
	assert_int_equal(kb_arch_parse("8.9", &a), CD_OK);
	assert_int_equal(a.num, 89);
	assert_int_equal(kb_arch_parse("75", &a), CD_OK);
	assert_int_equal(a.num, 75);
	assert_int_equal(kb_arch_parse("sm_", &a), CD_EFORMAT);
	assert_int_equal(kb_arch_parse("4060", &a), CD_EFORMAT);
	assert_int_equal(kb_arch_parse("8", &a), CD_EFORMAT);
	assert_int_equal(kb_arch_parse("8.99", &a), CD_EFORMAT);
	assert_int_equal(kb_arch_parse("sm_90x", &a), CD_EFORMAT);
	assert_int_equal(kb_arch_parse("", &a), CD_EFORMAT);
	a.num = 103;
	a.suffix = 'f';
	kb_arch_format(a, "compute_", buf, sizeof(buf));
	assert_string_equal(buf, "compute_103f");
	kb_arch_format(a, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "10.3");
}

/* kb_arch_cmp orders as its documentation says, the names in str_natcmp's order, on every pair
 * of a range of numbers (negative ones too: a crafted file's arch read as int) and suffixes. */
static void arch_order_is_natural(void **state)
{
	static const int nums[] = { -2000000000, -1, 0, 5, 9, 10, 50, 75, 89, 90, 99, 100, 101, 103, 120, 121,
				    999, 1000, 2147483647 };
	static const char sufs[] = { 0, 'a', 'f', '1', 'z' };
	size_t n = sizeof(nums) / sizeof(nums[0]) * sizeof(sufs), pairs = 0;

	(void)state;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			struct kb_arch a = { nums[i / sizeof(sufs)], sufs[i % sizeof(sufs)] };
			struct kb_arch b = { nums[j / sizeof(sufs)], sufs[j % sizeof(sufs)] };
			char x[32], y[32];

			kb_arch_format(a, "sm_", x, sizeof(x));
			kb_arch_format(b, "sm_", y, sizeof(y));
			if (kb_arch_cmp(a, b) != str_natcmp(x, y))
				fail_msg("kb_arch_cmp(%s, %s) is %d, str_natcmp %d", x, y, kb_arch_cmp(a, b), str_natcmp(x, y));
			pairs++;
		}
	assert_int_equal(pairs, n * n);
	assert_true(kb_arch_cmp((struct kb_arch){ 90, 0 }, (struct kb_arch){ 90, 'a' }) < 0);
	assert_true(kb_arch_cmp((struct kb_arch){ 90, 'f' }, (struct kb_arch){ 100, 0 }) < 0);
}

static void gpu_specs(void **state)
{
	struct gpu_spec s;
	char err[CD_ERRMSG];

	(void)state;
	static const struct {
		const char *spec;
		int arch;
		char suffix;
		const char *name; /* NULL: a CC spec */
	} ok[] = {
		{ "sm_89", 89, 0, NULL },         { "8.9", 89, 0, NULL },
		{ "89", 89, 0, NULL },            { "sm_90a", 90, 'a', NULL },
		{ "sm_100f", 100, 'f', NULL },    { "12.0", 120, 0, NULL },
		{ "RTX 4060 Ti", 89, 0, "NVIDIA GeForce RTX 4060 Ti" },
		{ "rtx 4060 ti", 89, 0, "NVIDIA GeForce RTX 4060 Ti" },
		{ "RTX 4060", 89, 0, "NVIDIA GeForce RTX 4060" },
		{ "H200", 90, 0, "NVIDIA H200" },
		{ "NVIDIA H200 NVL", 90, 0, "NVIDIA H200 NVL" },
		{ "GTX 1080", 61, 0, "NVIDIA GeForce GTX 1080" },
		{ "970", 52, 0, "NVIDIA GeForce GTX 970" }, /* not CC 97.0 */
		{ "Quadro K2200", 50, 0, "Quadro K2200" },  /* Maxwell despite the K */
		{ "RTX 2050", 86, 0, "NVIDIA GeForce RTX 2050" },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		err[0] = '\0';
		if (kb_parse_gpu_spec(ok[i].spec, &s, err) != CD_OK)
			fail_msg("%s: %s", ok[i].spec, err);
		assert_int_equal(s.arch.num, ok[i].arch);
		assert_int_equal(s.arch.suffix, ok[i].suffix);
		if (ok[i].name) {
			assert_non_null(s.gpu);
			assert_string_equal(s.gpu->name, ok[i].name);
		} else {
			assert_null(s.gpu);
		}
	}
	/* ambiguous: a usage error listing candidates */
	assert_int_equal(kb_parse_gpu_spec("Jetson", &s, err), CD_EUSAGE);
	assert_non_null(strstr(err, "ambiguous"));
	assert_non_null(strstr(err, "NVIDIA Thor"));
	assert_non_null(strstr(err, "Orin (nvgpu)"));
	assert_int_equal(kb_parse_gpu_spec("sm_90f", &s, err), CD_EUSAGE);
	assert_int_equal(kb_parse_gpu_spec("sm_99", &s, err), CD_EUSAGE);
	assert_int_equal(kb_parse_gpu_spec("Radeon 7900", &s, err), CD_EUSAGE);
	assert_non_null(strstr(err, "Radeon"));
	assert_int_equal(kb_parse_gpu_spec("", &s, err), CD_EUSAGE);
}

/* Every name resolves to its row, every alias finds its row among the best matches. */
static void every_gpu_name_and_alias_resolves(void **state)
{
	const struct kb_gpu *c[64];

	(void)state;
	for (size_t i = 0; i < kb_gpu_count(); i++) {
		const struct kb_gpu *g = kb_gpu_at(i), *byname = kb_gpu_by_name(g->name);

		assert_non_null(byname);
		assert_string_equal(byname->name, g->name);
		assert_int_equal(byname->arch, g->arch);
		for (size_t a = 0; a < g->n_aliases; a++) {
			size_t n = kb_gpu_search(g->aliases[a], c, 64);
			bool found = false;

			for (size_t k = 0; k < n && k < 64; k++)
				found |= c[k] == g;
			if (!found)
				fail_msg("alias '%s' of %s does not find it", g->aliases[a], g->name);
		}
	}
}

static void gpu_memory(void **state)
{
	const struct kb_gpu *g = kb_gpu_by_name("NVIDIA H200");

	(void)state;
	assert_non_null(g);
	assert_int_equal(g->n_memory_gb, 1);
	assert_true(g->memory_gb[0] == 141);
	g = kb_gpu_by_name("nvidia geforce rtx 4060 ti");
	assert_non_null(g);
	assert_int_equal(g->n_memory_gb, 2);
	assert_true(g->memory_gb[0] == 8 && g->memory_gb[1] == 16);
	assert_null(kb_gpu_by_name("H200")); /* a part of a name is not a driver name */
}

static void toolkit_lookups(void **state)
{
	const struct kb_toolkit *t, *first, *last;
	struct version v = V("12.8.1");
	struct kb_arch a = { 120, 0 };

	(void)state;
	t = kb_toolkit_find(&v);
	assert_non_null(t);
	assert_string_equal(t->release_text, "12.8");
	assert_true(kb_toolkit_accepts(t, a));
	/* zstd fatbins came with nvcc 12.4, whose minimum driver is the oldest that loads them */
	assert_non_null(kb_toolkit_first_zstd());
	assert_string_equal(kb_toolkit_first_zstd()->release_text, "12.4");
	assert_string_equal(kb_toolkit_first_zstd()->min_driver_text, "550.54.14");
	assert_int_equal(kb_arch_toolkit_range(a, &first, &last), CD_OK);
	assert_string_equal(first->release_text, "12.8");
	assert_null(last);
	a.num = 70;
	assert_int_equal(kb_arch_toolkit_range(a, &first, &last), CD_OK);
	assert_string_equal(first->release_text, "9.0");
	assert_string_equal(last->release_text, "12.9");
	a.num = 61; /* Pascal: CUDA 8.0 first (Pascal compatibility guide), 12.9 last */
	assert_int_equal(kb_arch_toolkit_range(a, &first, &last), CD_OK);
	assert_string_equal(first->release_text, "8.0");
	assert_string_equal(last->release_text, "12.9");
	assert_string_equal(first->min_driver_text, "367.48");
	a.num = 20; /* Fermi: 8.0 was the last */
	assert_int_equal(kb_arch_toolkit_range(a, &first, &last), CD_OK);
	assert_string_equal(last->release_text, "8.0");
	a.num = 90;
	a.suffix = 'f';
	assert_int_equal(kb_arch_toolkit_range(a, &first, &last), CD_ENOTFOUND);
	v = V("13.0");
	t = kb_toolkit_find(&v);
	assert_int_equal(t->zstd, KB_ZSTD_DEFAULT);
	assert_int_equal(t->default_arch.num, 75);
	assert_int_equal(t->min_driver.major, 580);
	v = V("12.7"); /* never released */
	assert_null(kb_toolkit_find(&v));
}

/* ---- against nvcc and the CUDA headers here ---- */

static const char *find_nvcc(void)
{
#ifdef CUDOCTOR_NVCC
	if (path_is_file(CUDOCTOR_NVCC))
		return CUDOCTOR_NVCC;
#endif
	if (path_is_file("/usr/local/cuda/bin/nvcc"))
		return "/usr/local/cuda/bin/nvcc";
	return NULL;
}

static void nvcc_arch_list_matches_table(void **state)
{
	const char *nvcc = find_nvcc();
	const struct kb_toolkit *t;
	struct version v;
	char cmd[512], line[256];
	size_t seen = 0, plain = 0;
	FILE *p;

	(void)state;
	if (!nvcc) {
		print_message("SKIP: no nvcc here; the nvcc cross-check did not run\n");
		skip();
	}
	snprintf(cmd, sizeof(cmd), "'%s' --version", nvcc);
	p = popen(cmd, "r");
	assert_non_null(p);
	v.major = -1;
	while (fgets(line, sizeof(line), p)) {
		char *r = strstr(line, "release ");

		if (r)
			assert_int_equal(version_parse(r + 8, &v), CD_OK);
	}
	pclose(p);
	assert_true(v.major > 0);
	t = kb_toolkit_find(&v);
	if (!t)
		fail_msg("nvcc %d.%d here is not in toolkits.tsv", v.major, v.minor);
	snprintf(cmd, sizeof(cmd), "'%s' --list-gpu-arch", nvcc);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		struct kb_arch a;

		line[strcspn(line, "\r\n")] = '\0';
		if (kb_arch_parse(line, &a) != CD_OK)
			fail_msg("nvcc printed '%s'", line);
		if (!kb_toolkit_accepts(t, a))
			fail_msg("nvcc %s accepts %s; toolkits.tsv says it does not", t->release_text,
				 line);
		seen++;
	}
	assert_int_equal(pclose(p), 0);
	for (size_t i = 0; i < t->n_archs; i++)
		plain += t->archs[i].suffix == 0;
	/* --list-gpu-arch prints plain targets only */
	assert_int_equal(seen, plain);
	print_message("nvcc %s: %zu archs, all in toolkits.tsv and none missing\n", t->release_text,
		      seen);
}

struct enum_entry {
	char name[64];
	long value;
};

/* Reads NAME = NUMBER entries of the enum whose text starts at `start` in the header. */
static size_t read_enum(const char *path, const char *start, struct enum_entry *out, size_t max)
{
	char *text = NULL, *p, *end;
	size_t len = 0, n = 0;

	if (file_read_text(path, 8u << 20, &text, &len, NULL) != CD_OK)
		return 0;
	p = strstr(text, start);
	assert_non_null(p);
	end = strstr(p, "}");
	assert_non_null(end);
	/* blank out comments so documentation text cannot look like an entry */
	for (char *c = p; c < end; c++) {
		if (c[0] == '/' && c[1] == '*') {
			char *close = strstr(c + 2, "*/");

			assert_non_null(close);
			memset(c, ' ', (size_t)(close + 2 - c));
		}
	}
	end = strstr(p, "}");
	for (char *c = p + strlen(start); c < end;) {
		if (isalpha((unsigned char)*c) || *c == '_') {
			char *id = c;
			size_t idlen;

			while (isalnum((unsigned char)*c) || *c == '_')
				c++;
			idlen = (size_t)(c - id);
			while (isspace((unsigned char)*c))
				c++;
			if (*c == '=' && idlen < sizeof(out[0].name) && n < max) {
				memcpy(out[n].name, id, idlen);
				out[n].name[idlen] = '\0';
				out[n].value = strtol(c + 1, &c, 0);
				n++;
			}
			continue;
		}
		c++;
	}
	free(text);
	return n;
}

static void compare_enum(const char *path, const char *start, enum kb_api api)
{
	static struct enum_entry e[512];
	size_t n, in_table = 0;

	if (!path_is_file(path)) {
		print_message("SKIP: %s is absent; the catalogue was not compared\n", path);
		skip();
	}
	n = read_enum(path, start, e, 512);
	assert_true(n > 90);
	for (size_t i = 0; i < n; i++) {
		const struct kb_error *k = kb_error_by_name(e[i].name);

		if (!k)
			fail_msg("%s: %s = %ld is missing from errors.tsv", path, e[i].name, e[i].value);
		assert_int_equal(k->api, api);
		if (k->code != e[i].value)
			fail_msg("%s: %s is %ld there, %d in errors.tsv", path, e[i].name, e[i].value,
				 k->code);
	}
	for (size_t i = 0; i < kb_error_count(); i++)
		in_table += kb_error_at(i)->api == api;
	/* and errors.tsv invents nothing */
	assert_int_equal(in_table, n);
	print_message("%s: all %zu codes in the catalogue\n", path, n);
}

static void catalogue_covers_runtime_header(void **state)
{
	(void)state;
	compare_enum(CUDOCTOR_CUDA_INCLUDE_DIR "/driver_types.h", "enum __device_builtin__ cudaError\n",
		     KB_API_RUNTIME);
}

static void catalogue_covers_driver_header(void **state)
{
	(void)state;
	compare_enum(CUDOCTOR_CUDA_INCLUDE_DIR "/cuda.h", "typedef enum cudaError_enum {",
		     KB_API_DRIVER);
}

static void error_lookups(void **state)
{
	const struct kb_error *e;

	(void)state;
	e = kb_error_by_name("cudaErrorNoKernelImageForDevice");
	assert_non_null(e);
	assert_int_equal(e->code, 209);
	assert_string_equal(e->string, "no kernel image is available for execution on the device");
	assert_string_equal(e->finding, "no-kernel-image");
	e = kb_error_by_code(KB_API_DRIVER, 209);
	assert_string_equal(e->name, "CUDA_ERROR_NO_BINARY_FOR_GPU");
	e = kb_error_by_code(KB_API_RUNTIME, 35);
	assert_string_equal(e->string, "CUDA driver version is insufficient for CUDA runtime version");
	assert_string_equal(e->finding, "runtime-newer-than-driver");
	assert_null(kb_error_by_code(KB_API_DRIVER, 35)); /* runtime-only */
	assert_null(kb_error_by_code(KB_API_RUNTIME, 202)); /* driver-only */
	e = kb_error_by_code(KB_API_RUNTIME, 1);
	assert_null(e->finding);
	for (size_t i = 0; i < kb_error_count(); i++) {
		const char *f = kb_error_at(i)->finding;

		for (; f && *f; f++)
			assert_true(islower((unsigned char)*f) || isdigit((unsigned char)*f) || *f == '-'); /* p2p-unsupported */
	}
}

/* Every source a row cites is a URL or a key sources.tsv explains. */
static void check_sources(const char *list, const char *where)
{
	const char *p = list;

	while (*p) {
		char key[160];
		size_t k = strcspn(p, ";");

		assert_true(k > 0 && k < sizeof(key));
		memcpy(key, p, k);
		key[k] = '\0';
		p += k + (p[k] == ';');
		if (strncmp(key, "https://", 8) == 0)
			continue;
		if (!kb_source_find(key))
			fail_msg("%s cites %s, which kb/sources.tsv does not explain", where, key);
	}
}

static void every_source_is_explained(void **state)
{
	(void)state;
	for (size_t i = 0; i < kb_gpu_count(); i++)
		check_sources(kb_gpu_at(i)->source, kb_gpu_at(i)->name);
	for (size_t i = 0; i < kb_toolkit_count(); i++)
		check_sources(kb_toolkit_at(i)->source, "toolkits.tsv");
	for (size_t i = 0; i < kb_driver_count(); i++)
		check_sources(kb_driver_at(i)->source, "drivers.tsv");
	for (size_t i = 0; i < kb_ptx_isa_count(); i++)
		check_sources(kb_ptx_isa_at(i)->source, "ptx_isa.tsv");
	for (size_t i = 0; i < kb_family_count(); i++)
		check_sources(kb_family_at(i)->source, "arch_families.tsv");
	for (size_t i = 0; i < kb_arch_count(); i++)
		check_sources(kb_arch_at(i)->source, "archs.tsv");
	for (size_t i = 0; i < kb_error_count(); i++)
		check_sources(kb_error_at(i)->source, kb_error_at(i)->name);
	for (size_t i = 0; i < kb_message_count(); i++)
		check_sources(kb_message_at(i)->source, kb_message_at(i)->key);
	for (size_t i = 0; i < kb_finding_count(); i++)
		check_sources(kb_finding_at(i)->source, kb_finding_at(i)->finding);
	for (size_t i = 0; i < kb_xid_count(); i++)
		check_sources(kb_xid_at(i)->source, "xid.tsv");
	for (size_t i = 0; i < kb_xid_bucket_count(); i++)
		check_sources(kb_xid_bucket_at(i)->source, kb_xid_bucket_at(i)->bucket);
}

/* A path a source names ("bench/results/x.md", `kb/tools/errors_tsv.py`) exists in the
 * repository; false when it does not. */
static bool repo_file_exists(const char *path, size_t len)
{
	char full[512];

	if (len >= 256)
		return false;
	snprintf(full, sizeof(full), "%s/%.*s", CUDOCTOR_SOURCE_DIR, (int)len, path);
	return access(full, R_OK) == 0;
}

/* Every source is public (a URL) or a file of this repository: none names a document the
 * repository lacks (docs/reference/..., the reference notes) or says how it was looked up.
 * Rows that are marks rather than sources (INF, GUESS), and quoted nvidia-smi lines and
 * third-party notes kept without one address each, need no URL but obey the rest. */
static void every_source_is_public(void **state)
{
	static const char *const outside[] = { "docs/reference", "doctor_anchors", "mem_anchors", "kb_notes",
						"bench_anchors", "style_anchors", "fatbin.md", "DESIGN.md",
						"shared/docs", "the project's reference" };
	static const char *const lookup[] = { "code search", "recalled", "re-fetched", "not reachable",
					      "verbatim public copy", "could not be called here", "build machine",
					      "the seed", "stub libcuda" };
	static const char *const dirs[] = { "docs/", "bench/", "kb/", "tests/", "tools/", "src/" };

	(void)state;
	assert_true(kb_source_count() > 50);
	for (size_t i = 0; i < kb_source_count(); i++) {
		const struct kb_source *s = kb_source_at(i);
		bool url = strstr(s->what, "https://") != NULL, file = false;
		bool mark = !strcmp(s->key, "INF") || !strcmp(s->key, "GUESS") || !strncmp(s->key, "SMI_", 4) ||
			    !strncmp(s->key, "THIRD_PARTY_", 12);

		for (size_t k = 0; k < sizeof(outside) / sizeof(outside[0]); k++)
			if (strstr(s->what, outside[k]))
				fail_msg("source %s names %s, which the repository does not contain", s->key, outside[k]);
		for (size_t k = 0; k < sizeof(lookup) / sizeof(lookup[0]); k++)
			if (strstr(s->what, lookup[k]))
				fail_msg("source %s says how it was looked up (\"%s\")", s->key, lookup[k]);
		/* every repository path it names exists */
		for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++)
			for (const char *p = s->what; (p = strstr(p, dirs[d])) != NULL; p++) {
				size_t n = strcspn(p, " `,;)'\"");

				if (p > s->what && (p[-1] == '/' || isalnum((unsigned char)p[-1])))
					continue; /* inside a URL or a longer path */
				while (n && (p[n - 1] == '.' || p[n - 1] == ':'))
					n--;
				if (!repo_file_exists(p, n))
					fail_msg("source %s names %.*s, which is not in the repository", s->key, (int)n, p);
				file = true;
			}
		if (!url && !file && !mark)
			fail_msg("source %s has neither a URL nor a file of this repository: %s", s->key, s->what);
	}
}

/* Whether a source list names a public page: a URL, or a key whose explanation has one. */
static bool cites_public_page(const char *list)
{
	const char *p = list;

	while (*p) {
		char key[160];
		size_t k = strcspn(p, ";");
		const struct kb_source *s;

		if (k == 0 || k >= sizeof(key))
			return false;
		memcpy(key, p, k);
		key[k] = '\0';
		p += k + (p[k] == ';');
		if (strncmp(key, "https://", 8) == 0)
			return true;
		if ((s = kb_source_find(key)) != NULL && strstr(s->what, "https://"))
			return true;
	}
	return false;
}

/* A row with no public page (only quoted nvidia-smi lines, third-party notes kept without an
 * address, a run of our own) is marked: uncertain, or its notes say "unsourced". Counted. */
static size_t unsourced_row(const char *table, const char *row, const char *source, bool uncertain,
			    const char *notes)
{
	if (cites_public_page(source))
		return 0;
	if (!uncertain && !(notes && strstr(notes, "unsourced")))
		fail_msg("%s %s cites no public page (%s) and is neither uncertain nor says it is unsourced", table, row,
			 source);
	return 1;
}

static void rows_without_a_public_page_say_so(void **state)
{
	static const char *const cc_keys[] = { "NV_CC", "NV_LEGACY", "NV_LEGACY_OLD", "WIKI_GPU_LIST", "INF",
						"GCC_PATCH", "CURANDDX", "RTX_SPARK" };
	size_t marked = 0, rows = 0, inferred = 0;
	char err[CD_ERRMSG];

	(void)state;
	assert_int_equal(kb_fw_load(err), CD_OK);
	for (size_t i = 0; i < kb_gpu_count(); i++, rows++) {
		const struct kb_gpu *g = kb_gpu_at(i);
		bool cc = false;

		marked += unsourced_row("gpus.tsv", g->name, g->source, g->uncertain, g->notes);
		/* and the compute capability has a source of its own: a page that lists it, or the
		 * chip family's on NVIDIA's page (INF) */
		for (size_t k = 0; k < sizeof(cc_keys) / sizeof(cc_keys[0]) && !cc; k++) {
			const char *at = strstr(g->source, cc_keys[k]);
			size_t n = strlen(cc_keys[k]);

			cc = at && (at == g->source || at[-1] == ';') && (at[n] == '\0' || at[n] == ';');
		}
		if (!cc)
			fail_msg("gpus.tsv %s: no source for its compute capability (%s)", g->name, g->source);
		inferred += strstr(g->source, "INF") != NULL;
	}
	assert_non_null(strstr(kb_source_find("INF")->what, "https://"));
	for (size_t i = 0; i < kb_toolkit_count(); i++, rows++)
		marked += unsourced_row("toolkits.tsv", kb_toolkit_at(i)->release_text, kb_toolkit_at(i)->source,
					kb_toolkit_at(i)->uncertain, kb_toolkit_at(i)->notes);
	for (size_t i = 0; i < kb_driver_count(); i++, rows++)
		marked += unsourced_row("drivers.tsv", kb_driver_at(i)->first_version_text, kb_driver_at(i)->source,
					kb_driver_at(i)->uncertain, kb_driver_at(i)->notes);
	for (size_t i = 0; i < kb_ptx_isa_count(); i++, rows++)
		marked += unsourced_row("ptx_isa.tsv", "row", kb_ptx_isa_at(i)->source,
					kb_ptx_isa_at(i)->uncertain, kb_ptx_isa_at(i)->notes);
	for (size_t i = 0; i < kb_family_count(); i++, rows++)
		marked += unsourced_row("arch_families.tsv", "row", kb_family_at(i)->source, kb_family_at(i)->uncertain,
					kb_family_at(i)->notes);
	for (size_t i = 0; i < kb_arch_count(); i++, rows++)
		marked += unsourced_row("archs.tsv", "row", kb_arch_at(i)->source, kb_arch_at(i)->uncertain,
					kb_arch_at(i)->notes);
	for (size_t i = 0; i < kb_torch_count(); i++, rows++)
		marked += unsourced_row("torch.tsv", kb_torch_at(i)->release, kb_torch_at(i)->source,
					kb_torch_at(i)->uncertain, kb_torch_at(i)->notes);
	for (size_t i = 0; i < kb_fw_count(); i++, rows++)
		marked += unsourced_row("frameworks.tsv", kb_fw_at(i)->framework, kb_fw_at(i)->source,
					kb_fw_at(i)->uncertain, kb_fw_at(i)->notes);
	print_message("%zu kb rows, %zu without a public page (each marked); %zu GPUs' CC inferred from the chip\n",
		      rows, marked, inferred);
	assert_true(rows > 300);
}

/* Every finding an error code or a message maps to has its explanation. */
static void every_finding_is_explained(void **state)
{
	static const char *const oom[] = { "oom-capacity", "oom-other-process", "oom-fragmentation",
					   "arch-dropped-by-toolkit", "cuda-error" };

	(void)state;
	for (size_t i = 0; i < kb_error_count(); i++) {
		const char *f = kb_error_at(i)->finding;

		if (f && !kb_finding_find(f))
			fail_msg("%s maps to %s, which findings.tsv lacks", kb_error_at(i)->name, f);
	}
	for (size_t i = 0; i < kb_message_count(); i++)
		if (!kb_finding_find(kb_message_at(i)->finding))
			fail_msg("message %s maps to %s, which findings.tsv lacks", kb_message_at(i)->key,
				 kb_message_at(i)->finding);
	for (size_t i = 0; i < sizeof(oom) / sizeof(oom[0]); i++)
		assert_non_null(kb_finding_find(oom[i]));
	assert_true(kb_finding_find("no-kernel-image")->n_fix >= 2);
	assert_non_null(kb_xid_find(79));
	assert_string_equal(kb_xid_find(79)->kind, "hardware");
	assert_null(kb_xid_find(9999));
}

/* ---- malformed tables are refused with file:line ---- */

static int load_with(const char *name, const char *text, char *err)
{
	struct kb_blob blobs[32];
	size_t n = 0;

	for (size_t i = 0; i < kb_blob_count && n < 32; i++) {
		blobs[n] = kb_blobs[i];
		if (strcmp(blobs[n].name, name) == 0) {
			blobs[n].data = (const unsigned char *)text;
			blobs[n].size = strlen(text);
		}
		n++;
	}
	return kb_load_blobs(blobs, n, err);
}

static void malformed_tables_are_refused(void **state)
{
	char err[CD_ERRMSG];
	static const char hdr[] = "family\tmembers\tfirst_toolkit\tuncertain\tnotes\tsource\n";
	char text[512];

	(void)state;
	snprintf(text, sizeof(text), "%s100f\t100 103\t12.9\tmaybe\t\tX\n", hdr);
	assert_int_equal(load_with("arch_families.tsv", text, err), CD_EFORMAT);
	assert_non_null(strstr(err, "arch_families.tsv:2: column uncertain"));
	snprintf(text, sizeof(text), "%s100f\t100 103\t12.9\n", hdr);
	assert_int_equal(load_with("arch_families.tsv", text, err), CD_EFORMAT);
	assert_non_null(strstr(err, "arch_families.tsv:2: 3 fields, expected 6"));
	snprintf(text, sizeof(text), "%s100f\t100 1o3\t12.9\tno\t\tX\n", hdr);
	assert_int_equal(load_with("arch_families.tsv", text, err), CD_EFORMAT);
	assert_non_null(strstr(err, "column members"));
	assert_int_equal(load_with("arch_families.tsv", "family\tmembers\n", err), CD_EFORMAT);
	assert_int_equal(load_with("drivers.tsv",
				   "branch\tfirst_version\tcuda\tversions_seen\tcan_run\tnotes\tuncertain\tsource\n"
				   "580\t575.1\t13.0\t\tx\t\tno\tS\n", err), CD_EFORMAT);
	assert_non_null(strstr(err, "not of this branch"));
	/* nothing is half-loaded after a failure */
	assert_int_equal(kb_gpu_count(), 0);
	/* and the real tables load again */
	assert_int_equal(kb_load_blobs(kb_blobs, kb_blob_count, err), CD_OK);
	assert_int_equal(kb_gpu_count(), 291);
}

/* ---- cudoctor kb ---- */

static struct run_result kb_cli(const char *a, const char *b, const char *c)
{
	const char *argv[] = { CUDOCTOR_BINARY, "kb", a, b, c, NULL };
	struct run_result r;

	assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
	return r;
}

static void command_line(void **state)
{
	struct run_result r;

	(void)state;
	r = kb_cli("toolkit", "13.0", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "580.65.06 (GA)"));
	assert_non_null(strstr(r.out, "NVCC_130_LIST: "));
	assert_non_null(strstr(r.out, "removed by this release"));
	run_result_free(&r);
	r = kb_cli("driver", "572.61", NULL);
	assert_non_null(strstr(r.out, "R570"));
	assert_non_null(strstr(r.out, "12.8"));
	run_result_free(&r);
	r = kb_cli("error", "222", NULL);
	assert_non_null(strstr(r.out, "cudaErrorUnsupportedPtxVersion = 222"));
	assert_non_null(strstr(r.out, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222"));
	run_result_free(&r);
	/* an empty name is in every string: a usage error, not the whole catalogue */
	r = kb_cli("error", "", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "give an error code or name"));
	run_result_free(&r);
	r = kb_cli("gpu", "Jetson", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "(uncertain)")); /* Jetson device names are guesses */
	run_result_free(&r);
	{
		const char *argv[] = { CUDOCTOR_BINARY, "--json", "kb", "gpu", "RTX 4060 Ti", NULL };

		assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
		assert_non_null(strstr(r.out, "\"compute_capability\": \"8.9\""));
		assert_non_null(strstr(r.out, "\"min_toolkit\": \"11.8\""));
		assert_non_null(strstr(r.out, "\"max_toolkit\": null"));
		run_result_free(&r);
	}
	r = kb_cli("gpu", "Radeon", NULL);
	assert_int_equal(r.status, 2);
	run_result_free(&r);
	r = kb_cli("toolkit", "12.7", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "never released"));
	run_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_table_loads),
		cmocka_unit_test(every_gpu_cc_is_buildable_and_named_consistently),
		cmocka_unit_test(every_toolkit_arch_is_described),
		cmocka_unit_test(arch_ranges_match_toolkit_lists),
		cmocka_unit_test(removed_archs_were_accepted_before),
		cmocka_unit_test(driver_minimums_are_monotonic_and_consistent),
		cmocka_unit_test(driver_lookups),
		cmocka_unit_test(ptx_lookups),
		cmocka_unit_test(families),
		cmocka_unit_test(arch_parse_and_format),
		cmocka_unit_test(arch_order_is_natural),
		cmocka_unit_test(gpu_specs),
		cmocka_unit_test(every_gpu_name_and_alias_resolves),
		cmocka_unit_test(gpu_memory),
		cmocka_unit_test(toolkit_lookups),
		cmocka_unit_test(nvcc_arch_list_matches_table),
		cmocka_unit_test(catalogue_covers_runtime_header),
		cmocka_unit_test(catalogue_covers_driver_header),
		cmocka_unit_test(error_lookups),
		cmocka_unit_test(every_source_is_explained),
		cmocka_unit_test(every_source_is_public),
		cmocka_unit_test(rows_without_a_public_page_say_so),
		cmocka_unit_test(every_finding_is_explained),
		cmocka_unit_test(command_line),
		cmocka_unit_test(malformed_tables_are_refused),
	};
	return cmocka_run_group_tests(tests, load, NULL);
}
