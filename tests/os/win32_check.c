/* The Win32 side of src/os/ that cudoctor.exe's commands do not reach without a driver or a
 * toolkit, built by MinGW and run under Wine by tests/unit/test_windows.c: running a child
 * with a time limit (os_run_capture: output, exit status, a child that outlives the limit,
 * one that cannot start), directories, stat, realpath and the environment in UTF-8, a pipe
 * whose reader has gone. Prints
 * "ok NAME" or "FAIL NAME: why" per check; exits 0 when every check passed. Run as
 *   win32_check.exe DIR        (DIR: a scratch folder)
 *   win32_check.exe --child print TEXT | --child sleep MS | --child exit N   (its own child) */
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "os/clock.h"
#include "os/env.h"
#include "os/fs.h"
#include "os/proc.h"
#include "os/term.h"

static int failed;

static void check(const char *name, int ok, const char *why)
{
	printf("%s %s%s%s\n", ok ? "ok" : "FAIL", name, ok ? "" : ": ", ok ? "" : why);
	failed |= !ok;
}

static int child(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[2], "print") == 0) {
		fputs(argv[3], stdout);
		return 0;
	}
	if (argc >= 4 && strcmp(argv[2], "sleep") == 0) {
		Sleep((DWORD)atoi(argv[3]));
		return 0;
	}
	if (argc >= 4 && strcmp(argv[2], "exit") == 0)
		return atoi(argv[3]);
	return 99;
}

int main(int argc, char **argv)
{
	char self[4096], out[256], path[4096], real[4096];
	struct os_run res;
	struct os_stat st;
	struct os_dir *d;
	const char *name;
	int rc, seen = 0;

	os_args_utf8(&argc, &argv);
	if (argc >= 2 && strcmp(argv[1], "--child") == 0)
		return child(argc, argv);
	if (argc < 2 || !os_exe_path(self, sizeof self))
		return 2;

	/* an argument with spaces, quotes and backslashes reaches the child whole */
	char *print[] = { self, "--child", "print", "a \"quoted\" arg\\ with\\\\ spaces\\", NULL };
	rc = os_run_capture(print, out, sizeof out, 1 << 20, 10000, &res);
	check("run-output", rc == 0 && res.exited && res.status == 0 && strcmp(out, "a \"quoted\" arg\\ with\\\\ spaces\\") == 0,
	      out);
	char *exit7[] = { self, "--child", "exit", "7", NULL };
	rc = os_run_capture(exit7, out, sizeof out, 1 << 20, 10000, &res);
	check("run-status", rc == 0 && res.exited && res.status == 7 && !res.timed_out, "exit 7 not seen");
	char *slow[] = { self, "--child", "sleep", "20000", NULL };
	double t0 = os_monotonic_s();
	rc = os_run_capture(slow, out, sizeof out, 1 << 20, 500, &res);
	double took = os_monotonic_s() - t0;
	check("run-timeout", rc == 0 && res.timed_out && took < 5, "a 20 s child was not stopped at 0.5 s");
	char *missing[] = { "C:\\no\\such\\program.exe", NULL };
	rc = os_run_capture(missing, out, sizeof out, 1 << 20, 10000, &res);
	check("run-missing", rc == 0 && res.exec_errno != 0, "a missing program was not reported");

	/* a folder and a file named in UTF-8 (é, 日本) */
	snprintf(path, sizeof path, "%s\\caf\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac", argv[1]);
	rc = os_mkdir(path);
	check("mkdir-utf8", rc == 0 || rc == -17, "mkdir failed");
	check("stat-dir", os_stat(path, &st) == 0 && st.kind == OS_DIR, "not a folder");
	snprintf(path + strlen(path), sizeof path - strlen(path), "\\");
	check("stat-dir-trailing-sep", os_stat(path, &st) == 0 && st.kind == OS_DIR, "trailing separator refused");
	snprintf(path + strlen(path), sizeof path - strlen(path), "f\xc3\xa9.txt");
	int fd;
	rc = os_open_write(path, OS_W_EXCL, 0644, &fd);
	check("create-utf8", rc == 0 && os_write(fd, "hello", 5) == 5 && os_close(fd) == 0, "create failed");
	check("stat-file", os_stat(path, &st) == 0 && st.kind == OS_FILE && st.size == 5, "size not 5");
	check("realpath", os_realpath(path, real, sizeof real) && strstr(real, "f\xc3\xa9.txt") && real[1] == ':', real);
	snprintf(path, sizeof path, "%s\\caf\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac", argv[1]);
	rc = os_dir_open(path, &d);
	while (rc == 0 && (name = os_dir_next(d)))
		seen += strcmp(name, "f\xc3\xa9.txt") == 0 ? 1 : 100;
	os_dir_close(d);
	check("dir-utf8", rc == 0 && seen == 1, "the file was not listed once by its UTF-8 name");

	/* the environment as UTF-8 */
	check("setenv", os_setenv("CUDOCTOR_OS_CHECK", "\xc3\xa9t\xc3\xa9") == 0, "setenv failed");
	name = os_getenv("CUDOCTOR_OS_CHECK");
	check("getenv-utf8", name && strcmp(name, "\xc3\xa9t\xc3\xa9") == 0, name ? name : "(null)");
	check("getenv-missing", os_getenv("CUDOCTOR_OS_CHECK_NOT_SET") == NULL, "an unset variable has a value");

	/* a pipe whose reader has gone (`| head -1`): the failed write is known as that, so main.c
	 * says nothing; a failed write to a file is not */
	{
		int p[2], e = 0;
		FILE *w;

		if (_pipe(p, 4096, _O_BINARY) == 0 && _close(p[0]) == 0 && (w = _fdopen(p[1], "wb"))) {
			errno = 0;
			if (fputs("more than the reader wanted\n", w) < 0 || fflush(w) != 0)
				e = errno;
			check("pipe-reader-gone", e != 0 && os_pipe_reader_gone(p[1], e), "the write did not fail as a closed pipe");
			fclose(w);
		} else {
			check("pipe-reader-gone", 0, "no pipe");
		}
		char file[4200];

		snprintf(file, sizeof file, "%s\\f\xc3\xa9.txt", path);
		fd = -1;
		rc = os_open_read(file, &fd);
		check("file-not-a-pipe", rc == 0 && !os_pipe_reader_gone(fd, EINVAL), "a file read as a closed pipe");
		if (fd >= 0)
			os_close(fd);
	}
	return failed;
}
