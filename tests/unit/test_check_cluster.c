/* `cudoctor check` as a cluster's health check, end to end with the fake drivers and a host
 * laid out under CUDOCTOR_HOST_ROOT: the Nagios and node-problem-detector exit codes and
 * summary line, --timeout over a hanging NVML call, --slurm-drain against a fake scontrol on
 * PATH, NVML's recovery action and drain state, the PCI count against NVML's, the health
 * gauges, the shipped NHC module sourced as NHC sources it and the shipped NPD plugin config. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "testlib.h"

static char root[] = "/tmp/cudoctor-cluster-XXXXXX";
static char root_env[128], path_env[8192], log_path[256], log_env[300];

#define BASE_ENV                                                                                         \
	"CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1",                                          \
		"CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1", "CUDA_VISIBLE_DEVICES=",    \
		"FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA H200:9.0:141GiB", "FAKE_NVML_PERSISTENCE=0:1;1:1", \
		"CUDA_LAUNCH_BLOCKING=", "CUDA_DEVICE_MAX_CONNECTIONS=", "CUDA_CACHE_DISABLE=",          \
		"CUDA_MODULE_LOADING=", "CUDA_INJECTION64_PATH=", "CUDA_FORCE_PTX_JIT=",                 \
		"CUDA_DISABLE_PTX_JIT=", "CUDA_DEVICE_WAITS_ON_EXCEPTION=", "CUDA_AUTO_BOOST=",          \
		"SLURMD_NODENAME=gpu17", "FAKE_NVML_HANG=", "FAKE_NVML_RECOVERY=", "FAKE_NVML_DRAIN=",   \
		"FAKE_SCONTROL_NODE=", "FAKE_NVML_CLOCK_REASONS=", "FAKE_NVML_NOT_SUPPORTED=", root_env, path_env, log_env

/* NVSentinel's Xid 79 line (https://github.com/NVIDIA/NVSentinel/issues/155) on the fake's
 * second GPU (bus 0x28) */
#define XID79 "4,11,7000000,-;NVRM: Xid (PCI:0000:28:00): 79, GPU has fallen off the bus\n"

static void write_file(const char *rel, const char *text, int mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, (mode_t)mode);
}

static void mkdirs(const char *rel)
{
	char path[512];

	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	mkdir(path, 0755);
}

/* A fake scontrol: `-o show node N` prints $FAKE_SCONTROL_NODE's line, every call is
 * appended to the log, one line of its arguments */
static const char scontrol[] =
	"#!/bin/sh\n"
	"echo \"$*\" >> \"$FAKE_SCONTROL_LOG\"\n"
	"if [ \"$1 $2 $3\" = \"-o show node\" ]; then\n"
	"  printf '%s\\n' \"${FAKE_SCONTROL_NODE:-NodeName=$4 Arch=x86_64 State=IDLE ThreadsPerCore=2}\"\n"
	"fi\n"
	"exit 0\n";

