/* The deployment checks on real kernel-log lines (tests/unit/kmsg/, each with its public
 * report) and fabricated facts: the kernel-log parser and reader, /proc/modules, the
 * PCI-to-GPU map, each event's severity, the environment table and the findings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kb/kb.h"
#include "probe/deploy.h"
#include "probe/kmsg.h"
#include "probe/modules.h"
#include "rules/deploy.h"
#include "rules/rules.h"
#include "util/err.h"
#include "util/file.h"

#define KMSG_DIR CUDOCTOR_SOURCE_DIR "/tests/unit/kmsg/"

static void parse_file(const char *name, struct kmsg_events *k)
{
	char path[512], err[CD_ERRMSG], *text;
	size_t len;

	snprintf(path, sizeof path, KMSG_DIR "%s", name);
	memset(k, 0, sizeof *k);
	assert_int_equal(file_read_text(path, 1 << 20, &text, &len, err), CD_OK);
	kmsg_parse((const unsigned char *)text, len, k);
	free(text);
}

static const struct xid_event *find_event(const struct kmsg_events *k, enum xid_event_kind kind, int xid)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->ev[i].kind == kind && k->ev[i].xid == xid)
			return &k->ev[i];
	return NULL;
}

/* https://github.com/NVIDIA/NVSentinel/issues/155: the open driver's three-line "fallen off
 * the bus" names the GPU on its first line only; an Xid 79 line names its own */
static void test_fallen_off_the_bus(void **state)
{
	struct kmsg_events k;
	const struct xid_event *e;

	(void)state;
	parse_file("xid79_multiline.dmesg", &k);
	assert_int_equal(k.n, 2);
	e = find_event(&k, XID_EVENT_OFF_BUS, 0);
	assert_non_null(e);
	assert_string_equal(e->pci, "0000:b3:00.0");
	assert_int_equal(e->first_usec, 1843308145LL);
	assert_int_equal(e->count, 1);
	e = find_event(&k, XID_EVENT_XID, 79);
	assert_non_null(e);
	assert_string_equal(e->pci, "0000:44:00");
	assert_string_equal(e->text, "GPU has fallen off the bus");
	assert_int_equal(e->first_usec, -1); /* a bare line has no time */
	assert_int_equal(deploy_event_severity(e), SEV_ERROR);
}

/* https://github.com/leptonai/gpud/pull/46: three Xid 13 lines are one event counted three
 * times; pid='<unknown>' is no pid; Xid 109's pid is */
static void test_repeats_counted_pid_read(void **state)
{
	struct kmsg_events k;
	const struct xid_event *e;

	(void)state;
	parse_file("xid13_109.dmesg", &k);
	assert_int_equal(k.n, 2);
	e = find_event(&k, XID_EVENT_XID, 13);
	assert_non_null(e);
	assert_int_equal(e->count, 3);
	assert_int_equal(e->pid, -1);
	assert_string_equal(e->pci, "0000:cb:00");
	assert_non_null(strstr(e->text, "Illegal Instruction Parameter"));
	assert_int_equal(deploy_event_severity(e), SEV_WARN); /* an application's fault */
	e = find_event(&k, XID_EVENT_XID, 109);
	assert_non_null(e);
	assert_int_equal(e->pid, 1797828);
	assert_true(strncmp(e->text, "name=pt_main_thread", 19) == 0);
	assert_int_equal(deploy_event_severity(e), SEV_ERROR); /* a driver Xid */
}

/* https://github.com/Bumblebee-Project/Bumblebee/issues/677 in both forms the kernel gives:
 * dmesg's stamps and /dev/kmsg's records (with their KEY=value lines) read the same */
