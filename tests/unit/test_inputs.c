/* Inputs are opened safely: a FIFO, a socket and a device are named and skipped within a
 * second (none can block the tool), a missing input never exits 0 (arch, doctor, fleet) and is named
 * once, and input errors reach
 * stderr whatever the output format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"
#include "util/err.h"
#include "util/file.h"

static char dir[] = "/tmp/cudoctor-inputs-XXXXXX";
static char fifo[64], sock[64];
static int sock_fd = -1;

static int setup(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(sock, sizeof(sock), "%s/sock", dir);
	if (mkfifo(fifo, 0600) != 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	sock_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (sock_fd < 0 || bind(sock_fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	close(sock_fd);
	unlink(fifo);
	unlink(sock);
	rmdir(dir);
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs cudoctor ARGS with the input substituted for "@"; it must not wait on the input. */
static struct run_result run_on(const char *input, const char *const *args)
{
	const char *argv[16] = { CUDOCTOR_BINARY };
	const char *env[] = { "CUDOCTOR_LIBCUDA=/nonexistent", "CUDOCTOR_LIBNVML=/nonexistent",
			      "COLUMNS=9999", NULL }; /* lines read whole, not wrapped */
	struct run_result r;
	size_t n = 1;
	double t0 = now();

	for (; *args && n < 15; args++)
		argv[n++] = strcmp(*args, "@") == 0 ? input : *args;
	argv[n] = NULL;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	/* a run that opens the FIFO blocks until ctest's limit ends it; this bound, far past any
	 * load's slowdown, names a run that waited on an input and then went on */
	if (now() - t0 > 30.0)
		fail_msg("cudoctor %s waited on %s (%.1f s)", argv[1], input, now() - t0);
	return r;
}

static void check_refused(const char *input, const char *kind)
{
	static const char *const c0[] = { "arch", "--gpu", "sm_90", "@", NULL };
	static const char *const c1[] = { "--json", "arch", "--gpu", "sm_90", "@", NULL };
	static const char *const c2[] = { "mem", "estimate", "@", NULL };
	static const char *const c3[] = { "mem", "status", "--oom", "@", NULL };
	static const char *const c4[] = { "explain", "--gpu", "sm_90", "--binary", "@", "CUDA error 209", NULL };
	static const char *const *const cases[] = { c0, c1, c2, c3, c4 };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run_result r = run_on(input, cases[i]);
		char want[160];

		snprintf(want, sizeof(want), "%s: %s, not a regular file; skipped", input, kind);
		if (strcmp(cases[i][0], "explain") == 0)
			assert_non_null(strstr(r.out, want)); /* the binary's check says it was skipped */
		if (!strstr(r.err, want))
			fail_msg("cudoctor %s %s: stderr lacks '%s': %s", cases[i][0], cases[i][1], want, r.err);
		assert_int_equal(r.status, 3);
		run_result_free(&r);
	}
}

static void test_fifo_is_named_and_skipped(void **state)
{
	(void)state;
	check_refused(fifo, "a FIFO (named pipe)");
}

static void test_socket_is_named_and_skipped(void **state)
{
	(void)state;
	check_refused(sock, "a socket");
}

static void test_device_is_named_and_skipped(void **state)
{
	(void)state;
	check_refused("/dev/zero", "a character device");
}