static int make_root(void **state)
{
	(void)state;
	if (!mkdtemp(root))
		return -1;
	snprintf(root_env, sizeof root_env, "CUDOCTOR_HOST_ROOT=%s", root);
	mkdirs("dev");
	mkdirs("proc");
	mkdirs("bin");
	write_file("bin/scontrol", scontrol, 0755);
	snprintf(path_env, sizeof path_env, "PATH=%s/bin:%s", root, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	snprintf(log_path, sizeof log_path, "%s/scontrol.log", root);
	snprintf(log_env, sizeof log_env, "FAKE_SCONTROL_LOG=%s", log_path);
	write_file("proc/modules", "nvidia_uvm 1437696 0 - Live 0x0\nnvidia 54439936 1 nvidia_uvm, Live 0x0\n", 0644);
	return 0;
}

static int remove_root(void **state)
{
	const char *argv[] = { "/bin/rm", "-rf", root, NULL };
	struct run_result r;

	(void)state;
	if (testlib_run(argv, NULL, NULL, &r) == 0)
		run_result_free(&r);
	return 0;
}

/* each case starts from a clean log, no sysfs, and the kernel log given */
static void host(const char *kmsg)
{
	char path[512];
	const char *argv[] = { "/bin/rm", "-rf", path, NULL };
	struct run_result r;

	write_file("dev/kmsg", kmsg, 0644);
	unlink(log_path);
	snprintf(path, sizeof path, "%s/sys", root);
	assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
	run_result_free(&r);
}

/* cudoctor ARGS... (NULL-terminated, at most 12) with the base environment and up to three more */
static struct run_result run_env(const char *e1, const char *e2, const char *e3, ...)
{
	const char *argv[16] = { CUDOCTOR_BINARY };
	const char *env[] = { BASE_ENV, e1 ? e1 : "CUDOCTOR_UNUSED1=", e2 ? e2 : "CUDOCTOR_UNUSED2=",
			      e3 ? e3 : "CUDOCTOR_UNUSED3=", NULL };
	struct run_result r;
	va_list ap;
	size_t n = 1;

	va_start(ap, e3);
	for (const char *a; n < 15 && (a = va_arg(ap, const char *)) != NULL;)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	return r;
}

static void clear_log(void)
{
	unlink(log_path);
}

static char *read_log(void)
{
	FILE *f = fopen(log_path, "r");
	static char buf[8192];
	size_t n;

	if (!f)
		return strcpy(buf, "");
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* the first line of out, checked to be at most 80 bytes */
static char *first_line(const char *out, char *buf, size_t cap)
{
	size_t n = strcspn(out, "\n");

	if (n > 80)
		fail_msg("first line longer than 80 bytes (%zu): %s", n, out);
	snprintf(buf, cap, "%.*s", (int)n, out);
	return buf;
}

static void expect(const struct run_result *r, int status, const char *line_prefix)
{
	char line[128];

	if (r->status != status || strncmp(first_line(r->out, line, sizeof line), line_prefix, strlen(line_prefix)) != 0)
		fail_msg("wanted status %d and a first line starting '%s'; got %d: %s\nstderr: %s", status, line_prefix,
			 r->status, r->out, r->err);
}

/* Each contract on ok, warn, error and could-not-check: its status and the summary line */
static void test_exit_code_contracts(void **state)
{
	struct run_result r;

	(void)state;
	host("6,1,1000,-;Linux version 6.8.0\n");
	r = run_env(NULL, NULL, NULL, "--exit-codes=npd", "check", "--no-load", NULL);
	expect(&r, 0, "cudoctor: ok");
	run_result_free(&r);
	r = run_env(NULL, NULL, NULL, "--exit-codes=nagios", "check", "--no-load", NULL);
	expect(&r, 0, "cudoctor: ok");
	run_result_free(&r);
	/* a hardware thermal slowdown: a warning */
	r = run_env("FAKE_NVML_CLOCK_REASONS=1:0x40", NULL, NULL, "--exit-codes=nagios", "check", "--no-load", NULL);
	expect(&r, 1, "cudoctor: warn clocks-throttled");
	run_result_free(&r);
	r = run_env("FAKE_NVML_CLOCK_REASONS=1:0x40", NULL, NULL, "--exit-codes", "npd", "-q", "check", "--no-load", NULL);
	expect(&r, 0, "cudoctor: warn clocks-throttled");
	run_result_free(&r);
	/* an environment warning: ok under npd, named */
	r = run_env("CUDA_VISIBLE_DEVICES=0,7", NULL, NULL, "--exit-codes=npd", "check", "--no-load", NULL);
	expect(&r, 0, "cudoctor: warn visible-devices-invalid");
	run_result_free(&r);
	host(XID79);
	r = run_env(NULL, NULL, NULL, "--exit-codes=npd", "check", "--no-load", NULL);
	expect(&r, 1, "cudoctor: error xid-errors: GPU 1 (NVIDIA H200)");
	run_result_free(&r);
	r = run_env(NULL, NULL, NULL, "--exit-codes=nagios", "-q", "check", "--no-load", NULL);
	expect(&r, 2, "cudoctor: error xid-errors");
	assert_non_null(strstr(r.out, "\nGPU 1 (NVIDIA H200): error: xid-errors"));
	run_result_free(&r);
	/* could not check: a usage error, in either contract's words */
	r = run_env(NULL, NULL, NULL, "--exit-codes=npd", "check", "--no-such-option", NULL);
	expect(&r, 2, "cudoctor: unknown: ");
	run_result_free(&r);
	r = run_env(NULL, NULL, NULL, "--exit-codes=nagios", "check", "--timeout", "0", NULL);
	expect(&r, 3, "cudoctor: unknown: --timeout wants seconds");
	run_result_free(&r);
	r = run_env(NULL, NULL, NULL, "--exit-codes=bogus", "check", NULL);
	assert_int_equal(r.status, 2);
	run_result_free(&r);
	/* JSON stays JSON */
	r = run_env(NULL, NULL, NULL, "--exit-codes=npd", "--json", "check", "--no-load", NULL);
	assert_int_equal(r.status, 1);
	assert_true(r.out[0] == '{');
	run_result_free(&r);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A hung NVML call ends the run at the bound, named, as a node-health error; under
 * --slurm-drain the node is drained for it */
static void test_timeout_names_the_hung_call(void **state)
{
	struct run_result r;
	double t0;

	(void)state;
	host("6,1,1000,-;Linux version 6.8.0\n");
	t0 = now_s();
	r = run_env("FAKE_NVML_HANG=nvmlDeviceGetTotalEccErrors", NULL, NULL, "--exit-codes=npd", "check", "--no-load",
		    "--timeout", "3", "--slurm-drain", NULL);
	if (now_s() - t0 > 6)
		fail_msg("check --timeout 3 took %.1f s", now_s() - t0);
	expect(&r, 1, "cudoctor: error check-timeout: nvmlDeviceGetTotalEccErrors hung (3 s)");
	assert_non_null(strstr(r.err, "nvmlDeviceGetTotalEccErrors has not returned"));
	assert_non_null(strstr(read_log(), "update NodeName=gpu17 State=DRAIN Reason=cudoctor: check-timeout\n"));
	run_result_free(&r);
	/* a textfile collector's file stays whole: the one of the last run that finished, and no
	 * temporary beside it */
	{
		char prom[256], cmd[1200];

		snprintf(prom, sizeof prom, "%s/node.prom", root);
		write_file("node.prom", "cudoctor_up 1\n", 0644);
		r = run_env("FAKE_NVML_HANG=nvmlDeviceGetTotalEccErrors", NULL, NULL, "--output", prom, "check", "--format",
			    "prometheus", "--no-load", "--timeout", "2", NULL);
		assert_int_equal(r.status, 1);
		run_result_free(&r);
		snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s' | grep -c '^node.prom')\" = 1 && grep -qx 'cudoctor_up 1' '%s'",
			 root, prom);
		if (system(cmd) != 0)
			fail_msg("--output under a watchdog that fired: the old file changed or a temporary stayed in %s", root);
	}
	/* the documented bound: nvmlInit itself hangs, --timeout 10 */
	t0 = now_s();
	r = run_env("FAKE_NVML_HANG=nvmlInit", NULL, NULL, "check", "--no-load", "--timeout", "10", NULL);
	if (now_s() - t0 > 12)
		fail_msg("check --timeout 10 took %.1f s", now_s() - t0);
	expect(&r, 1, "cudoctor: error check-timeout: nvmlInit hung (10 s)");
	run_result_free(&r);
}

/* --slurm-drain with a fake scontrol: drain on a node-health error, resume only what cudoctor
 * drained, leave a node drained for another reason as it is */
static void test_slurm_drain_and_resume(void **state)
{
	struct run_result r;
	const char *drained_ours = "FAKE_SCONTROL_NODE=NodeName=gpu17 State=IDLE+DRAIN Reason=cudoctor: xid-errors [root@2026-12-01T10:00:00]";
	const char *drained_admin = "FAKE_SCONTROL_NODE=NodeName=gpu17 State=IDLE+DRAIN Reason=bad DIMM, ticket 4711 [alice@2026-12-01T10:00:00]";

	(void)state;
	host(XID79);
	r = run_env(NULL, NULL, NULL, "check", "--no-load", "--slurm-drain", NULL);
	assert_int_equal(r.status, 1);
	assert_string_equal(read_log(), "-o show node gpu17\nupdate NodeName=gpu17 State=DRAIN Reason=cudoctor: xid-errors\n");
	run_result_free(&r);
	/* drained by an admin: never touched, whether the checks fail or pass */
	host(XID79);
	r = run_env(drained_admin, NULL, NULL, "--json", "check", "--no-load", "--slurm-drain", NULL);
	assert_string_equal(read_log(), "-o show node gpu17\n");
	assert_non_null(strstr(r.out, "\"action\": \"left alone: drained for another reason\""));
	run_result_free(&r);
	host("");
	r = run_env(drained_admin, NULL, NULL, "check", "--no-load", "--slurm-drain", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(read_log(), "-o show node gpu17\n");
	run_result_free(&r);
	/* drained by cudoctor and healthy again: resumed */
	clear_log();
	r = run_env(drained_ours, NULL, NULL, "check", "--no-load", "--slurm-drain", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(read_log(), "-o show node gpu17\nupdate NodeName=gpu17 State=RESUME\n");
	run_result_free(&r);
	/* already drained by cudoctor for the same reason: nothing to do */
	host(XID79);
	r = run_env(drained_ours, NULL, NULL, "check", "--no-load", "--slurm-drain", NULL);
	assert_string_equal(read_log(), "-o show node gpu17\n");
	run_result_free(&r);
	/* an error --ignore names neither drains nor fails */
	host(XID79);
	r = run_env(NULL, NULL, NULL, "check", "--no-load", "--slurm-drain", "--ignore", "xid-errors", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(read_log(), "-o show node gpu17\n");
	run_result_free(&r);
	/* --dry-run: the line printed (-q's answer), not run */
	host(XID79);
	r = run_env("FAKE_NVML_RECOVERY=0:1", NULL, NULL, "-q", "check", "--no-load", "--slurm-drain", "--dry-run", NULL);
	assert_non_null(strstr(r.out, "scontrol update NodeName=gpu17 State=DRAIN Reason='cudoctor: xid-errors,gpu-recovery-action'\n"));
	assert_string_equal(read_log(), "-o show node gpu17\n");
	run_result_free(&r);
	r = run_env(NULL, NULL, NULL, "check", "--no-load", "--dry-run", NULL);
	assert_int_equal(r.status, 2);
	run_result_free(&r);
}

/* NVML's recovery action, each value, and the drain state; a driver before R575 says nothing */
static void test_recovery_action_and_drain_state(void **state)
{
	static const char *const actions[] = { "GPU reset", "node reboot", "drain P2P", "drain and reset" };
	struct run_result r;
	json_error_t e;
	json_t *j;

	(void)state;
	host("");
	for (int a = 1; a <= 4; a++) {
		char env[64], title[96];

		snprintf(env, sizeof env, "FAKE_NVML_RECOVERY=1:%d", a);
		r = run_env(env, NULL, NULL, "--exit-codes=npd", "-q", "check", "--no-load", NULL);
		expect(&r, 1, "cudoctor: error gpu-recovery-action: GPU 1 (NVIDIA H200): the driver asks");
		snprintf(title, sizeof title, "error gpu-recovery-action: the driver asks for a %s [GPU 1 (NVIDIA H200)]",
			 actions[a - 1]);
		assert_non_null(strstr(r.err, title));
		run_result_free(&r);
	}
	r = run_env("FAKE_NVML_DRAIN=0:1", NULL, NULL, "--json", "check", "--no-load", NULL);
	j = json_loads(r.out, 0, &e);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "drained")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "recovery_action")),
			    "none");
	assert_non_null(strstr(r.out, "the GPU is drained"));
	json_decref(j);
	run_result_free(&r);
	r = run_env("FAKE_NVML_RECOVERY=2", "FAKE_NVML_NOT_SUPPORTED=recovery,drain", NULL, "--json", "check", "--no-load", NULL);
	assert_int_equal(r.status, 0);
	j = json_loads(r.out, 0, &e);
	assert_non_null(j);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "recovery_action")));
	assert_null(strstr(r.out, "gpu-recovery-action"));
	json_decref(j);
	run_result_free(&r);
}

