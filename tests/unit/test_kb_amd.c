/* The AMD tables (kb/amd_targets.tsv, amd_gpus.tsv, rocm_builds.tsv): they load, cite sources
 * kb/sources.tsv explains, agree with each other and with AMDGPUUsage's generic-processor
 * table, name GPUs as people do ("RX 7900 XTX", "7900 XTX", 780M), and a malformed row is
 * refused naming file, line and column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "kb/amd.h"
#include "kb/amd_driver.h"
#include "kb/kb.h"
#include "util/err.h"

static void check_sources(const char *list, const char *where)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *key = strtok(buf, ";"); key; key = strtok(NULL, ";"))
		if (strncmp(key, "https://", 8) != 0 && strncmp(key, "tests/", 6) != 0 && !kb_source_find(key))
			fail_msg("%s cites %s, which kb/sources.tsv does not explain", where, key);
}

static void tables_load_and_cite(void **state)
{
	(void)state;
	char err[CD_ERRMSG] = "";
	assert_int_equal(kb_amd_load(err), CD_OK);
	assert_true(kb_amd_target_count() > 30);
	assert_true(kb_amd_gpu_count() > 40);
	assert_true(kb_rocm_build_count() >= 8);
	for (size_t i = 0; i < kb_amd_target_count(); i++)
		check_sources(kb_amd_target_at(i)->source, kb_amd_target_at(i)->processor);
	for (size_t i = 0; i < kb_amd_gpu_count(); i++)
		check_sources(kb_amd_gpu_at(i)->source, kb_amd_gpu_at(i)->name);
	for (size_t i = 0; i < kb_rocm_build_count(); i++)
		check_sources(kb_rocm_build_at(i)->source, kb_rocm_build_at(i)->variant);
}

/* AMDGPUUsage's generic processors and their members. */
static void generic_members(void **state)
{
	(void)state;
	static const struct {
		const char *generic, *members;
	} table[] = {
		{"gfx9-generic", "gfx900 gfx902 gfx904 gfx906 gfx909 gfx90c"},
		{"gfx9-4-generic", "gfx940 gfx941 gfx942 gfx950"},
		{"gfx10-1-generic", "gfx1010 gfx1011 gfx1012 gfx1013"},
		{"gfx10-3-generic", "gfx1030 gfx1031 gfx1032 gfx1033 gfx1034 gfx1035 gfx1036"},
		{"gfx11-generic", "gfx1100 gfx1101 gfx1102 gfx1103 gfx1150 gfx1151 gfx1152 gfx1153"},
		{"gfx12-generic", "gfx1200 gfx1201"},
	};
	for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
		size_t n = 0, want = 1;
		for (const char *p = table[k].members; *p; p++)
			want += *p == ' ';
		for (size_t i = 0; i < kb_amd_target_count(); i++) {
			const struct kb_amd_target *x = kb_amd_target_at(i);
			if (x->generic && strcmp(x->generic, table[k].generic) == 0) {
				n++;
				if (!strstr(table[k].members, x->processor))
					fail_msg("%s is not a member of %s", x->processor, table[k].generic);
			}
		}
		assert_int_equal(n, want);
		assert_true(kb_amd_is_generic(table[k].generic));
	}
	/* gfx908 and gfx90a are in no generic processor */
	assert_false(kb_amd_target_covers("gfx9-generic", "gfx90a"));
	assert_false(kb_amd_target_covers("gfx9-4-generic", "gfx908"));
	assert_true(kb_amd_target_covers("gfx11-generic", "gfx1103"));
	assert_true(kb_amd_target_covers("gfx1100", "gfx1100"));
	assert_false(kb_amd_target_covers("gfx1100", "gfx1101"));
}

