/* doctor and devices on the same fake driver say the same driver and GPU facts, with the
 * same keys and values (both write them from one field table), in text under the same labels,
 * and the fleet's reader takes the same facts from either report; with NVML missing too,
 * where the version comes from the libcuda file name. Reports of 0.1.0 (tests/compat/, old
 * spelling) read as today's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "probe_tree.h"
#include "report/json_compat.h"
#include "testlib.h"
#include "util/err.h"
#include "util/file.h"

#define LIBCUDA "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define LIBNVML "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"
/* what tests/compat/README.md says the stored 0.1.0 reports were made with */
#define TWO_H200 "FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA H200:9.0:141GiB"
#define MIG_ON_1 "FAKE_NVML_MIG_DEVICES=1:1g.18gb:18GiB;1:3g.71gb:71GiB"
#define PERSIST_1 "FAKE_NVML_PERSISTENCE=1:1"

static const char *const agree_facts[] = { "driver", "CUDA (driver)", "GPUs", "MIG", "persistence", "ECC" };
static const enum fleet_fact agree_ids[] = { FF_DRIVER, FF_CUDA, FF_GPUS, FF_MIG, FF_PERSISTENCE, FF_ECC };
#define N_AGREE (sizeof agree_ids / sizeof agree_ids[0])

/* cudoctor ARGS with the given driver libraries and settings; the run's output */
static struct run_result run(const char *const args[], const char *cuda, const char *nvml, const char *const extra[])
{
	const char *argv[12] = { CUDOCTOR_BINARY };
	const char *env[16] = { cuda, nvml, "CUDA_VISIBLE_DEVICES=", "FAKE_GPUS=", "CUDOCTOR_NODE=agree",
				"SOURCE_DATE_EPOCH=1750000000" };
	size_t a = 1, e = 6;
	struct run_result r;

	for (; *args && a + 1 < 12; args++)
		argv[a++] = *args;
	argv[a] = NULL;
	for (; extra && *extra && e + 1 < 16; extra++)
		env[e++] = *extra;
	env[e] = NULL;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	return r;
}

static json_t *run_json(const char *command, const char *cuda, const char *nvml, const char *const extra[],
			char **text)
{
	const char *args[] = { "--json", command, NULL };
	struct run_result r = run(args, cuda, nvml, extra);
	json_error_t je;
	json_t *j = json_loads(r.out, 0, &je);

	if (!j)
		fail_msg("cudoctor --json %s: not JSON (%s): %.300s", command, je.text, r.out);
	if (text)
		*text = r.out, r.out = NULL;
	run_result_free(&r);
	return j;
}

static char *run_text(const char *command, const char *cuda, const char *nvml, const char *const extra[])
{
	const char *args[] = { "--color=never", command, NULL };
	struct run_result r = run(args, cuda, nvml, extra);
	char *out = r.out;

	r.out = NULL;
	run_result_free(&r);
	return out;
}

/* The fleet's facts of one report. */
static void fleet_facts(const char *json, size_t len, char *facts[N_AGREE])
{
	struct fleet f;
	char err[CD_ERRMSG];

	fleet_init(&f);
	if (fleet_read_report(&f, (const unsigned char *)json, len, "agree", err) != CD_OK)
		fail_msg("the fleet does not read it: %s", err);
	assert_int_equal(f.n_nodes, 1);
	for (size_t i = 0; i < N_AGREE; i++)
		facts[i] = f.nodes[0].facts[agree_ids[i]] ? strdup(f.nodes[0].facts[agree_ids[i]]) : NULL;
	fleet_free(&f);
}

/* a and b name each fact alike (both unknown counts as alike); a fact in skip may be
 * missing from a (an old report that did not carry it). */
static void facts_equal(char *a[N_AGREE], char *b[N_AGREE], const char *what, enum fleet_fact skip)
{
	for (size_t i = 0; i < N_AGREE; i++) {
		bool same = (!a[i] && !b[i]) || (a[i] && b[i] && strcmp(a[i], b[i]) == 0);
		if (!same && !(agree_ids[i] == skip && !a[i]))
			fail_msg("%s: the fleet reads %s as '%s' and '%s'", what, agree_facts[i], a[i] ? a[i] : "(none)",
				 b[i] ? b[i] : "(none)");
		free(a[i]);
		free(b[i]);
	}
}