static void pci_device(const char *bus, const char *vendor, const char *cls)
{
	char rel[256], text[64];

	snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s", bus);
	mkdirs(rel);
	snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s/vendor", bus);
	snprintf(text, sizeof text, "%s\n", vendor);
	write_file(rel, text, 0644);
	snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s/class", bus);
	snprintf(text, sizeof text, "%s\n", cls);
	write_file(rel, text, 0644);
}

/* One more NVIDIA GPU on the PCI bus than NVML lists: gpu-missing names its bus id; the
 * GPU's audio function and another vendor's device are not counted; --expect-gpus */
static void test_gpu_missing_and_gauges(void **state)
{
	struct run_result r;

	(void)state;
	host("");
	pci_device("0000:18:00.0", "0x10de", "0x030200");
	pci_device("0000:28:00.0", "0x10de", "0x030200");
	pci_device("0000:38:00.0", "0x10de", "0x030200");
	pci_device("0000:38:00.1", "0x10de", "0x040300");
	pci_device("0000:00:1f.0", "0x8086", "0x030000");
	r = run_env(NULL, NULL, NULL, "--exit-codes=npd", "check", "--no-load", NULL);
	expect(&r, 1, "cudoctor: error gpu-missing: 0000:38:00.0: an NVIDIA GPU on the PCI bus");
	run_result_free(&r);
	r = run_env(NULL, NULL, NULL, "check", "--no-load", "--format", "prometheus", NULL);
	assert_non_null(strstr(r.out, "cudoctor_gpus_seen{source=\"pci\"} 3\n"));
	assert_non_null(strstr(r.out, "cudoctor_gpus_seen{source=\"nvml\"} 2\n"));
	assert_non_null(strstr(r.out, "cudoctor_gpus_expected 3\n"));
	assert_non_null(strstr(r.out, "cudoctor_gpu_healthy{gpu=\"1\",uuid=\"GPU-"));
	assert_non_null(strstr(r.out, "pci_bus_id=\"0000:28:00.0\"} 1\n"));
	assert_non_null(strstr(r.out, "cudoctor_gpu_recovery_action{gpu=\"0\""));
	run_result_free(&r);
	host(XID79);
	r = run_env(NULL, NULL, NULL, "check", "--no-load", "--expect-gpus", "4", "--format", "prometheus", NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "cudoctor_gpus_expected 4\n"));
	assert_non_null(strstr(r.out, "pci_bus_id=\"0000:28:00.0\"} 0\n"));
	assert_non_null(strstr(r.out, "cudoctor_findings{id=\"gpu-missing\",severity=\"error\"} 1"));
	run_result_free(&r);
}

