/* Output files (util/outfile.c) and every writer that uses them: --output onto a FIFO, a
 * character device made with mknod, a 0600 file of another owner, a planted symlink, a
 * planted NODE.prom.tmp for fleet --prometheus; no temporary left behind; stdout on a full
 * disk (/dev/full). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"
#include "util/err.h"
#include "util/outfile.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/cudoctor-outfile-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_in(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *read_text(const char *path)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "r");
	size_t n;
	assert_non_null(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* No ".NAME.XXXXXX.tmp" left in d. */
static void no_temporary_in(const char *d)
{
	DIR *dd = opendir(d);
	struct dirent *de;
	assert_non_null(dd);
	while ((de = readdir(dd)))
		if (de->d_name[0] == '.' && strstr(de->d_name, ".tmp"))
			fail_msg("temporary %s/%s left behind", d, de->d_name);
	closedir(dd);
}

static int run_cudoctor(const char *const *args, const char *const *env, struct run_result *res)
{
	const char *argv[16] = { CUDOCTOR_BINARY };
	size_t n = 1;
	for (size_t i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	assert_int_equal(testlib_run(argv, env, NULL, res), 0);
	return res->status;
}

static void test_new_file_gets_umask_mode(void **state)
{
	char p[128], err[CD_ERRMSG];
	struct stat st;
	mode_t old = umask(027);
	(void)state;
	path_in(p, sizeof p, "new.txt");
	assert_int_equal(outfile_write_all(p, "--test", "hello\n", 6, err), CD_OK);
	umask(old);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_string_equal(read_text(p), "hello\n");
	no_temporary_in(dir);
}

static void test_abort_leaves_target_and_no_temporary(void **state)
{
	char p[128], err[CD_ERRMSG];
	struct outfile o;
	(void)state;
	path_in(p, sizeof p, "kept.txt");
	write_text(p, "old\n");
	assert_int_equal(outfile_open(&o, p, "--test", err), CD_OK);
	assert_non_null(o.tmp);
	assert_int_equal(write(o.fd, "half", 4), 4);
	outfile_abort(&o);
	assert_string_equal(read_text(p), "old\n");
	no_temporary_in(dir);
	/* a directory and a dangling symlink are refused, naming what they are */
	assert_int_equal(outfile_open(&o, dir, "--test", err), CD_EIO);
	assert_non_null(strstr(err, "a directory"));
	path_in(p, sizeof p, "dangling");
	assert_int_equal(symlink("/nonexistent/cudoctor-target", p), 0);
	assert_int_equal(outfile_open(&o, p, "--test", err), CD_EIO);
	assert_non_null(strstr(err, "does not exist"));
}

/* `cudoctor --output FIFO` writes into the FIFO, which stays a FIFO. */
static void test_output_onto_fifo(void **state)
{
	char p[128], buf[8192];
	struct run_result res;
	struct stat st;
	ssize_t n;
	int rfd;
	(void)state;
	path_in(p, sizeof p, "pipe");
	assert_int_equal(mkfifo(p, 0600), 0);
	rfd = open(p, O_RDONLY | O_NONBLOCK); /* the reader is there before cudoctor starts */
	assert_true(rfd >= 0);
	{
		const char *args[] = { "--output", p, "kb", "gpu", "H200", NULL };
		assert_int_equal(run_cudoctor(args, NULL, &res), 0);
	}
	n = read(rfd, buf, sizeof buf - 1);
	assert_true(n > 0);
	buf[n] = 0;
	assert_non_null(strstr(buf, "H200"));
	close(rfd);
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	run_result_free(&res);
	/* no reader: refused at once (exit 3, one line) instead of waiting forever */
	{
		const char *args[] = { "--output", p, "kb", "gpu", "H200", NULL };
		assert_int_equal(run_cudoctor(args, NULL, &res), 3);
	}
	assert_non_null(strstr(res.err, "a FIFO with no reader"));
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	run_result_free(&res);
	no_temporary_in(dir);
}

/* A character device (a /dev/null of our own, mknod 1,3) is written in place, never replaced. */
static void test_output_onto_char_device(void **state)
{
	char p[128];
	struct run_result res;
	struct stat st;
	(void)state;
	path_in(p, sizeof p, "null");
	if (mknod(p, S_IFCHR | 0666, makedev(1, 3)) != 0) {
		print_message("cannot mknod a character device here (%s): not tested\n", strerror(errno));
		skip();
	}
	{
		const char *args[] = { "--output", p, "kb", "gpu", "H200", NULL };
		assert_int_equal(run_cudoctor(args, NULL, &res), 0);
	}
	assert_string_equal(res.err, "");
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(major(st.st_rdev), 1);
	assert_int_equal(minor(st.st_rdev), 3);
	run_result_free(&res);
	no_temporary_in(dir);
}

/* An existing 0600 file keeps its mode, and (as root) its owner. */
static void test_output_keeps_mode_and_owner(void **state)
{
	char p[128];
	struct run_result res;
	struct stat st;
	bool root = geteuid() == 0;
	(void)state;
	path_in(p, sizeof p, "private.txt");
	write_text(p, "old\n");
	assert_int_equal(chmod(p, 0600), 0);
	if (root)
		assert_int_equal(chown(p, 65534, 65534), 0);
	{
		const char *args[] = { "-o", p, "kb", "gpu", "H200", NULL };
		assert_int_equal(run_cudoctor(args, NULL, &res), 0);
	}
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	if (root) {
		assert_int_equal(st.st_uid, 65534);
		assert_int_equal(st.st_gid, 65534);
	}
	assert_non_null(strstr(read_text(p), "H200"));
	run_result_free(&res);
	/* a usage error leaves the file as it was, and no temporary */
	{
		const char *args[] = { "-o", p, "kb", "gpu", "--no-such-option", NULL };
		assert_int_equal(run_cudoctor(args, NULL, &res), 2);
	}
	assert_non_null(strstr(read_text(p), "H200"));
	run_result_free(&res);
	no_temporary_in(dir);
}

/* A symlink someone else planted in a sticky world-writable directory is refused (--output
 * and --html); the caller's own symlink is followed and stays a link. */
static void test_planted_symlink_refused(void **state)
{
	char sticky[128], link[160], victim[128], own[128];
	struct run_result res;
	struct stat st;
	(void)state;
	if (geteuid() != 0) {
		print_message("planting a link of another owner needs root: not tested\n");
		skip();
	}
	path_in(sticky, sizeof sticky, "sticky");
	assert_int_equal(mkdir(sticky, 0777), 0);
	assert_int_equal(chmod(sticky, 01777), 0);
	path_in(victim, sizeof victim, "victim");
	write_text(victim, "secret\n");
	snprintf(link, sizeof link, "%s/report.txt", sticky);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(lchown(link, 65534, 65534), 0);
	{
		const char *args[] = { "--output", link, "kb", "gpu", "H200", NULL };
		assert_int_equal(run_cudoctor(args, NULL, &res), 3);
	}
	assert_non_null(strstr(res.err, "a symlink owned by uid 65534 in a world-writable directory; refused"));
	assert_string_equal(read_text(victim), "secret\n");
	run_result_free(&res);
	{
		const char *args[] = { "--html", link, "kb", "gpu", "H200", NULL };
		assert_int_equal(run_cudoctor(args, NULL, &res), 3);
	}
	assert_non_null(strstr(res.err, "--html"));
	assert_string_equal(read_text(victim), "secret\n");
	run_result_free(&res);
	no_temporary_in(sticky);

	path_in(own, sizeof own, "mine");
	assert_int_equal(symlink(victim, own), 0);
	{
		const char *args[] = { "--output", own, "kb", "gpu", "H200", NULL };
		assert_int_equal(run_cudoctor(args, NULL, &res), 0);
	}
	assert_int_equal(lstat(own, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_non_null(strstr(read_text(victim), "H200"));
	run_result_free(&res);
}

/* A folder symlink planted in a sticky directory leads the write elsewhere as a file link does:
 * /tmp/LINK/report.txt with LINK another user's link to a folder of yours is refused too. */
static void test_planted_folder_symlink_refused(void **state)
{
	char sticky[128], link[160], victim[128], target[200];
	struct run_result res;
	(void)state;
	if (geteuid() != 0) {
		print_message("planting a link of another owner needs root: not tested\n");
		skip();
	}
	path_in(sticky, sizeof sticky, "sticky2");
	assert_int_equal(mkdir(sticky, 0777), 0);
	assert_int_equal(chmod(sticky, 01777), 0);
	path_in(victim, sizeof victim, "victimdir");
	assert_int_equal(mkdir(victim, 0755), 0);
	snprintf(target, sizeof target, "%s/report.txt", victim);
	write_text(target, "secret\n");
	snprintf(link, sizeof link, "%s/d", sticky);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(lchown(link, 65534, 65534), 0);
	snprintf(target, sizeof target, "%s/d/report.txt", sticky);
	{
		const char *args[] = { "--output", target, "kb", "gpu", "H200", NULL };
		assert_int_equal(run_cudoctor(args, NULL, &res), 3);
	}
	if (!strstr(res.err, "/d is a symlink owned by uid 65534 in a world-writable directory; refused"))
		fail_msg("not refused: %s", res.err);
	snprintf(target, sizeof target, "%s/report.txt", victim);
	assert_string_equal(read_text(target), "secret\n");
	no_temporary_in(victim);
	run_result_free(&res);
}

/* The user's own writable file in a folder they may not write: `>` writes it, so --output does
 * too (in place: no temporary can be made beside it). Run as nobody (65534). */
static void test_own_file_in_unwritable_folder(void **state)
{
	char folder[] = "/tmp/cudoctor-outfile-own-XXXXXX", file[96], cmd[160];
	int status;
	pid_t pid;
	(void)state;
	if (geteuid() != 0) {
		print_message("running as another user needs root: not tested\n");
		skip();
	}
	assert_non_null(mkdtemp(folder));
	assert_int_equal(chmod(folder, 0755), 0);
	snprintf(file, sizeof file, "%s/report.txt", folder);
	write_text(file, "old\n");
	assert_int_equal(chown(file, 65534, 65534), 0);
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(97);
		execl(CUDOCTOR_BINARY, "cudoctor", "--output", file, "kb", "gpu", "H200", (char *)NULL);
		_exit(98);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_non_null(strstr(read_text(file), "H200"));
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
	assert_int_equal(system(cmd), 0);
}

/* fleet --prometheus DIR: a NODE.prom.tmp link planted in DIR is never written through. */
static void test_fleet_prometheus_ignores_planted_tmp(void **state)
{
	char report[128], prom[128], planted[160], victim[128], written[160];
	struct run_result res;
	const char *const env[] = { "CUDOCTOR_NODE=nodeA", "CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1",
				    "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1", NULL };
	(void)state;
	path_in(report, sizeof report, "nodeA.json");
	{
		const char *args[] = { "--json", "--output", report, "doctor", NULL };
		run_cudoctor(args, env, &res);
		run_result_free(&res);
	}
	path_in(prom, sizeof prom, "prom");
	assert_int_equal(mkdir(prom, 0755), 0);
	path_in(victim, sizeof victim, "victim2");
	write_text(victim, "untouched\n");
	snprintf(planted, sizeof planted, "%s/nodeA.prom.tmp", prom);
	assert_int_equal(symlink(victim, planted), 0);
	{
		const char *args[] = { "fleet", "--prometheus", prom, report, NULL };
		run_cudoctor(args, NULL, &res);
	}
	snprintf(written, sizeof written, "%s/nodeA.prom", prom);
	assert_non_null(strstr(read_text(written), "cudoctor_findings{node=\"nodeA\""));
	assert_string_equal(read_text(victim), "untouched\n");
	run_result_free(&res);
	no_temporary_in(prom);
}

/* Runs cudoctor with stdout on path (/dev/full: every write fails with ENOSPC), or with path
 * NULL on a pipe whose reader has gone and SIGPIPE ignored (as a launcher may leave it:
 * every write fails with EPIPE), and stderr in a file; its exit status, and its stderr in
 * err. */
static int run_stdout_to(const char *path, const char *const *args, char *err, size_t size)
{
	const char *argv[16] = { CUDOCTOR_BINARY };
	char errpath[128];
	size_t n = 1;
	int status;
	pid_t pid;
	FILE *f;

	for (size_t i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	path_in(errpath, sizeof errpath, "stderr.txt");
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		int out = -1, e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600), p[2];

		if (path) {
			out = open(path, O_WRONLY);
		} else if (pipe(p) == 0) {
			close(p[0]);
			out = p[1];
			signal(SIGPIPE, SIG_IGN);
		}
		if (out < 0 || e < 0 || dup2(out, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_non_null(f = fopen(errpath, "r"));
	n = fread(err, 1, size - 1, f);
	err[n] = '\0';
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* stdout that cannot be written (a full disk) is an error, exit 3 with its reason, for the
 * report and for what is printed before any report: --version and the help (which said
 * nothing and exited 0), and completion json (which said "out of memory"). */
static void test_stdout_write_error(void **state)
{
	static const char *const runs[][4] = {
		{ "--version", NULL }, { "--help", NULL }, { "help", "arch", NULL }, { "arch", "-h", NULL },
		{ "completion", "json", NULL }, { "kb", "gpu", NULL }, { "--json", "kb", "toolkit", NULL },
	};
	char err[4096];
	(void)state;
	if (access("/dev/full", W_OK) != 0)
		skip();
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		assert_int_equal(run_stdout_to("/dev/full", runs[i], err, sizeof err), 3);
		if (!strstr(err, "to stdout: No space left on device"))
			fail_msg("%s %s: %s", runs[i][0], runs[i][1] ? runs[i][1] : "", err);
	}
}

/* `| head -1` where SIGPIPE is ignored: the reader went away, which is no error worth a line
 * (it said "cannot write the report"); the status is not success. */
static void test_stdout_reader_gone(void **state)
{
	static const char *const runs[][4] = { { "kb", "gpu", NULL }, { "--json", "kb", "toolkit", NULL } };
	char err[4096];
	(void)state;
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		assert_int_equal(run_stdout_to(NULL, runs[i], err, sizeof err), 3);
		assert_string_equal(err, "");
	}
}

/* An empty --output is a usage error, as an empty --html is (it was exit 3, "an input could
 * not be read") */
static void test_empty_output_name(void **state)
{
	const char *const runs[][5] = { { "--output=", "kb", "gpu", "H200", NULL }, { "-o", "", "kb", "gpu", NULL } };
	struct run_result r;
	(void)state;
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		assert_int_equal(run_cudoctor(runs[i], NULL, &r), 2);
		assert_string_equal(r.err, "cudoctor kb: --output wants a file name\nTry 'cudoctor kb --help'.\n");
		assert_string_equal(r.out, "");
		run_result_free(&r);
	}
}

/* `-o -` is stdout, as for every tool that takes an output file; no file named "-" */
static void test_output_dash_is_stdout(void **state)
{
	const char *args[] = { "-o", "-", "kb", "gpu", "H200", NULL };
	struct run_result r;
	struct stat st;
	(void)state;
	unlink("-");
	assert_int_equal(run_cudoctor(args, NULL, &r), 0);
	assert_non_null(strstr(r.out, "H200"));
	assert_int_not_equal(stat("-", &st), 0);
	run_result_free(&r);
}

/* Ctrl-C (or SIGTERM) while --output's temporary is open: the run ends by that signal and
 * the temporary goes with it (it was left behind, .out.txt.XXXXXX.tmp). explain waits on a
 * stdin pipe kept open, so the signal comes while the file is open, whatever the load. */
static void test_interrupt_leaves_no_temporary(void **state)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	char out[128], opt[160];
	(void)state;
	path_in(out, sizeof out, "out.txt");
	snprintf(opt, sizeof opt, "--output=%s", out);
	for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
		const char *argv[] = { CUDOCTOR_BINARY, opt, "explain", "--offline", NULL };
		int in[2], status, waited = 0;
		bool seen = false;
		pid_t pid;

		assert_int_equal(pipe(in), 0);
		assert_true((pid = fork()) >= 0);
		if (pid == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			if (dup2(in[0], 0) < 0)
				_exit(126);
			close(in[1]);
			execv(argv[0], (char *const *)argv);
			_exit(127);
		}
		close(in[0]);
		/* until the temporary is there (a hang guard: it appears at once) */
		while (!seen && waited++ < 3000) {
			DIR *dd = opendir(dir);
			struct dirent *de;

			assert_non_null(dd);
			while ((de = readdir(dd)))
				seen |= de->d_name[0] == '.' && strstr(de->d_name, ".tmp") != NULL;
			closedir(dd);
			if (!seen)
				usleep(10000);
		}
		assert_true(seen);
		assert_int_equal(kill(pid, sigs[k]), 0);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		close(in[1]);
		assert_true(WIFSIGNALED(status));
		assert_int_equal(WTERMSIG(status), sigs[k]);
		no_temporary_in(dir);
		assert_int_equal(access(out, F_OK), -1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_file_gets_umask_mode),
		cmocka_unit_test(test_abort_leaves_target_and_no_temporary),
		cmocka_unit_test(test_output_onto_fifo),
		cmocka_unit_test(test_output_onto_char_device),
		cmocka_unit_test(test_output_keeps_mode_and_owner),
		cmocka_unit_test(test_planted_symlink_refused),
		cmocka_unit_test(test_planted_folder_symlink_refused),
		cmocka_unit_test(test_own_file_in_unwritable_folder),
		cmocka_unit_test(test_fleet_prometheus_ignores_planted_tmp),
		cmocka_unit_test(test_stdout_write_error),
		cmocka_unit_test(test_stdout_reader_gone),
		cmocka_unit_test(test_empty_output_name),
		cmocka_unit_test(test_output_dash_is_stdout),
		cmocka_unit_test(test_interrupt_leaves_no_temporary),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