static void names(void **state)
{
	(void)state;
	static const struct {
		const char *spec, *gfx;
	} cases[] = {
		{"AMD Radeon RX 7900 XTX", "gfx1100"}, {"RX 7900 XTX", "gfx1100"}, {"7900 XTX", "gfx1100"},
		{"radeon rx 7900 xtx", "gfx1100"},     {"7900 XT", "gfx1100"},     {"780M", "gfx1103"},
		{"Radeon 780M", "gfx1103"},            {"MI300X", "gfx942"},       {"RX 9070 XT", "gfx1201"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct kb_amd_gpu *g = kb_amd_gpu_find(cases[i].spec);
		if (!g)
			fail_msg("%s: no GPU", cases[i].spec);
		assert_string_equal(g->gfx, cases[i].gfx);
	}
	assert_string_equal(kb_amd_gpu_find("7900 XT")->name, "AMD Radeon RX 7900 XT"); /* not the XTX */
	assert_null(kb_amd_gpu_find("RTX 4090"));
	assert_null(kb_amd_gpu_find(""));
	/* every GPU's processor is a row of amd_targets.tsv (the loader checks it too) */
	for (size_t i = 0; i < kb_amd_gpu_count(); i++)
		assert_non_null(kb_amd_target_find(kb_amd_gpu_at(i)->gfx));
}

static void malformed_rows_refused(void **state)
{
	(void)state;
	static const struct {
		int table;
		const char *text, *why;
	} bad[] = {
		{0, "processor\tgeneric\tfeatures\tsramecc_default\tuncertain\tsource\tnotes\nGFX90A\t-\t-\t-\tno\tX\t\n",
		 "amd_targets.tsv:2: column processor"},
		{0, "processor\tgeneric\tfeatures\tsramecc_default\tuncertain\tsource\tnotes\ngfx1100\tgfx11\t-\t-\tno\tX\t\n",
		 "amd_targets.tsv:2: column generic"},
		{0, "processor\tgeneric\tfeatures\tsramecc_default\tuncertain\tsource\tnotes\ngfx1100\t-\t-\ton\tno\tX\t\n",
		 "amd_targets.tsv:2: column sramecc_default"},
		{1, "name\taliases\tgfx\tvram_gb\tsegment\trocm\tuncertain\tsource\tnotes\nAMD X\tX\tgfx7777\t8\tRadeon\t-\tno\tX\t\n",
		 "amd_gpus.tsv:2: column gfx"},
		{1, "name\taliases\tgfx\tvram_gb\tsegment\trocm\tuncertain\tsource\tnotes\nAMD X\tX\tgfx1100\t8\tRadeon\t6.4-6.0\tno\tX\t\n",
		 "amd_gpus.tsv:2: column rocm"},
		{2, "framework\trelease\tvariant\trocm\ttargets\tinstall\tuncertain\tsource\tnotes\ntorch\t2.8.0\trocm6.4\t6.4\tgfx7777\tpip\tno\tX\t\n",
		 "rocm_builds.tsv:2: column targets"},
	};
	static const char *const names3[3] = {"amd_targets.tsv", "amd_gpus.tsv", "rocm_builds.tsv"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct kb_blob blobs[3];
		char err[CD_ERRMSG] = "";
		for (int k = 0; k < 3; k++)
			blobs[k] = *kb_blob_find(names3[k]);
		blobs[bad[i].table].data = (const unsigned char *)bad[i].text;
		blobs[bad[i].table].size = strlen(bad[i].text);
		assert_int_equal(kb_amd_load_blobs(blobs, 3, err), CD_EFORMAT);
		if (!strstr(err, bad[i].why))
			fail_msg("case %zu: '%s' does not say '%s'", i, err, bad[i].why);
		assert_int_equal(kb_amd_gpu_count(), 0); /* nothing half-loaded */
	}
	char err[CD_ERRMSG];
	assert_int_equal(kb_amd_load_blobs(kb_blobs, kb_blob_count, err), CD_OK);
}

/* kb/amdgpu_drivers.tsv: AMD's matrix rows as the support-matrix page prints them, each citing it
 * (and its module version's amdgpu-dkms package), and the module versions AMD's DKMS packages
 * write found to their driver line. */
static void driver_window_rows(void **state)
{
	(void)state;
	char err[CD_ERRMSG] = "";
	const struct kb_amdgpu_driver *d;

	assert_int_equal(kb_amdgpu_load(err), CD_OK);
	assert_true(kb_amdgpu_driver_count() >= 15);
	for (size_t i = 0; i < kb_amdgpu_driver_count(); i++) {
		d = kb_amdgpu_driver_at(i);
		check_sources(d->source, d->driver);
		if (!strstr(d->source, "AMDGPU_MATRIX"))
			fail_msg("driver %s does not cite AMD's support matrix", d->driver);
		if (d->module && !strstr(d->source, "https://repo.radeon.com/amdgpu/"))
			fail_msg("driver %s names module %s without the package it comes from", d->driver, d->module);
	}
	/* rows of https://instinct.docs.amd.com/projects/amdgpu-docs/en/latest/compatibility/compatibility-matrix.html */
	assert_non_null(d = kb_amdgpu_driver_of_module("6.16.13"));
	assert_string_equal(d->driver, "30.30");
	assert_string_equal(d->rocm_text, "6.3 6.4 7.0 7.1 7.2 7.14 10.0");
	assert_true(kb_amdgpu_supports(d, "7.14.0"));
	assert_true(kb_amdgpu_supports(d, "10.0.0-12"));
	assert_false(kb_amdgpu_supports(d, "6.2.4"));
	assert_true(kb_amdgpu_supports(d, "7.1.1"));
	assert_false(kb_amdgpu_supports(d, "7.15.0"));
	assert_non_null(d = kb_amdgpu_driver_of_module("6.12.12"));
	assert_string_equal(d->driver, "6.4");
	assert_true(kb_amdgpu_supports(d, "6.1.2"));
	assert_true(kb_amdgpu_supports(d, "7.2.0-43"));
	assert_false(kb_amdgpu_supports(d, "7.14.0"));
	assert_false(kb_amdgpu_supports(d, "6.0.2"));
	assert_false(kb_amdgpu_supports(d, "6.12")); /* 6.1 is not 6.12 */
	assert_non_null(d = kb_amdgpu_driver_of_module("6.10.5"));
	assert_string_equal(d->driver, "6.3");
	assert_false(kb_amdgpu_supports(d, "7.2.0"));
	/* a version with a fourth part still names its line; one that is only a prefix does not */
	assert_non_null(kb_amdgpu_driver_of_module("6.8.5.60200"));
	assert_null(kb_amdgpu_driver_of_module("6.8.50"));
	assert_null(kb_amdgpu_driver_of_module("6.8"));
	assert_null(kb_amdgpu_driver_of_module(""));
	/* a malformed table is refused naming file, line and column */
	static const char *const bad[] = {
		"driver\tmodule\trocm\tuncertain\tsource\tnotes\n30\t-\t7.0\tno\tX\t\n",
		"driver\tmodule\trocm\tuncertain\tsource\tnotes\n30.30\t6.16\t7.0\tno\tX\t\n",
		"driver\tmodule\trocm\tuncertain\tsource\tnotes\n30.30\t-\t7\tno\tX\t\n",
		"driver\tmodule\trocm\tuncertain\tsource\tnotes\n30.30\t-\t\tno\tX\t\n",
		"driver\tmodule\trocm\tuncertain\tsource\tnotes\n30.30\t-\t7.0\tno\t\t\n",
		"driver\tmodule\trocm\tuncertain\tsource\tnotes\n30.30\t-\t7.0\tno\tX\t\n30.30\t-\t7.0\tno\tX\t\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct kb_blob b = {"amdgpu_drivers.tsv", (const unsigned char *)bad[i], strlen(bad[i])};
		const char *at = i + 1 == sizeof bad / sizeof bad[0] ? "amdgpu_drivers.tsv:3" : "amdgpu_drivers.tsv:2";
		if (kb_amdgpu_load_blob(&b, err) != CD_EFORMAT || !strstr(err, at))
			fail_msg("table %zu not refused as it should be: %s", i, err);
	}
	assert_int_equal(kb_amdgpu_load_blob(kb_blob_find("amdgpu_drivers.tsv"), err), CD_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tables_load_and_cite), cmocka_unit_test(generic_members), cmocka_unit_test(names),
		cmocka_unit_test(malformed_rows_refused), cmocka_unit_test(driver_window_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