/* fleet reads each node's check report: its GPU verdicts and count become the node's gauges */
static void test_fleet_gauges(void **state)
{
	char report[512], dir[512], prom[600], script[2048];
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	const char *env[] = { BASE_ENV, "CUDOCTOR_NODE=gpu17", NULL };
	struct run_result r;
	FILE *f;
	size_t n;
	static char text[16384];

	(void)state;
	host(XID79);
	snprintf(report, sizeof report, "%s/gpu17.json", root);
	snprintf(dir, sizeof dir, "%s/prom", root);
	snprintf(script, sizeof script, "'%s' --json check --no-load --expect-gpus 2 > '%s'; '%s' fleet --prometheus '%s' '%s'",
		 CUDOCTOR_BINARY, report, CUDOCTOR_BINARY, dir, report);
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	run_result_free(&r);
	snprintf(prom, sizeof prom, "%s/gpu17.prom", dir);
	f = fopen(prom, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof text - 1, f);
	text[n] = '\0';
	fclose(f);
	assert_non_null(strstr(text, "cudoctor_gpu_healthy{node=\"gpu17\",gpu=\"1\",uuid=\"GPU-"));
	assert_non_null(strstr(text, "pci_bus_id=\"0000:28:00.0\"} 0\n"));
	assert_non_null(strstr(text, "pci_bus_id=\"0000:18:00.0\"} 1\n"));
	assert_non_null(strstr(text, "cudoctor_gpus_seen{node=\"gpu17\",source=\"nvml\"} 2\n"));
	assert_non_null(strstr(text, "cudoctor_gpus_expected{node=\"gpu17\"} 2\n"));
}

