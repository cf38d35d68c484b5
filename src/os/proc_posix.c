/* os/proc.h on POSIX: fork/exec with pipes. fork rather than posix_spawn: glibc's
 * posix_spawn suspends the caller until the child has exec'd, and an exec that blocks (a
 * binary on a hung NFS mount) would then block cudoctor past any limit. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe2 */
#endif
#include "os/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os/clock.h"

extern char **environ;

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
		os_sleep_us(10000);
	}
}

int os_run_capture(char *const argv[], char *out, size_t max, size_t limit, unsigned deadline_ms,
		   struct os_run *res)
{
	int outp[2] = { -1, -1 }, statp[2] = { -1, -1 }, status = 0, rc = 0, exec_errno = 0;
	double deadline = os_monotonic_s() + deadline_ms / 1000.0;
	size_t got = 0, seen = 0;
	bool out_open = true, status_open = true, reaped = false;
	pid_t pid;

	memset(res, 0, sizeof *res);
	if (max)
		out[0] = '\0';
	if (pipe2(outp, O_CLOEXEC) != 0 || pipe2(statp, O_CLOEXEC) != 0) {
		rc = -errno;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		rc = -errno;
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
		double left = deadline - os_monotonic_s();
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
			if ((seen += (size_t)r) > limit) {
				kill_group(pid);
				res->too_much = true;
				goto done;
			}
		}
	}
	/* output done (or the limit reached): the child itself must end within the limit too */
	while (!reaped) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid || (w < 0 && errno != EINTR)) {
			reaped = true;
			break;
		}
		if (os_monotonic_s() >= deadline)
			break;
		os_sleep_us(5000);
	}
	if (!reaped) {
		kill_group(pid);
		res->timed_out = true;
	} else {
		res->exec_errno = exec_errno;
		res->exited = WIFEXITED(status);
		res->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
done:
	if (max)
		out[got] = '\0';
	res->len = got;
out:
	for (int i = 0; i < 2; i++) {
		if (outp[i] >= 0)
			close(outp[i]);
		if (statp[i] >= 0)
			close(statp[i]);
	}
	return rc;
}

static const char *watchdog_msg;
static size_t watchdog_len;

static void on_alarm(int sig)
{
	(void)sig;
	/* the message is best effort: the exit status says it either way */
	if (watchdog_len)
		(void)!write(STDERR_FILENO, watchdog_msg, watchdog_len);
	_exit(3);
}

void os_exit_after(unsigned seconds, const char *msg)
{
	if (!seconds) {
		alarm(0);
		return;
	}
	watchdog_msg = msg;
	watchdog_len = msg ? strlen(msg) : 0;
	signal(SIGALRM, on_alarm);
	alarm(seconds);
}

static volatile sig_atomic_t *terminate_flag;

static void on_term(int sig)
{
	(void)sig;
	if (terminate_flag)
		*terminate_flag = 1;
}

void os_on_terminate(volatile sig_atomic_t *flag)
{
	terminate_flag = flag;
	signal(SIGTERM, on_term);
}

unsigned os_pid(void)
{
	return (unsigned)getpid();
}

void os_exit_now(int status)
{
	_exit(status);
}