static void test_dmesg_and_kmsg_agree(void **state)
{
	struct kmsg_events a, b;

	(void)state;
	parse_file("xid32_31.dmesg", &a);
	parse_file("xid32_31.kmsg", &b);
	assert_int_equal(a.n, 2);
	assert_int_equal(b.n, 2);
	for (size_t i = 0; i < a.n; i++) {
		assert_int_equal(a.ev[i].xid, b.ev[i].xid);
		assert_string_equal(a.ev[i].pci, b.ev[i].pci);
		assert_int_equal(a.ev[i].count, b.ev[i].count);
		assert_int_equal(a.ev[i].first_usec, b.ev[i].first_usec);
		assert_int_equal(a.ev[i].last_usec, b.ev[i].last_usec);
		assert_string_equal(a.ev[i].text, b.ev[i].text);
	}
	assert_int_equal(a.ev[0].xid, 32);
	assert_int_equal(a.ev[0].count, 2);
	assert_int_equal(a.ev[0].first_usec, 24128828315LL);
	assert_int_equal(a.ev[0].last_usec, 24128828608LL);
	assert_string_equal(a.ev[0].text, "Channel ID 00000000 intr 00004000");
}

/* https://github.com/leptonai/gpud/pull/1174: Grace-Blackwell NVLink Xids on PCI domains
 * 0019 and 0018; 149 is an NVLink5 hardware Xid in the table, so it counts as an error */
static void test_nvlink_xids(void **state)
{
	struct kmsg_events k;
	const struct xid_event *e;

	(void)state;
	parse_file("nvlink_xid.kmsg", &k);
	assert_int_equal(k.n, 2);
	e = find_event(&k, XID_EVENT_XID, 149);
	assert_non_null(e);
	assert_string_equal(e->pci, "0019:01:00");
	assert_int_equal(e->first_usec, 912000111LL);
	assert_true(strncmp(e->text, "NETIR Fatal", 11) == 0);
	assert_non_null(kb_xid_find(149));
	assert_string_equal(kb_xid_find(149)->kind, "hardware");
	assert_int_equal(deploy_event_severity(e), SEV_ERROR);
}

/* NVSwitch SXids: fatal is an error, non-fatal a warning; an NVSwitch is no GPU */
static void test_sxid(void **state)
{
	struct kmsg_events k;
	const struct xid_event *e;
	struct gpu_probe gp = { 0 };
	struct gpu_info g = { 0 };

	(void)state;
	parse_file("sxid.kmsg", &k);
	assert_int_equal(k.n, 2);
	e = find_event(&k, XID_EVENT_SXID, 12028);
	assert_non_null(e);
	assert_string_equal(e->pci, "0000:05:00.0");
	assert_int_equal(deploy_event_severity(e), SEV_WARN);
	e = find_event(&k, XID_EVENT_SXID, 11001);
	assert_non_null(e);
	assert_int_equal(deploy_event_severity(e), SEV_ERROR);
	snprintf(g.pci_bus_id, sizeof g.pci_bus_id, "0000:00:00.0");
	gp.gpus = &g;
	gp.n_gpus = 1;
	assert_int_equal(deploy_event_gpu(e, &gp), -1);
}

/* Lines that are not NVIDIA events, and broken ones, add nothing; more distinct events
 * than the table holds are counted as truncated, not written past it */
static void test_hostile_lines(void **state)
{
	static const char junk[] = "NVRM: Xid\nNVRM: Xid (PCI:0000:01:00\nNVRM: Xid (PCI:0000:01:00): x\n"
				   "6,1,2;NVRM: Xid: 99999999999999999999\n[  1.5] NVRM: Xid (PCI:zz): 13, a\n"
				   "SXid\n \n NOT=dict but text\nfallen off the bus\n";
	struct kmsg_events k;
	char many[200 * 64];
	size_t n = 0;

	(void)state;
	memset(&k, 0, sizeof k);
	kmsg_parse((const unsigned char *)junk, sizeof junk - 1, &k);
	/* only "[  1.5] ... (PCI:zz): 13" is an Xid: its device is unreadable, its time is not a dmesg stamp */
	assert_int_equal(k.n, 1);
	assert_int_equal(k.ev[0].xid, 13);
	assert_string_equal(k.ev[0].pci, "");
	memset(&k, 0, sizeof k);
	for (int i = 0; i < 100; i++)
		n += (size_t)snprintf(many + n, sizeof many - n, "NVRM: Xid (PCI:0000:%02x:00): 13, x\n", i);
	kmsg_parse((const unsigned char *)many, n, &k);
	assert_int_equal(k.n, KMSG_MAX_EVENTS);
	assert_true(k.truncated);
	memset(&k, 0, sizeof k);
	kmsg_parse((const unsigned char *)"", 0, &k);
	assert_int_equal(k.n, 0);
}