/* The shipped NHC module sourced as NHC sources its scripts (*.nhc), beside NHC's own die()
 * (https://github.com/mej/nhc: a check calls `die 1 "message"` and returns; die records the
 * message that becomes the node's drain reason). With `nhc` on PATH it runs there too. */
static void test_nhc_module(void **state)
{
	char script[4096];
	const char *argv[] = { "/bin/bash", "-c", script, NULL };
	const char *env[] = { BASE_ENV, "CUDOCTOR=" CUDOCTOR_BINARY, NULL };
	struct run_result r;

	(void)state;
	host(XID79);
	snprintf(script, sizeof script,
		 "die() { DIE_RC=$1; shift; DIE_MSG=\"$*\"; return 0; }\n"
		 ". '%s/share/nhc/cudoctor.nhc'\n"
		 "check_cudoctor; echo \"rc=$? die=$DIE_RC msg=$DIE_MSG\"\n"
		 "DIE_MSG=; check_cudoctor --no-load xid-errors; echo \"rc=$? msg=$DIE_MSG\"\n"
		 "DIE_MSG=; check_cudoctor --bogus; echo \"rc=$? msg=$DIE_MSG\"\n"
		 "DIE_MSG=; CUDOCTOR=/nonexistent/cudoctor check_cudoctor; echo \"rc=$? msg=$DIE_MSG\"\n",
		 CUDOCTOR_SOURCE_DIR);
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	if (!strstr(r.out, "rc=1 die=1 msg=cudoctor: xid-errors: GPU 1 (NVIDIA H200): the driver logged an Xid error\n") ||
	    !strstr(r.out, "rc=0 msg=\n") || !strstr(r.out, "rc=1 msg=check_cudoctor: unknown option --bogus\n") ||
	    !strstr(r.out, "rc=1 msg=cudoctor: unknown: /nonexistent/cudoctor cannot be run\n"))
		fail_msg("the NHC module: %s\nstderr: %s", r.out, r.err);
	run_result_free(&r);
	/* the real nhc, where one is installed */
	snprintf(script, sizeof script,
		 "command -v nhc >/dev/null || exit 77\n"
		 "d=$(mktemp -d); mkdir \"$d/scripts\"; cp '%s/share/nhc/cudoctor.nhc' \"$d/scripts/\"\n"
		 "echo '* || check_cudoctor' > \"$d/nhc.conf\"\n"
		 "nhc -d -c \"$d/nhc.conf\" -D \"$d/scripts\" NHC_RM= MARK_OFFLINE=0 2>&1; rc=$?; rm -rf \"$d\"; exit $rc\n",
		 CUDOCTOR_SOURCE_DIR);
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	if (r.status != 77 && (r.status == 0 || !strstr(r.out, "cudoctor: xid-errors")))
		fail_msg("nhc with the module: status %d: %s", r.status, r.out);
	run_result_free(&r);
}