/* one good input and one missing: the missing one decides the exit status */
static void test_missing_input_is_not_a_clean_run(void **state)
{
	struct run_result r = run_on("/nonexistent/lib.so",
				     (const char *const[]){ "arch", "--gpu", "sm_90", "/bin/sh", "@", NULL });

	(void)state;
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "cudoctor arch: /nonexistent/lib.so: No such file or directory"));
	run_result_free(&r);
	r = run_on("", (const char *const[]){ "arch", "--gpu", "sm_90", "@", NULL });
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "'' is an empty file name"));
	run_result_free(&r);
	/* a name with an escape sequence and a byte that is not UTF-8: named once, made safe
	 * (the name was written twice when it held such bytes) */
	r = run_on("/nonexistent/a\033[31mb\xff", (const char *const[]){ "arch", "--gpu", "sm_90", "@", NULL });
	assert_int_equal(r.status, 3);
	assert_string_equal(r.err, "cudoctor arch: /nonexistent/a\\x1b[31mb\\xff: No such file or directory\n");
	run_result_free(&r);
	/* doctor --binary/--path: said as arch says it and exit 3, doctor still run (it was a
	 * usage error, exit 2, "not a readable file", whatever the reason) */
	r = run_on("/nonexistent/app.exe", (const char *const[]){ "doctor", "--binary", "@", "--path", "/bin/sh", NULL });
	assert_int_equal(r.status, 3);
	assert_string_equal(r.err, "cudoctor doctor: /nonexistent/app.exe: No such file or directory\n"
				   "cudoctor doctor: --path /bin/sh: not a directory (--binary judges one file)\n");
	assert_non_null(strstr(r.out, "no-driver"));
	run_result_free(&r);
	/* fleet: a report file that is not there is named on stderr, once in the finding, and
	 * the run exits 3 (it exited 0, with "0 reported") */
	r = run_on("/nonexistent/node1.json", (const char *const[]){ "fleet", "@", NULL });
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "cudoctor fleet: /nonexistent/node1.json: No such file or directory"));
	assert_non_null(strstr(r.out, "evidence: /nonexistent/node1.json: No such file or directory\n"));
	run_result_free(&r);
}

/* explain reading a stdin that is closed (`<&-`) or a directory: why, and what to give
 * instead, in one line, exit 3 (it said "reading stdin failed") */
static void test_explain_stdin_unreadable(void **state)
{
	static const char *const argv[] = { CUDOCTOR_BINARY, "explain", "--offline", NULL };
	char errpath[96], err[1024];
	int status;
	size_t n;
	pid_t pid;
	FILE *f;

	(void)state;
	for (int closed = 0; closed < 2; closed++) {
		snprintf(errpath, sizeof errpath, "%s/stderr.txt", dir);
		assert_true((pid = fork()) >= 0);
		if (pid == 0) {
			int e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600), o = open("/dev/null", O_WRONLY);

			if (e < 0 || o < 0 || dup2(e, 2) < 0 || dup2(o, 1) < 0)
				_exit(126);
			close(0);
			if (!closed && open("/", O_RDONLY) != 0) /* fd 0: a directory */
				_exit(126);
			execv(argv[0], (char *const *)argv);
			_exit(127);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 3);
		assert_non_null(f = fopen(errpath, "r"));
		n = fread(err, 1, sizeof err - 1, f);
		err[n] = '\0';
		fclose(f);
		assert_non_null(strstr(err, closed ? "cudoctor explain: cannot read stdin (Bad file descriptor): give the text"
						   : "cudoctor explain: cannot read stdin (Is a directory): give the text"));
		assert_int_equal(strchr(err, '\n') - err + 1, (long)strlen(err)); /* one line */
	}
}

/* explain with one operand naming a folder: said to be one, exit 3 (it was explained as the
 * text "logs": "no CUDA error", exit 0) */
static void test_explain_folder_operand(void **state)
{
	char folder[96];
	struct run_result r;

	(void)state;
	snprintf(folder, sizeof folder, "%s/logs", dir);
	assert_int_equal(mkdir(folder, 0700), 0);
	assert_int_equal(chdir(dir), 0);
	r = run_on("logs", (const char *const[]){ "explain", "--offline", "@", NULL });
	assert_int_equal(r.status, 3);
	assert_string_equal(r.err, "cudoctor explain: logs: a directory, not a regular file; skipped\n");
	run_result_free(&r);
	assert_int_equal(chdir("/"), 0);
	rmdir(folder);
}

/* A log Windows PowerShell 5.1 wrote (`python train.py 2>&1 > train.log`: UTF-16LE behind a
 * byte order mark), named or piped: its error is found (it was "no CUDA error", exit 0) */
