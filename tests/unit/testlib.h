/* Shared by the unit tests: run the built cudoctor (or any program) with extra environment
 * and capture stdout, stderr and the exit code. Header-only so each test stays one file. */
#ifndef CUDOCTOR_TESTLIB_H
#define CUDOCTOR_TESTLIB_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct run_result {
	char *out;      /* stdout, NUL-terminated */
	char *err;      /* stderr */
	int status;     /* exit code, or 128 + signal */
};

static inline void run_result_free(struct run_result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

static inline int testlib_append(char **buf, size_t *len, int fd)
{
	char chunk[4096];
	ssize_t n = read(fd, chunk, sizeof(chunk));
	char *p;

	if (n <= 0)
		return (int)n;
	p = realloc(*buf, *len + (size_t)n + 1);
	if (!p)
		return -1;
	memcpy(p + *len, chunk, (size_t)n);
	*len += (size_t)n;
	p[*len] = '\0';
	*buf = p;
	return (int)n;
}

/* argv[0] is the program path; env is a NULL-terminated list of "NAME=value" added to (or
 * replacing in) the current environment, or NAME= with an empty value to unset NAME.
 * stdin_text, if not NULL, is written to the child's stdin. Returns 0 or -1. */
static inline int testlib_run(const char *const argv[], const char *const env[], const char *stdin_text,
			      struct run_result *res)
{
	int out_pipe[2], err_pipe[2], in_pipe[2];
	size_t out_len = 0, err_len = 0;
	pid_t pid;
	int wstatus;

	memset(res, 0, sizeof(*res));
	res->out = calloc(1, 1);
	res->err = calloc(1, 1);
	if (!res->out || !res->err || pipe(out_pipe) || pipe(err_pipe) || pipe(in_pipe))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(in_pipe[0], 0);
		dup2(out_pipe[1], 1);
		dup2(err_pipe[1], 2);
		close(in_pipe[1]);
		close(out_pipe[0]);
		close(err_pipe[0]);
		for (size_t i = 0; env && env[i]; i++) {
			const char *eq = strchr(env[i], '=');
			char name[256];
			size_t n = eq ? (size_t)(eq - env[i]) : strlen(env[i]);
			if (n >= sizeof(name))
				continue;
			memcpy(name, env[i], n);
			name[n] = '\0';
			if (eq && eq[1])
				setenv(name, eq + 1, 1);
			else
				unsetenv(name);
		}
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(in_pipe[0]);
	close(out_pipe[1]);
	close(err_pipe[1]);
	if (stdin_text) {
		signal(SIGPIPE, SIG_IGN);
		size_t left = strlen(stdin_text);
		const char *p = stdin_text;
		while (left > 0) {
			ssize_t n = write(in_pipe[1], p, left);
			if (n <= 0)
				break;
			p += n;
			left -= (size_t)n;
		}
	}
	close(in_pipe[1]);
	{
		struct pollfd fds[2] = { { out_pipe[0], POLLIN, 0 }, { err_pipe[0], POLLIN, 0 } };
		int open_fds = 2;
		while (open_fds > 0) {
			if (poll(fds, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			for (int i = 0; i < 2; i++) {
				if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP)))
					continue;
				int n = testlib_append(i == 0 ? &res->out : &res->err, i == 0 ? &out_len : &err_len,
						       fds[i].fd);
				if (n <= 0) {
					close(fds[i].fd);
					fds[i].fd = -1;
					open_fds--;
				}
			}
		}
	}
	if (waitpid(pid, &wstatus, 0) < 0)
		return -1;
	res->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
	return 0;
}

#endif