/* The shipped node-problem-detector config: a permanent GPUUnhealthy condition and a
 * temporary event, both bounded; its command, run here, keeps NPD's contract (0 OK,
 * 1 NonOK, 2 Unknown, the message a first line of at most max_output_length) */
static void test_npd_plugin_contract(void **state)
{
	json_error_t e;
	json_t *j = json_load_file(CUDOCTOR_SOURCE_DIR "/share/npd/cudoctor-gpu.json", 0, &e), *rule, *args;
	const char *argv[16] = { CUDOCTOR_BINARY };
	const char *env[] = { BASE_ENV, "FAKE_NVML_CLOCK_REASONS=1:0x40", NULL };
	bool permanent = false, temporary = false;
	struct run_result r;
	size_t i, n = 1;

	(void)state;
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "plugin")), "custom");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "pluginConfig"), "max_output_length")), 80);
	assert_non_null(json_object_get(json_object_get(j, "pluginConfig"), "timeout"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "conditions"), 0), "type")),
			    "GPUUnhealthy");
	json_array_foreach(json_object_get(j, "rules"), i, rule) {
		const char *type = json_string_value(json_object_get(rule, "type"));

		permanent |= strcmp(type, "permanent") == 0 &&
			     strcmp(json_string_value(json_object_get(rule, "condition")), "GPUUnhealthy") == 0;
		temporary |= strcmp(type, "temporary") == 0;
		assert_non_null(json_object_get(rule, "timeout"));
	}
	assert_true(permanent && temporary);
	args = json_object_get(json_array_get(json_object_get(j, "rules"), 0), "args");
	json_array_foreach(args, i, rule)
		if (n < 14)
			argv[n++] = json_string_value(rule);
	argv[n] = NULL;
	/* warn: OK with its message; error: NonOK; could not check: Unknown */
	host("");
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	expect(&r, 0, "cudoctor: warn clocks-throttled");
	run_result_free(&r);
	host(XID79);
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	expect(&r, 1, "cudoctor: error xid-errors");
	run_result_free(&r);
	env[sizeof env / sizeof env[0] - 2] = "CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1";
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	if (r.status != 1 || strlen(first_line(r.out, (char[128]){ 0 }, 128)) == 0)
		fail_msg("no driver: %d %s", r.status, r.out);
	run_result_free(&r);
	argv[n++] = "--bogus";
	argv[n] = NULL;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	expect(&r, 2, "cudoctor: unknown: ");
	run_result_free(&r);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_code_contracts),
		cmocka_unit_test(test_timeout_names_the_hung_call),
		cmocka_unit_test(test_slurm_drain_and_resume),
		cmocka_unit_test(test_recovery_action_and_drain_state),
		cmocka_unit_test(test_gpu_missing_and_gauges),
		cmocka_unit_test(test_fleet_gauges),
		cmocka_unit_test(test_nhc_module),
		cmocka_unit_test(test_npd_plugin_contract),
	};

	return cmocka_run_group_tests(tests, make_root, remove_root);
}