/* Every key of a in b with the same value (a's keys are b's: the same table writes both). */
static void same_object(const json_t *a, const json_t *b, const char *path)
{
	const char *key;
	json_t *v;

	if (json_object_size(a) != json_object_size(b))
		fail_msg("%s: %zu keys in doctor, %zu in devices", path, json_object_size(a), json_object_size(b));
	json_object_foreach((json_t *)a, key, v) {
		const json_t *w = json_object_get(b, key);
		if (!w) {
			fail_msg("%s.%s: only doctor has it", path, key);
		} else if (!json_equal(v, (json_t *)w)) {
			char *x = json_dumps(v, JSON_ENCODE_ANY), *y = json_dumps(w, JSON_ENCODE_ANY);
			fail_msg("%s.%s: doctor says %s, devices %s", path, key, x, y);
		}
	}
}

/* Each "  LABEL  VALUE" line of doctor's Driver section is in devices' text too. */
static void same_driver_lines(const char *doctor, const char *devices)
{
	const char *s = strstr(doctor, "\nDriver\n"), *e;
	size_t lines = 0;

	assert_non_null(s);
	s += 8;
	e = strstr(s, "\n\n");
	for (const char *l = s; l && l < e; l = strchr(l, '\n'), l = l && l < e ? l + 1 : NULL) {
		char label[64], value[512], want[600];
		const char *p = l + strspn(l, " "), *gap = strstr(p, "  ");
		size_t n;

		if (!gap || gap > strchr(p, '\n') || l[0] != ' ' || l[1] != ' ' || l[2] == ' ')
			continue; /* a continuation line */
		n = (size_t)(gap - p);
		snprintf(label, sizeof label, "%.*s", (int)n, p);
		gap += strspn(gap, " ");
		snprintf(value, sizeof value, "%.*s", (int)strcspn(gap, "\n"), gap);
		snprintf(want, sizeof want, "  %s ", label);
		const char *d = strstr(devices, want);
		if (!d)
			fail_msg("devices' text has no '%s' line", label);
		d += strlen(want);
		d += strspn(d, " ");
		if (strncmp(d, value, strlen(value)) != 0)
			fail_msg("'%s' is '%s' in doctor, '%.*s' in devices", label, value, (int)strcspn(d, "\n"), d);
		lines++;
	}
	assert_true(lines >= 5);
}

static void agree(const char *cuda, const char *nvml, const char *const extra[], const char *version,
		  const char *source)
{
	char *doctor_json, *devices_json, *a[N_AGREE], *b[N_AGREE];
	json_t *doc = run_json("doctor", cuda, nvml, extra, &doctor_json);
	json_t *dev = run_json("devices", cuda, nvml, extra, &devices_json);
	const json_t *dg = json_object_get(doc, "gpus"), *vg = json_object_get(dev, "gpus");
	char *doctor_text = run_text("doctor", cuda, nvml, extra), *devices_text = run_text("devices", cuda, nvml, extra);

	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "driver"), "version")), version);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "driver"), "version_source")), source);
	same_object(json_object_get(doc, "driver"), json_object_get(dev, "driver"), "driver");
	same_object(json_object_get(json_object_get(doc, "driver"), "nvml"),
		    json_object_get(json_object_get(dev, "driver"), "nvml"), "driver.nvml");
	assert_true(json_array_size(dg) > 0);
	assert_int_equal(json_array_size(dg), json_array_size(vg));
	for (size_t i = 0; i < json_array_size(dg); i++)
		same_object(json_array_get(dg, i), json_array_get(vg, i), "gpus[]");
	same_driver_lines(doctor_text, devices_text);

	fleet_facts(doctor_json, strlen(doctor_json), a);
	fleet_facts(devices_json, strlen(devices_json), b);
	assert_string_equal(a[0], version);
	assert_non_null(a[1]);
	assert_non_null(a[2]);
	facts_equal(a, b, "doctor and devices", FF_COUNT);
	json_decref(doc);
	json_decref(dev);
	free(doctor_json);
	free(devices_json);
	free(doctor_text);
	free(devices_text);
}

static void test_with_nvml(void **state)
{
	const char *const extra[] = { TWO_H200, MIG_ON_1, PERSIST_1, "FAKE_NVML_PROCS=0:1234:2GiB", NULL };

	(void)state;
	agree(LIBCUDA, LIBNVML, extra, "580.159.04", "NVML");
}

/* Without NVML a libcuda.so.VERSION names the driver: both commands say it (a command that
 * asked NVML alone would say null), and the fleet reads it from either. */
