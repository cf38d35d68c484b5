/* Reports to share: the header (version, OS, kernel, glibc, CPU, date, host, node) in JSON,
 * text and Markdown, --anonymize, and Markdown that survives being pasted into an issue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gnu/libc-version.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "probe_tree.h"
#include "testlib.h"

#define LIBCUDA "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define LIBNVML "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"
#define FAKE_UUID "GPU-0bacaf01-bdea-739f-7cf7-2d72701204ec" /* tests/fakes/fake_nvml.c's GPU 0 */

/* Ubuntu 24.04's /etc/os-release, in the format of os-release(5):
 * https://www.freedesktop.org/software/systemd/man/latest/os-release.html */
static const char os_release[] =
	"PRETTY_NAME=\"Ubuntu 24.04.2 LTS\"\n"
	"NAME=\"Ubuntu\"\n"
	"VERSION_ID=\"24.04\"\n"
	"VERSION=\"24.04.2 LTS (Noble Numbat)\"\n"
	"VERSION_CODENAME=noble\n"
	"ID=ubuntu\n"
	"ID_LIKE=debian\n"
	"HOME_URL=\"https://www.ubuntu.com/\"\n";

/* The first lines of an x86 /proc/cpuinfo, as arch/x86/kernel/cpu/proc.c prints them:
 * https://github.com/torvalds/linux/blob/master/arch/x86/kernel/cpu/proc.c */
static const char cpuinfo[] =
	"processor\t: 0\n"
	"vendor_id\t: GenuineIntel\n"
	"cpu family\t: 6\n"
	"model\t\t: 143\n"
	"model name\t: Intel(R) Xeon(R) Platinum 8480+\n"
	"stepping\t: 8\n";

static char root[64];

static int setup(void **state)
{
	(void)state;
	if (!tree_new(root, sizeof root) || tree_file(root, "etc/os-release", os_release, 0) ||
	    tree_file(root, "proc/cpuinfo", cpuinfo, 0) || tree_file(root, "home/alice/we|ird_*name*.so", "hi\n", 0))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tree_remove(root);
	return 0;
}

static struct run_result run(const char *const *argv, const char *node)
{
	char host_root[96], node_env[96];
	const char *env[] = { LIBCUDA, LIBNVML, host_root, node_env, "SOURCE_DATE_EPOCH=1700000000",
			      "CUDA_VISIBLE_DEVICES=", "FAKE_GPUS=", "COLUMNS=", NULL };
	struct run_result r;

	snprintf(host_root, sizeof host_root, "CUDOCTOR_HOST_ROOT=%s", root);
	snprintf(node_env, sizeof node_env, "CUDOCTOR_NODE=%s", node ? node : "");
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	return r;
}

static bool str_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

#define RUN(node, ...) run((const char *const[]){ CUDOCTOR_BINARY, __VA_ARGS__, NULL }, node)

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	if (!j)
		fail_msg("not JSON (%s): %.300s", e.text, text);
	return j;
}

static const char *hstr(json_t *j, const char *key)
{
	const char *v = json_string_value(json_object_get(json_object_get(j, "header"), key));

	if (!v)
		fail_msg("header.%s is missing", key);
	return v;
}

static void test_json_header(void **state)
{
	struct run_result a = RUN("rack7-node3", "devices", "--json");
	struct run_result b = RUN(NULL, "kb", "gpu", "H200", "--json");
	char host[256] = "", kernel[200];
	struct utsname u;
	json_t *j;

	(void)state;
	assert_int_equal(gethostname(host, sizeof host - 1), 0);
	assert_int_equal(uname(&u), 0);
	snprintf(kernel, sizeof kernel, "%s %s", u.sysname, u.release);
	assert_int_equal(a.status, 0);
	j = parse(a.out);
	assert_string_equal(hstr(j, "version"), json_string_value(json_object_get(j, "version")));
	assert_string_equal(hstr(j, "os"), "Ubuntu 24.04.2 LTS");
	assert_string_equal(hstr(j, "os_id"), "ubuntu");
	assert_string_equal(hstr(j, "os_version"), "24.04");
	assert_string_equal(hstr(j, "kernel"), kernel);
	assert_string_equal(hstr(j, "glibc"), gnu_get_libc_version());
	assert_string_equal(hstr(j, "cpu"), "Intel(R) Xeon(R) Platinum 8480+");
	assert_string_equal(hstr(j, "date"), "2023-11-14T22:13:20Z");
	assert_string_equal(hstr(j, "hostname"), host);
	assert_string_equal(hstr(j, "node"), "rack7-node3");
	assert_true(json_is_false(json_object_get(json_object_get(j, "header"), "anonymized")));
	json_decref(j);
	/* without $CUDOCTOR_NODE the node is the host name; every command carries the header */
	j = parse(b.out);
	assert_string_equal(hstr(j, "node"), host);
	json_decref(j);
	run_result_free(&a);
	run_result_free(&b);
}

