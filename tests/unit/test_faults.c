/* Every command through every fault class of cudoctor_faults (cudoctor with os/sys.h's calls
 * and its allocations made to fail, tests/faults/inject.c): the documented exit status, one
 * line on stderr when it fails, no --output file left behind, nothing a sanitizer reports.
 * Prints the table of command x fault class. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "testlib.h"

#define FAKE_CUDA CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define FAKE_NVML CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"
#define ARCH_FIXTURE CUDOCTOR_FIXTURES_DIR "/arch/k_exe"

static char dir[64], report_a[128], report_b[128], scratch[128];

/* The commands, each on an input of its own kind: a real nvcc binary for arch, a corpus text for
 * explain, two reports for diff and fleet, the fake driver for the rest. */
struct command {
	const char *name;
	const char *argv[10]; /* "@A" and "@B" are the two reports */
};

static const struct command commands[] = {
	{ "doctor", { "doctor" } },
	{ "devices", { "devices" } },
	{ "arch", { "arch", ARCH_FIXTURE } },
	{ "explain", { "explain", CUDOCTOR_SOURCE_DIR "/tests/explain/002.txt" } },
	{ "mem", { "mem", "status" } },
	{ "diff", { "diff", "@A", "@B" } },
	{ "fleet", { "fleet", "@A", "@B" } },
	{ "plan", { "plan", "--gpu", "RTX 4060 Ti", "--gpu", "H200", "--driver", "570" } },
	{ "gencode", { "gencode", "--gpu", "RTX 4060 Ti", "--gpu", "H200" } },
	{ "kb", { "kb", "torch", "2.7" } },
	{ "topo", { "topo" } },
	{ "check", { "check", "--no-load" } },
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

/* What each class must leave: TRANSPARENT the same report as without it (the OS layer absorbs
 * it: os_read loops, EINTR is retried, a task runs on the caller, a file that cannot be mapped
 * is read); FAILS exit 3 with one line and no file; MAY_FAIL the same exit as without it and a
 * whole file, or FAILS; INPUT as MAY_FAIL, but exit 3 may keep the report, which says which
 * input could not be read (docs/commands.md: exit 3, "an input could not be read"); NO_DRIVER
 * a whole report, exit 0 or 1 (a driver that cannot load is a finding, not a failure). */
enum expect { TRANSPARENT, FAILS, MAY_FAIL, INPUT, NO_DRIVER };

static const struct fault_class {
	const char *name;
	enum expect expect;
} classes[] = {
	{ "short", TRANSPARENT }, { "eintr", TRANSPARENT }, { "thread", TRANSPARENT }, { "enomem", MAY_FAIL },
	{ "enospc", FAILS },	  { "eacces", INPUT },   { "mmap", TRANSPARENT },     { "dlopen", NO_DRIVER },
};
#define N_CLASSES (sizeof classes / sizeof classes[0])

struct outcome {
	int status;
	char *err;
	char *file; /* the --output file, NULL when there is none */
	bool stray; /* anything else left in the scratch folder (a temporary) */
};

static void outcome_free(struct outcome *o)
{
	free(o->err);
	free(o->file);
	memset(o, 0, sizeof *o);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			char *p = realloc(buf, cap = cap * 2 + 4096);
			if (!p)
				break;
			buf = p;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* Runs cudoctor_faults (or cudoctor) with --output into the empty scratch folder; fault NULL:
 * none. counts: the file the allocations are counted into, or NULL. */
static void run(const char *binary, const struct command *c, const char *fault, const char *counts, struct outcome *o)
{
	char out_path[192], fault_env[64], counts_env[192];
	const char *argv[16] = { binary, "--output", out_path };
	const char *env[24];
	struct run_result res;
	size_t a = 3, n = 0;
	DIR *d;
	struct dirent *e;

	snprintf(out_path, sizeof out_path, "%s/out", scratch);
	for (size_t i = 0; c->argv[i] && a + 1 < 16; i++)
		argv[a++] = !strcmp(c->argv[i], "@A") ? report_a : !strcmp(c->argv[i], "@B") ? report_b : c->argv[i];
	argv[a] = NULL;
	snprintf(fault_env, sizeof fault_env, "CUDOCTOR_FAULT=%s", fault ? fault : "");
	snprintf(counts_env, sizeof counts_env, "CUDOCTOR_FAULT_COUNTS=%s", counts ? counts : "");
	env[n++] = fault_env;
	env[n++] = counts_env;
	env[n++] = "CUDOCTOR_LIBCUDA=" FAKE_CUDA;
	env[n++] = "CUDOCTOR_LIBNVML=" FAKE_NVML;
	env[n++] = "FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA H200:9.0:141GiB";
	env[n++] = "CUDA_VISIBLE_DEVICES=";
	env[n++] = "CUDOCTOR_NODE=node01";
	env[n++] = "CUDA_HOME=";
	env[n++] = "CUDA_PATH=";
	env[n++] = "LD_LIBRARY_PATH=";
	env[n++] = "PATH=/usr/bin:/bin";
	env[n++] = "NO_COLOR=1";
	env[n++] = "SOURCE_DATE_EPOCH=1796601600"; /* one date in every report */
	env[n] = NULL;
	assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	memset(o, 0, sizeof *o);
	o->status = res.status;
	o->err = res.err;
	res.err = NULL;
	/* stdout goes to the file: anything here is a second copy */
	if (res.out && res.out[0])
		o->stray = true;
	run_result_free(&res);
	o->file = slurp(out_path);
	unlink(out_path);
	assert_non_null(d = opendir(scratch));
	while ((e = readdir(d))) {
		char p[512];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		o->stray = true;
		snprintf(p, sizeof p, "%s/%s", scratch, e->d_name);
		unlink(p);
	}
	closedir(d);
}

static size_t lines(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

/* Why o is wrong for class cl (base: the run without a fault), into why; true when it is right. */
static bool judge(const struct fault_class *cl, const struct outcome *base, const struct outcome *o, char *why,
		  size_t cap)
{
	bool failed = o->status == 3;

	if (o->status >= 128)
		return snprintf(why, cap, "killed by signal %d", o->status - 128), false;
	if (o->err && (strstr(o->err, "Sanitizer") || strstr(o->err, "runtime error:")))
		return snprintf(why, cap, "sanitizer: %.200s", strstr(o->err, "ERROR") ? strstr(o->err, "ERROR") : o->err),
		       false;
	if (o->stray)
		return snprintf(why, cap, "a file beside --output's, or bytes on stdout"), false;
	if (failed) {
		if (cl->expect == TRANSPARENT || cl->expect == NO_DRIVER)
			return snprintf(why, cap, "exit 3: %.200s", o->err ? o->err : ""), false;
		if (o->file && cl->expect != INPUT)
			return snprintf(why, cap, "exit 3 and --output's file written"), false;
		/* "cudoctor: why" or "cudoctor COMMAND: why" */
		if (lines(o->err) != 1 || strncmp(o->err, "cudoctor", 8) != 0 || !strchr(o->err, ':'))
			return snprintf(why, cap, "exit 3 with %zu lines on stderr: %.300s", lines(o->err), o->err), false;
		return true;
	}
	if (cl->expect == FAILS)
		return snprintf(why, cap, "exit %d, not 3", o->status), false;
	if (!o->file || !o->file[0])
		return snprintf(why, cap, "exit %d and no --output file", o->status), false;
	if (cl->expect == NO_DRIVER) {
		if (o->status > 1)
			return snprintf(why, cap, "exit %d", o->status), false;
		return true;
	}
	if (o->status != base->status)
		return snprintf(why, cap, "exit %d, %d without the fault: %.200s", o->status, base->status, o->err), false;
	if (cl->expect == TRANSPARENT && strcmp(o->file, base->file) != 0)
		return snprintf(why, cap, "a report unlike the one without the fault"), false;
	return true;
}

static unsigned long long read_count(const char *path, const char *what)
{
	char *text = slurp(path), *p;
	unsigned long long n = 0;
	size_t len = strlen(what);

	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if (!strncmp(p, what, len) && p[len] == ' ')
			n = strtoull(p + len + 1, NULL, 10);
	free(text);
	return n;
}

/* Where the allocation fault is placed: the first few, then spread over the run's
 * allocations (CUDOCTOR_FAULTS_ENOMEM_POINTS of them, 8 unless set; a larger number sweeps). */
static size_t enomem_points(unsigned long long total, unsigned long long **points)
{
	const char *env = getenv("CUDOCTOR_FAULTS_ENOMEM_POINTS");
	size_t spread = env ? strtoul(env, NULL, 10) : 8, n = 0, max = spread + 3;
	unsigned long long *at = calloc(max, sizeof *at);

	assert_non_null(at);
	*points = at;

	for (unsigned long long k = 1; k <= 3 && k <= total && n < max; k++)
		at[n++] = k;
	for (size_t i = 1; i <= spread && n < max; i++) {
		unsigned long long k = total * i / spread;

		if ((n == 0 || k > at[n - 1]) && k <= total)
			at[n++] = k;
	}
	return n;
}

static void test_every_command_every_fault(void **state)
{
	char cell[N_COMMANDS][N_CLASSES][8], why[512], counts[160], spec[48];
	unsigned long long allocs[N_COMMANDS] = { 0 };
	size_t bad = 0, enomem_runs[N_COMMANDS] = { 0 };

	(void)state;
	snprintf(counts, sizeof counts, "%s.counts", scratch);
	for (size_t c = 0; c < N_COMMANDS; c++) {
		struct outcome base, again;
		const char *only = getenv("CUDOCTOR_FAULTS_ONLY"); /* one command, to sweep it alone */

		if (only && strcmp(only, commands[c].name) != 0) {
			for (size_t k = 0; k < N_CLASSES; k++)
				snprintf(cell[c][k], sizeof cell[c][k], "-");
			continue;
		}

		run(CUDOCTOR_FAULTS_BINARY, &commands[c], NULL, counts, &base);
		/* the test binary itself, with no fault, is cudoctor */
		run(CUDOCTOR_BINARY, &commands[c], NULL, NULL, &again);
		if (base.status > 1 || !base.file || again.status != base.status)
			fail_msg("%s: exit %d (cudoctor: %d) without a fault: %s", commands[c].name, base.status,
				 again.status, base.err);
		outcome_free(&again);
		for (size_t k = 0; k < N_CLASSES; k++) {
			const struct fault_class *cl = &classes[k];
			unsigned long long one = 1, *at = &one, *points = NULL;
			size_t n_at = 1;
			bool ok = true;

			if (!strcmp(cl->name, "enomem")) {
				allocs[c] = read_count(counts, "alloc");
				n_at = enomem_runs[c] = enomem_points(allocs[c], &points);
				at = points;
			}
			for (size_t i = 0; i < n_at && ok; i++) {
				struct outcome o;

				snprintf(spec, sizeof spec, "%s@%llu", cl->name, at[i]);
				run(CUDOCTOR_FAULTS_BINARY, &commands[c], spec, NULL, &o);
				if (!(ok = judge(cl, &base, &o, why, sizeof why))) {
					print_message("%s under %s: %s\n", commands[c].name, spec, why);
					bad++;
				}
				outcome_free(&o);
			}
			free(points);
			snprintf(cell[c][k], sizeof cell[c][k], "%s", ok ? "pass" : "FAIL");
		}
		outcome_free(&base);
	}
	unlink(counts);
	print_message("| command |");
	for (size_t k = 0; k < N_CLASSES; k++)
		print_message(" %s |", classes[k].name);
	print_message(" allocations (enomem runs) |\n|---|");
	for (size_t k = 0; k < N_CLASSES; k++)
		print_message("---|");
	print_message("---|\n");
	for (size_t c = 0; c < N_COMMANDS; c++) {
		print_message("| %s |", commands[c].name);
		for (size_t k = 0; k < N_CLASSES; k++)
			print_message(" %s |", cell[c][k]);
		print_message(" %llu (%zu) |\n", allocs[c], enomem_runs[c]);
	}
	assert_int_equal(bad, 0);
}

static char *cudoctor_json(const char *const extra[])
{
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "doctor", NULL };
	const char *env[16];
	struct run_result res;
	size_t n = 0;
	char *out;

	env[n++] = "CUDOCTOR_LIBCUDA=" FAKE_CUDA;
	env[n++] = "CUDOCTOR_LIBNVML=" FAKE_NVML;
	env[n++] = "CUDA_VISIBLE_DEVICES=";
	for (size_t i = 0; extra[i] && n + 1 < 16; i++)
		env[n++] = extra[i];
	env[n] = NULL;
	assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	out = res.out;
	res.out = NULL;
	run_result_free(&res);
	return out;
}

static void save(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	const char *const a[] = { "FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA H200:9.0:141GiB", "CUDOCTOR_NODE=node01", NULL };
	const char *const b[] = { "FAKE_GPUS=NVIDIA H200:9.0:141GiB", "FAKE_NVML_DRIVER_VERSION=535.104.05",
				  "FAKE_CUDA_DRIVER_VERSION=12020", "CUDOCTOR_NODE=node02", NULL };
	char *s;

	(void)state;
	snprintf(dir, sizeof dir, "/tmp/cudoctor-faults-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(report_a, sizeof report_a, "%s/node01.json", dir);
	snprintf(report_b, sizeof report_b, "%s/node02.json", dir);
	snprintf(scratch, sizeof scratch, "%s/scratch", dir);
	if (mkdir(scratch, 0700) != 0)
		return -1;
	save(report_a, s = cudoctor_json(a)), free(s);
	save(report_b, s = cudoctor_json(b)), free(s);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(report_a);
	unlink(report_b);
	rmdir(scratch);
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_command_every_fault),
	};

	if (access(ARCH_FIXTURE, R_OK) != 0) {
		fprintf(stderr, "test_faults: %s not built (no nvcc): skipped\n", ARCH_FIXTURE);
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