/* kmsg_probe reads $ROOT/dev/kmsg; missing is a state, and so is a directory in its place */
static void test_probe_under_root(void **state)
{
	char root[] = "/tmp/cudoctor-deploy-XXXXXX", path[256], cmd[512], err[CD_ERRMSG];
	struct kmsg_events k;
	struct kernel_modules m;

	(void)state;
	assert_non_null(mkdtemp(root));
	assert_int_equal(kmsg_probe(&k, root, err), CD_OK);
	assert_int_equal(k.state, KMSG_MISSING);
	assert_int_equal(modules_probe(&m, root, err), CD_OK);
	assert_false(m.read);
	snprintf(path, sizeof path, "%s/dev", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/dev/kmsg", root);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(kmsg_probe(&k, root, err), CD_OK);
	assert_int_equal(k.state, KMSG_FAILED);
	assert_int_equal(rmdir(path), 0);
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", KMSG_DIR "xid32_31.kmsg", path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(kmsg_probe(&k, root, err), CD_OK);
	assert_int_equal(k.state, KMSG_READ);
	assert_int_equal(k.n, 2);
	assert_true(k.bytes > 200);
	assert_false(k.log_full);
	snprintf(path, sizeof path, "%s/proc", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(cmd, sizeof cmd,
		 "printf 'nouveau 2760704 0 - Live 0x0\\nnvidia_uvm 1437696 0 - Live 0x0\\nnvidia_drm 90112 0 - Live 0x0\\n' > '%s/proc/modules'",
		 root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(modules_probe(&m, root, err), CD_OK);
	assert_true(m.read);
	assert_true(m.nouveau);
	assert_true(m.nvidia_uvm);
	assert_false(m.nvidia); /* nvidia_drm is not nvidia */
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* A GPU's "0000:18:00.0" and the log's "0000:18:00" or "00000000:18:00.0" are one device */
static void test_event_gpu(void **state)
{
	struct gpu_info g[2] = { 0 };
	struct gpu_probe gp = { .gpus = g, .n_gpus = 2 };
	struct xid_event e = { .kind = XID_EVENT_XID, .xid = 79 };

	(void)state;
	snprintf(g[0].pci_bus_id, sizeof g[0].pci_bus_id, "0000:18:00.0");
	snprintf(g[1].pci_bus_id, sizeof g[1].pci_bus_id, "0000:28:00.0");
	snprintf(e.pci, sizeof e.pci, "0000:28:00");
	assert_int_equal(deploy_event_gpu(&e, &gp), 1);
	snprintf(e.pci, sizeof e.pci, "00000000:18:00.0");
	assert_int_equal(deploy_event_gpu(&e, &gp), 0);
	snprintf(e.pci, sizeof e.pci, "0001:18:00");
	assert_int_equal(deploy_event_gpu(&e, &gp), -1);
	e.pci[0] = '\0';
	assert_int_equal(deploy_event_gpu(&e, &gp), -1);
}

static void test_env_effects(void **state)
{
	(void)state;
	assert_non_null(deploy_env_effect("CUDA_LAUNCH_BLOCKING", "1"));
	assert_int_equal(deploy_env_effect("CUDA_LAUNCH_BLOCKING", "1")->sev, SEV_WARN);
	assert_null(deploy_env_effect("CUDA_LAUNCH_BLOCKING", "0"));
	assert_null(deploy_env_effect("CUDA_LAUNCH_BLOCKING", ""));
	assert_non_null(deploy_env_effect("CUDA_DEVICE_MAX_CONNECTIONS", "1"));
	assert_int_equal(deploy_env_effect("CUDA_DEVICE_MAX_CONNECTIONS", "1")->sev, SEV_INFO);
	assert_non_null(deploy_env_effect("CUDA_CACHE_DISABLE", "1"));
	assert_non_null(deploy_env_effect("CUDA_MODULE_LOADING", "EAGER"));
	assert_null(deploy_env_effect("CUDA_MODULE_LOADING", "LAZY"));
	assert_non_null(deploy_env_effect("CUDA_INJECTION64_PATH", "/opt/nsys/libToolsInjection64.so"));
	assert_non_null(deploy_env_effect("CUDA_DEVICE_WAITS_ON_EXCEPTION", "1"));
	assert_null(deploy_env_effect("CUDA_HOME", "/usr/local/cuda"));
	assert_null(deploy_env_effect("CUDA_LAUNCH_BLOCKING", NULL));
}

static size_t count_id(const struct report *r, const char *id, enum severity sev)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_findings; i++)
		if (strcmp(r->findings[i].id, id) == 0 && r->findings[i].severity == sev)
			n++;
	return n;
}

static bool evidence_has(const struct finding *f, const char *s)
{
	for (size_t i = 0; i < f->n_evidence; i++)
		if (strstr(f->evidence[i], s))
			return true;
	return false;
}

/* The findings: one xid-errors per device, on the GPU's subject, with the kb's meaning and
 * action; nouveau; each variable; kernel-log-unread only when asked */
static void test_rules(void **state)
{
	static const char *const env[] = { "CUDA_LAUNCH_BLOCKING=1", "CUDA_HOME=/usr/local/cuda",
					   "CUDA_DEVICE_MAX_CONNECTIONS=1", "BROKEN", NULL };
	struct deploy_info d = { 0 };
	struct gpu_info g = { 0 };
	struct gpu_probe gp = { .gpus = &g, .n_gpus = 1 };
	const struct finding *f;
	struct report r;

	(void)state;
	assert_int_equal(kb_load(NULL), CD_OK);
	g.cuda_ordinal = 0;
	snprintf(g.name, sizeof g.name, "NVIDIA H200");
	gpu_mark(&g, GF_NAME);
	snprintf(g.pci_bus_id, sizeof g.pci_bus_id, "0000:44:00.0");
	parse_file("xid79_multiline.dmesg", &d.kmsg);
	d.kmsg.state = KMSG_READ;
	d.mods.read = d.mods.nvidia = d.mods.nouveau = true;
	d.env = env;
	assert_int_equal(report_init(&r, "check"), CD_OK);
	assert_int_equal(rules_deploy(&d, &gp, false, &r), CD_OK);
	assert_int_equal(count_id(&r, "xid-errors", SEV_ERROR), 2);
	f = report_find(&r, "xid-errors");
	/* the events come in log order: the three-line report of 0000:b3:00.0 first */
	assert_non_null(strstr(f->subject, "0000:b3:00.0"));
	assert_true(evidence_has(f, "no GPU the driver lists now is at PCI 0000:b3:00.0"));
	for (size_t i = 0; i < r.n_findings; i++)
		if (strcmp(r.findings[i].id, "xid-errors") == 0 && strstr(r.findings[i].subject, "GPU 0")) {
			assert_true(evidence_has(&r.findings[i], "Xid 79 is GPU has fallen off the bus (hardware)"));
			assert_true(evidence_has(&r.findings[i], "action: drain the node and reboot"));
			f = NULL;
		}
	assert_null(f);
	assert_int_equal(count_id(&r, "nouveau-loaded", SEV_ERROR), 1);
	assert_int_equal(count_id(&r, "cuda-env", SEV_WARN), 1);
	assert_int_equal(count_id(&r, "cuda-env", SEV_INFO), 1);
	assert_false(report_has_finding(&r, "kernel-log-unread"));
	report_free(&r);

	/* a clean machine says nothing; a restricted log is said only when asked */
	memset(&d, 0, sizeof d);
	d.kmsg.state = KMSG_DENIED;
	d.kmsg.sys_errno = 1;
	d.mods.read = d.mods.nvidia = true;
	assert_int_equal(report_init(&r, "check"), CD_OK);
	assert_int_equal(rules_deploy(&d, &gp, false, &r), CD_OK);
	assert_int_equal(r.n_findings, 0);
	assert_int_equal(rules_deploy(&d, &gp, true, &r), CD_OK);
	assert_int_equal(count_id(&r, "kernel-log-unread", SEV_INFO), 1);
	report_free(&r);
}

/* https://github.com/akash-network/support/issues/244: three GPUs, each graded by the
 * immediate action NVIDIA's Xid catalogue gives its Xid: 43 (IGNORE: the application hit a
 * software fault, the GPU stays healthy) is info, 31 and 94 (RESTART_APP: the application
 * restarts, the GPU needs no reset) are warnings; none of them is an error */
static void test_xid_graded_by_catalogue(void **state)
{
	struct deploy_info d = { 0 };
	struct gpu_probe gp = { 0 };
	const struct xid_event *e;
	struct report r;

	(void)state;
	assert_int_equal(kb_load(NULL), CD_OK);
	parse_file("xid43_31_94.dmesg", &d.kmsg);
	assert_int_equal(d.kmsg.n, 3);
	e = find_event(&d.kmsg, XID_EVENT_XID, 43);
	assert_non_null(e);
	assert_int_equal(e->count, 2);
	assert_string_equal(kb_xid_find(43)->bucket, "IGNORE");
	assert_int_equal(deploy_event_severity(e), SEV_INFO);
	assert_non_null(strstr(deploy_event_means(e), "no action needed"));
	e = find_event(&d.kmsg, XID_EVENT_XID, 31);
	assert_int_equal(deploy_event_severity(e), SEV_WARN);
	assert_non_null(strstr(deploy_event_means(e), "needs no reset"));
	e = find_event(&d.kmsg, XID_EVENT_XID, 94);
	assert_string_equal(e->pci, "0000:00:08");
	assert_int_equal(deploy_event_severity(e), SEV_WARN);

	d.kmsg.state = KMSG_READ;
	d.mods.read = d.mods.nvidia = true;
	assert_int_equal(report_init(&r, "check"), CD_OK);
	assert_int_equal(rules_deploy(&d, &gp, false, &r), CD_OK);
	assert_int_equal(count_id(&r, "xid-errors", SEV_INFO), 1);
	assert_int_equal(count_id(&r, "xid-errors", SEV_WARN), 2);
	assert_int_equal(count_id(&r, "xid-errors", SEV_ERROR), 0);
	for (size_t i = 0; i < r.n_findings; i++)
		if (r.findings[i].severity == SEV_INFO)
			assert_true(evidence_has(&r.findings[i], "Xid 43 in NVIDIA's catalogue: immediate action IGNORE, graded info"));
	report_free(&r);
}

/* https://github.com/leptonai/gpud/pull/117: Xid 45 alone (the catalogue's WORKFLOW_XID_45:
 * an aborted application's work torn down) is info; logged with a hardware Xid on the same
 * GPU the finding takes the worse grade */
static void test_xid45_alone_and_with_others(void **state)
{
	struct deploy_info d = { 0 };
	struct gpu_probe gp = { 0 };
	struct report r;

	(void)state;
	assert_int_equal(kb_load(NULL), CD_OK);
	parse_file("xid45_alone.dmesg", &d.kmsg);
	assert_int_equal(d.kmsg.n, 1);
	assert_int_equal(d.kmsg.ev[0].count, 6);
	assert_int_equal(deploy_event_severity(&d.kmsg.ev[0]), SEV_INFO);
	d.kmsg.state = KMSG_READ;
	assert_int_equal(report_init(&r, "check"), CD_OK);
	assert_int_equal(rules_deploy(&d, &gp, false, &r), CD_OK);
	assert_int_equal(count_id(&r, "xid-errors", SEV_INFO), 1);
	report_free(&r);

	/* the same GPU then logs an Xid 48 (WORKFLOW_XID_48): one finding, an error */
	d.kmsg.ev[1] = d.kmsg.ev[0];
	d.kmsg.ev[1].xid = 48;
	d.kmsg.n = 2;
	assert_int_equal(report_init(&r, "check"), CD_OK);
	assert_int_equal(rules_deploy(&d, &gp, false, &r), CD_OK);
	assert_int_equal(count_id(&r, "xid-errors", SEV_ERROR), 1);
	assert_int_equal(r.n_findings, 1);
	report_free(&r);
}

/* Xid 154 names the recovery another Xid needs, in the catalogue's words "GPU recovery action
 * changed from 0x0 (None) to 0x2 (Node Reboot Required)": an error, unless it changed to None */
static void test_xid154_reads_its_text(void **state)
{
	struct xid_event e = { .kind = XID_EVENT_XID, .xid = 154, .count = 1, .first_usec = -1, .last_usec = -1,
			       .pid = -1 };

	(void)state;
	assert_int_equal(kb_load(NULL), CD_OK);
	snprintf(e.text, sizeof e.text, "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)");
	assert_int_equal(deploy_event_severity(&e), SEV_ERROR);
	snprintf(e.text, sizeof e.text, "GPU recovery action changed from 0x1 (GPU Reset Required) to 0x0 (None)");
	assert_int_equal(deploy_event_severity(&e), SEV_INFO);
	/* an Xid the table lacks is an error, and has no grade of its own to explain */
	e.xid = 9999;
	assert_int_equal(deploy_event_severity(&e), SEV_ERROR);
	assert_null(deploy_event_means(&e));
}

/* Every Xid row has an action, and the rows DCGM and gpud act on are there */
static void test_xid_table(void **state)
{
	static const int acted_on[] = { 48, 63, 64, 74, 79, 92, 94, 95, 119, 120, 140, 154 };

	(void)state;
	assert_int_equal(kb_load(NULL), CD_OK);
	for (size_t i = 0; i < kb_xid_count(); i++)
		assert_true(kb_xid_at(i)->action && *kb_xid_at(i)->action);
	for (size_t i = 0; i < sizeof acted_on / sizeof acted_on[0]; i++)
		if (!kb_xid_find(acted_on[i]))
			fail_msg("Xid %d is not in kb/xid.tsv", acted_on[i]);
	/* the catalogue's IGNORE rows (checked against its page by hand) and a few that need a
	 * reset or a reboot */
	{
		static const int ignore[] = { 38, 43, 63, 92, 121, 137, 157 };
		static const int reset[] = { 46, 62, 64, 95, 109, 119, 120 };

		for (size_t i = 0; i < sizeof ignore / sizeof ignore[0]; i++)
			assert_string_equal(kb_xid_find(ignore[i])->bucket, "IGNORE");
		for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++)
			assert_string_equal(kb_xid_find(reset[i])->bucket, "RESET_GPU");
		assert_string_equal(kb_xid_find(79)->bucket, "RESTART_BM");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fallen_off_the_bus),   cmocka_unit_test(test_repeats_counted_pid_read),
		cmocka_unit_test(test_dmesg_and_kmsg_agree), cmocka_unit_test(test_nvlink_xids),
		cmocka_unit_test(test_sxid),                 cmocka_unit_test(test_hostile_lines),
		cmocka_unit_test(test_probe_under_root),     cmocka_unit_test(test_event_gpu),
		cmocka_unit_test(test_env_effects),          cmocka_unit_test(test_rules),
		cmocka_unit_test(test_xid_table),            cmocka_unit_test(test_xid_graded_by_catalogue),
		cmocka_unit_test(test_xid45_alone_and_with_others), cmocka_unit_test(test_xid154_reads_its_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