static void test_explain_utf16_log(void **state)
{
	static const char text[] = "Traceback (most recent call last):\r\nRuntimeError: CUDA error: no kernel "
				   "image is available for execution on the device\r\n";
	unsigned char wide[2 + 2 * sizeof text];
	char path[96];
	struct run_result r;
	size_t n = 0;
	FILE *f;

	(void)state;
	wide[n++] = 0xFF;
	wide[n++] = 0xFE;
	for (size_t i = 0; text[i]; i++) {
		wide[n++] = (unsigned char)text[i];
		wide[n++] = 0;
	}
	snprintf(path, sizeof path, "%s/train.log", dir);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(wide, 1, n, f), n);
	fclose(f);
	r = run_on(path, (const char *const[]){ "-q", "explain", "--offline", "@", NULL });
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "error no-kernel-image: "));
	run_result_free(&r);
	unlink(path);
}

/* Windows PowerShell 5.1's >> appends UTF-16LE, without a mark, to a log that began as UTF-8:
 * the message in the appended part is found too. */
static void test_explain_utf16_appended(void **state)
{
	static const char head[] = "epoch 1: loss 0.91 \xe2\x9c\x93\n";
	static const char text[] = "RuntimeError: CUDA error: no kernel image is available for execution on the "
				   "device\r\n";
	char path[96];
	struct run_result r;
	FILE *f;

	(void)state;
	snprintf(path, sizeof path, "%s/appended.log", dir);
	assert_non_null(f = fopen(path, "wb"));
	fputs(head, f);
	for (size_t i = 0; text[i]; i++) {
		fputc(text[i], f);
		fputc(0, f);
	}
	fclose(f);
	r = run_on(path, (const char *const[]){ "-q", "explain", "--offline", "@", NULL });
	if (!strstr(r.out, "error no-kernel-image: "))
		fail_msg("the appended UTF-16 was not read: %s %s", r.out, r.err);
	assert_int_equal(r.status, 1);
	run_result_free(&r);
	unlink(path);
}

/* explain --binary on a file that is no binary: named as arch names it, exit 3, the text still
 * explained, and no fix line tells the user to run arch on the junk */
static void test_explain_binary_not_a_binary(void **state)
{
	char path[] = "/tmp/cudoctor_junk_XXXXXX";
	int fd = mkstemp(path);
	struct run_result r;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "this is a shell script, not a CUDA binary\n", 42), 42);
	close(fd);
	r = run_on(path, (const char *const[]){ "explain", "--binary", "@",
						"CUDA error: no kernel image is available for execution on the device", NULL });
	unlink(path);
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "not an ELF or PE file, archive, fatbin, cubin, offload bundle or PTX text"));
	assert_non_null(strstr(r.out, "no-kernel-image"));
	/* the program was not read: no placeholder, the line says what to run instead */
	assert_non_null(strstr(r.out, "fix: cudoctor doctor  # the program that failed is not named"));
	assert_null(strstr(r.out, "your_program"));
	assert_null(strstr(r.out, "fix: cudoctor arch /tmp/cudoctor_junk_"));
	run_result_free(&r);
}

static void test_directory_without_r_says_use_r(void **state)
{
	struct run_result r = run_on(dir, (const char *const[]){ "arch", "--gpu", "sm_90", "@", NULL });

	(void)state;
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "is a directory; use -r to search it\nTry 'cudoctor arch --help'."));
	run_result_free(&r);
}

static void test_library_open_refuses_without_blocking(void **state)
{
	char err[CD_ERRMSG];
	size_t size;
	int fd;

	(void)state;
	assert_int_equal(file_open_input(fifo, &fd, &size, err), CD_EIO);
	assert_int_equal(fd, -1);
	assert_int_equal(file_open_input("/etc/hostname", &fd, &size, err), CD_OK);
	close(fd);
}

/* What an input names is looked at before it is opened: opening a device can act (a watchdog
 * opened and closed without its magic byte reboots the machine), and a report planted as a
 * symlink to one is opened by whoever runs fleet over the folder. An inotify watch sees every
 * open of the node: none may come from any command given a FIFO or a character device, directly
 * or through a symlink, nor from doctor finding one at $CUDOCTOR_HOST_ROOT/dev/kmsg. The device
 * is made with mknod (1:3, /dev/null's number, so an open would do nothing worse) where this
 * user may, else that part is skipped and says why. */
