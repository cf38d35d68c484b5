/* fork/exec with pipes: the only way cudoctor runs another program. fork rather than
 * posix_spawn: glibc's posix_spawn suspends the caller until the child has exec'd, and an
 * exec that blocks (a binary on a hung NFS mount) would then block cudoctor past any limit. */
#include "probe/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe/paths.h"
#include "util/clock.h"
#include "util/err.h"

extern char **environ;

unsigned spawn_timeout_ms(void)
{
	const char *v = getenv("CUDOCTOR_HELPER_TIMEOUT");
	char *end;
	double s;

	if (!v || !*v)
		return SPAWN_TIMEOUT_DEFAULT_MS;
	s = strtod(v, &end);
	if (*end || !(s >= 0.05 && s <= 3600))
		return SPAWN_TIMEOUT_DEFAULT_MS;
	return (unsigned)(s * 1000 + 0.5);
}

const char *spawn_timeout_text(unsigned ms, char *buf, size_t cap)
{
	snprintf(buf, cap, "%.3g s", ms / 1000.0);
	return buf;
}

/* "nvcc --version": the command as a finding names it (the program's base name). */
static void command_text(char *const argv[], char *buf, size_t cap)
{
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	size_t used = (size_t)snprintf(buf, cap, "%s", base);

	for (size_t i = 1; argv[i] && used < cap; i++)
		used += (size_t)snprintf(buf + used, cap - used, " %s", argv[i]);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The child's side: its own process group, stdin and stderr on /dev/null, stdout the pipe;
 * exec's errno goes back through status (closed on a successful exec). Only
 * async-signal-safe calls here. */
static void child(char *const argv[], int out_fd, int status_fd)
{
	int null = open("/dev/null", O_RDWR);
	int e;

	setpgid(0, 0);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 2) < 0 || dup2(out_fd, 1) < 0)
		_exit(127);
	execve(argv[0], argv, environ);
	e = errno;
	if (write(status_fd, &e, sizeof e) < 0)
		_exit(127);
	_exit(127);
}

/* Kills the group and reaps the child, waiting at most a second: a process stuck in the
 * kernel (D state on a hung mount) cannot die until its I/O returns, and cudoctor does not
 * wait for that. */
static void kill_group(pid_t pid)
{
	int status;

	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	for (int i = 0; i < 100; i++) {
		if (waitpid(pid, &status, WNOHANG) != 0)
			return;
		sleep_ms(10);
	}
}

int spawn_capture(char *const argv[], char *out, size_t max, size_t *len, char *err)
{
	int outp[2] = { -1, -1 }, statp[2] = { -1, -1 }, status = 0, rc = CD_OK, exec_errno = 0;
	unsigned limit = spawn_timeout_ms();
	double deadline = cd_now_s() + limit / 1000.0;
	size_t got = 0, seen = 0;
	bool out_open = true, status_open = true, reaped = false;
	char cmd[160], lim[32];
	pid_t pid;

	command_text(argv, cmd, sizeof cmd);
	if (len)
		*len = 0;
	if (max)
		out[0] = '\0';
	if (pipe2(outp, O_CLOEXEC) != 0 || pipe2(statp, O_CLOEXEC) != 0) {
		rc = cd_fail(err, CD_EIO, "pipe: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		rc = cd_fail(err, CD_EIO, "cannot run %s: fork: %s", argv[0], strerror(errno));
		goto out;
	}
	if (pid == 0)
		child(argv, outp[1], statp[1]);
	setpgid(pid, pid); /* also here: kill(-pid) must find the group whoever runs first */
	close(outp[1]);
	close(statp[1]);
	outp[1] = statp[1] = -1;
	while (out_open || status_open) {
		struct pollfd fds[2] = { { out_open ? outp[0] : -1, POLLIN, 0 }, { status_open ? statp[0] : -1, POLLIN, 0 } };
		double left = deadline - cd_now_s();
		int n;

		if (left <= 0)
			break;
		n = poll(fds, 2, (int)(left * 1000) + 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (fds[1].revents) {
			ssize_t r = read(statp[0], &exec_errno, sizeof exec_errno);
			if (r < 0 && errno == EINTR)
				continue;
			status_open = false;
			if (r != (ssize_t)sizeof exec_errno)
				exec_errno = 0;
		}
		if (fds[0].revents) {
			char sink[4096];
			char *dst = (max && got + 1 < max) ? out + got : sink;
			size_t room = (max && got + 1 < max) ? max - 1 - got : sizeof sink;
			ssize_t r = read(outp[0], dst, room);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				out_open = false;
				continue;
			}
			if (dst != sink)
				got += (size_t)r;
			if ((seen += (size_t)r) > SPAWN_OUTPUT_LIMIT) {
				kill_group(pid);
				if (max)
					out[got] = '\0';
				rc = cd_fail(err, CD_EIO, "%s printed more than %zu MiB; stopped", cmd, SPAWN_OUTPUT_LIMIT >> 20);
				goto out;
			}
		}
	}
	if (max)
		out[got] = '\0';
	if (len)
		*len = got;
	/* output done (or the limit reached): the child itself must end within the limit too */
	while (!reaped) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid || (w < 0 && errno != EINTR)) {
			reaped = true;
			break;
		}
		if (cd_now_s() >= deadline)
			break;
		sleep_ms(5);
	}
	if (!reaped) {
		kill_group(pid);
		return cd_fail(err, CD_ETIMEOUT, "%s did not answer within %s", cmd,
			       spawn_timeout_text(limit, lim, sizeof lim));
	}
	if (exec_errno)
		rc = cd_fail(err, CD_EIO, "cannot run %s: %s", argv[0], strerror(exec_errno));
	else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		rc = cd_fail(err, CD_EIO, "%s exited with status %d", argv[0],
			     WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
out:
	for (int i = 0; i < 2; i++) {
		if (outp[i] >= 0)
			close(outp[i]);
		if (statp[i] >= 0)
			close(statp[i]);
	}
	return rc;
}

struct finding_program {
	const char *name;
	char *path;
	size_t cap;
	bool found;
};

static int try_dir(const char *dir, void *arg)
{
	struct finding_program *f = arg;

	if (path_join(f->path, f->cap, dir, f->name) != CD_OK || !path_is_executable(f->path))
		return 0;
	f->found = true;
	return 1;
}

int spawn_find_program(const char *name, char *path, size_t cap)
{
	struct finding_program f = { name, path, cap, false };

	if (strchr(name, '/')) {
		if ((size_t)snprintf(path, cap, "%s", name) >= cap)
			return CD_ENOTFOUND;
		return CD_OK;
	}
	path_list_each(getenv("PATH"), try_dir, &f);
	return f.found ? CD_OK : CD_ENOTFOUND;
}