static void test_without_nvml(void **state)
{
	char root[64], lib[128], cuda[160];
	const char *cp[] = { "/bin/cp", CUDOCTOR_FAKES_DIR "/libcuda.so.1", lib, NULL };
	const char *const extra[] = { TWO_H200, NULL };
	const char *quiet[] = { "-q", "devices", NULL };
	struct run_result r;

	(void)state;
	assert_non_null(tree_new(root, sizeof root));
	snprintf(lib, sizeof lib, "%s/libcuda.so.580.159.04", root);
	assert_int_equal(testlib_run(cp, NULL, NULL, &r), 0);
	assert_int_equal(r.status, 0);
	run_result_free(&r);
	snprintf(cuda, sizeof cuda, "CUDOCTOR_LIBCUDA=%s", lib);
	agree(cuda, "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1", extra, "580.159.04", "libcuda file name");
	r = run(quiet, cuda, "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1", extra);
	assert_non_null(strstr(r.out, "GPU 0 (NVIDIA H200): sm_90, 141 GiB, driver 580.159.04\n"));
	run_result_free(&r);
	/* arch's own cheap probe resolves it the same way */
	const char *arch[] = { "--json", "arch", CUDOCTOR_BINARY, NULL };
	const char *const arch_env[] = { TWO_H200, "CUDOCTOR_HOST_ROOT=/nonexistent", NULL };
	r = run(arch, cuda, "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1", arch_env);
	json_t *j = json_loads(r.out, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "driver"), "version")), "580.159.04");
	json_decref(j);
	run_result_free(&r);
	tree_remove(root);
}

static char *read_file(const char *path, size_t *len)
{
	char *text = NULL, err[CD_ERRMSG];

	if (file_read_text(path, 1 << 20, &text, len, err) != CD_OK)
		fail_msg("%s: %s", path, err);
	return text;
}

/* A 0.1.0 report in the old spelling: the fleet reads the facts a report of today gives
 * on the same fake driver, and the upgrade puts each old key where today's report has it. */
static void test_old_reports(void **state)
{
	const char *const commands[] = { "doctor", "devices" };
	const char *const extra[] = { TWO_H200, MIG_ON_1, PERSIST_1, NULL };

	(void)state;
	for (size_t c = 0; c < 2; c++) {
		char path[512], *old_a[N_AGREE], *new_a[N_AGREE], *now;
		size_t len;
		json_t *old, *cur = run_json(commands[c], LIBCUDA, LIBNVML, extra, &now);
		char *text;

		snprintf(path, sizeof path, CUDOCTOR_SOURCE_DIR "/tests/compat/%s-0.1.0.json", commands[c]);
		text = read_file(path, &len);
		fleet_facts(text, len, old_a);
		fleet_facts(now, strlen(now), new_a);
		/* 0.1.0's doctor did not report the ECC mode */
		facts_equal(old_a, new_a, commands[c], c == 0 ? FF_ECC : FF_COUNT);
		assert_non_null(old = json_loads(text, 0, NULL));
		assert_int_equal(report_json_upgrade(old), CD_OK);
		for (size_t i = 0; i < n_json_renames; i++) {
			const struct json_rename *rn = &json_renames[i];
			const char *to = rn->to;
			const json_t *o = old, *n = cur;
			char part[64];

			if (strcmp(rn->command, commands[c]) != 0)
				continue;
			if (strncmp(to, "gpus[].", 7) == 0) {
				o = json_array_get(json_object_get(old, "gpus"), 1);
				n = json_array_get(json_object_get(cur, "gpus"), 1);
				to += 7;
			}
			while (strchr(to, '.')) {
				snprintf(part, sizeof part, "%.*s", (int)strcspn(to, "."), to);
				o = json_object_get(o, part);
				n = json_object_get(n, part);
				to += strlen(part) + 1;
			}
			if (!json_object_get(o, to) || !json_object_get(n, to))
				fail_msg("%s: %s is not at %s after the upgrade, or not in today's report", commands[c],
					 rn->from, rn->to);
		}
		/* nothing of the old spelling is left */
		assert_null(json_object_get(old, "libcuda"));
		assert_null(json_object_get(old, "nvml"));
		assert_null(json_object_get(old, "driver_version"));
		json_decref(old);
		json_decref(cur);
		free(text);
		free(now);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_with_nvml),
		cmocka_unit_test(test_without_nvml),
		cmocka_unit_test(test_old_reports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