static void expect_no_open(int in, const char *what, const char *node)
{
	char buf[4096];
	long long n = read(in, buf, sizeof buf);

	if (n > 0)
		fail_msg("%s opened %s", what, node);
}

static void never_opened(const char *node)
{
	static const char *const c0[] = { "arch", "--gpu", "sm_90", "@", NULL };
	static const char *const c1[] = { "mem", "estimate", "@", NULL };
	static const char *const c2[] = { "mem", "status", "--oom", "@", NULL };
	static const char *const c3[] = { "explain", "--gpu", "sm_90", "--binary", "@", "CUDA error 209", NULL };
	static const char *const c4[] = { "explain", "@", NULL };
	static const char *const c5[] = { "diff", "@", "@", NULL };
	static const char *const c6[] = { "fleet", "@", NULL };
	static const char *const *const cases[] = { c0, c1, c2, c3, c4, c5, c6 };
	char link[96], root[96], kmsg[128];
	const char *env[] = { root, "CUDOCTOR_LIBCUDA=/nonexistent", "CUDOCTOR_LIBNVML=/nonexistent", NULL };
	const char *doctor[] = { CUDOCTOR_BINARY, "doctor", NULL };
	struct run_result r;
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	assert_true(in >= 0);
	assert_true(inotify_add_watch(in, node, IN_OPEN) >= 0);
	snprintf(link, sizeof link, "%s/link", dir);
	unlink(link);
	assert_int_equal(symlink(node, link), 0);
	for (size_t via = 0; via < 2; via++)
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			r = run_on(via ? link : node, cases[i]);
			assert_int_not_equal(r.status, 0);
			run_result_free(&r);
			expect_no_open(in, cases[i][0], node);
		}
	/* the kernel log: only a regular file or the real /dev/kmsg (1:11) */
	snprintf(root, sizeof root, "CUDOCTOR_HOST_ROOT=%s/host", dir);
	snprintf(kmsg, sizeof kmsg, "%s/host", dir);
	assert_int_equal(mkdir(kmsg, 0700), 0);
	snprintf(kmsg, sizeof kmsg, "%s/host/dev", dir);
	assert_int_equal(mkdir(kmsg, 0700), 0);
	snprintf(kmsg, sizeof kmsg, "%s/host/dev/kmsg", dir);
	assert_int_equal(symlink(node, kmsg), 0);
	assert_int_equal(testlib_run(doctor, env, NULL, &r), 0);
	run_result_free(&r);
	expect_no_open(in, "doctor (dev/kmsg)", node);
	unlink(kmsg);
	snprintf(kmsg, sizeof kmsg, "%s/host/dev", dir);
	rmdir(kmsg);
	snprintf(kmsg, sizeof kmsg, "%s/host", dir);
	rmdir(kmsg);
	unlink(link);
	close(in);
}

static void test_fifo_is_never_opened(void **state)
{
	(void)state;
	never_opened(fifo);
}

static void test_char_device_is_never_opened(void **state)
{
	char dev[96];

	(void)state;
	snprintf(dev, sizeof dev, "%s/chardev", dir);
	if (mknod(dev, S_IFCHR | 0600, makedev(1, 3)) != 0) {
		fprintf(stderr, "skipping: mknod of a character device is not permitted here (%s); the FIFO case "
				"covers the same path\n", strerror(errno));
		skip();
	}
	never_opened(dev);
	unlink(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_library_open_refuses_without_blocking),
		cmocka_unit_test(test_fifo_is_named_and_skipped),
		cmocka_unit_test(test_socket_is_named_and_skipped),
		cmocka_unit_test(test_device_is_named_and_skipped),
		cmocka_unit_test(test_fifo_is_never_opened),
		cmocka_unit_test(test_char_device_is_never_opened),
		cmocka_unit_test(test_missing_input_is_not_a_clean_run),
		cmocka_unit_test(test_explain_stdin_unreadable),
		cmocka_unit_test(test_explain_folder_operand),
		cmocka_unit_test(test_explain_utf16_log),
		cmocka_unit_test(test_explain_utf16_appended),
		cmocka_unit_test(test_explain_binary_not_a_binary),
		cmocka_unit_test(test_directory_without_r_says_use_r),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