static void test_text_header_is_one_paragraph(void **state)
{
	struct run_result a = RUN("n1", "devices");
	struct run_result q = RUN(NULL, "-q", "gencode", "--gpu", "sm_90", "--toolkit", "12.8");
	char *nl, *w;

	(void)state;
	assert_int_equal(a.status, 0);
	assert_true(strncmp(a.out, "cudoctor ", 9) == 0);
	nl = strstr(a.out, "\n\n");
	assert_non_null(nl); /* one paragraph, wrapped to the width, then the report */
	*nl = '\0';
	for (w = a.out; (w = strstr(w, "\n  "));) /* its continuation lines joined back */
		memmove(w, w + 2, strlen(w + 2) + 1), *w = ' ';
	assert_null(strchr(a.out, '\n'));
	assert_non_null(strstr(a.out, " (node n1): Ubuntu 24.04.2 LTS, kernel "));
	assert_non_null(strstr(a.out, ", glibc "));
	assert_non_null(strstr(a.out, ", Intel Xeon Platinum 8480+, 2023-11-14T22:13:20Z"));
	/* -q: the answer alone */
	assert_int_equal(q.status, 0);
	assert_string_equal(q.out, "-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90\n");
	run_result_free(&a);
	run_result_free(&q);
}

static void test_anonymize(void **state)
{
	char path[160], host[256] = "", tag[2][32];
	struct run_result plain, anon[2];
	json_t *j;

	(void)state;
	assert_int_equal(gethostname(host, sizeof host - 1), 0);
	snprintf(path, sizeof path, "%s/home/alice/we|ird_*name*.so", root);
	plain = RUN(NULL, "devices", "--json");
	assert_non_null(strstr(plain.out, FAKE_UUID));
	for (int k = 0; k < 2; k++) {
		anon[k] = RUN(NULL, "--anonymize", "devices", "--json");
		assert_int_equal(anon[k].status, 0);
		assert_null(strstr(anon[k].out, FAKE_UUID));
		assert_null(strstr(anon[k].out, "0bacaf01"));
		j = parse(anon[k].out);
		assert_true(json_is_true(json_object_get(json_object_get(j, "header"), "anonymized")));
		assert_string_not_equal(hstr(j, "hostname"), host);
		assert_true(strncmp(hstr(j, "node"), "anon-", 5) == 0);
		snprintf(tag[k], sizeof tag[k], "%s", hstr(j, "node"));
		json_decref(j);
	}
	assert_string_equal(tag[0], tag[1]); /* stable: two reports of one machine line up */
	run_result_free(&plain);
	run_result_free(&anon[1]);
	/* the text report has no UUID either */
	run_result_free(&anon[0]);
	anon[0] = RUN(NULL, "--anonymize", "devices");
	assert_null(strstr(anon[0].out, FAKE_UUID));
	assert_non_null(strstr(anon[0].out, "GPU-anon-"));
	run_result_free(&anon[0]);
	/* user names in paths */
	anon[0] = RUN(NULL, "--anonymize", "arch", path, "--gpu", "sm_90", "--json");
	assert_int_equal(anon[0].status, 3); /* not a binary: an input error, still reported */
	assert_null(strstr(anon[0].out, "alice"));
	assert_non_null(strstr(anon[0].out, "/home/USER/we|ird_*name*.so"));
	run_result_free(&anon[0]);
}

static void test_markdown_for_an_issue(void **state)
{
	char path[160];
	struct run_result a, g, k;

	(void)state;
	snprintf(path, sizeof path, "%s/home/alice/we|ird_*name*.so", root);
	a = RUN(NULL, "--markdown", "arch", path, "--gpu", "sm_90");
	/* the summary line comes first, then the header as a table */
	assert_true(str_starts(a.out, "## cudoctor arch\n\n**Summary:** "));
	assert_non_null(strstr(a.out, "| cudoctor | host | node | OS | kernel | glibc | CPU | date (UTC) |"));
	assert_non_null(strstr(a.out, "| Ubuntu 24.04.2 LTS |"));
	/* the path reads as written: no table cell split, no emphasis */
	assert_non_null(strstr(a.out, "home/alice/we\\|ird\\_\\*name\\*.so"));
	assert_null(strstr(a.out, "we|ird"));
	/* flags and command lines are code */
	g = RUN(NULL, "--markdown", "gencode", "--gpu", "sm_90", "--toolkit", "12.8");
	assert_non_null(strstr(g.out, "**Summary:** no findings; "
				      "`-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90`"));
	assert_non_null(strstr(g.out, "- **cmake:** `-DCMAKE_CUDA_ARCHITECTURES=\"90\"`"));
	assert_non_null(strstr(g.out, "(`--toolkit`)"));
	assert_non_null(strstr(g.out, "sm_90")); /* an underscore inside a word stays */
	/* a long table is folded */
	k = RUN(NULL, "--markdown", "kb", "gpu");
	assert_non_null(strstr(k.out, "<details><summary>"));
	assert_non_null(strstr(k.out, "</details>"));
	run_result_free(&a);
	run_result_free(&g);
	run_result_free(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_header),
		cmocka_unit_test(test_text_header_is_one_paragraph),
		cmocka_unit_test(test_anonymize),
		cmocka_unit_test(test_markdown_for_an_issue),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
