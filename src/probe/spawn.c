/* posix_spawn with a pipe: the only way the probes run another program. */
#include "probe/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/err.h"

extern char **environ;

int spawn_capture(char *const argv[], char *out, size_t max, size_t *len, char *err)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2] = { -1, -1 }, status = 0, rc = CD_OK;
	pid_t pid = -1;
	size_t got = 0;

	if (len)
		*len = 0;
	if (max)
		out[0] = '\0';
	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return cd_fail(err, CD_EIO, "pipe: %s", strerror(errno));
	if (posix_spawn_file_actions_init(&fa) != 0) {
		rc = cd_fail(err, CD_ENOMEM, "posix_spawn_file_actions_init failed");
		goto out_pipe;
	}
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	errno = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (errno != 0) {
		rc = cd_fail(err, CD_EIO, "cannot run %s: %s", argv[0], strerror(errno));
		pid = -1;
		goto out_pipe;
	}
	close(pipefd[1]);
	pipefd[1] = -1;
	for (;;) {
		char sink[4096];
		char *dst = (max && got + 1 < max) ? out + got : sink;
		size_t room = (max && got + 1 < max) ? max - 1 - got : sizeof sink;
		ssize_t r = read(pipefd[0], dst, room);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (dst != sink)
			got += (size_t)r;
	}
	if (max)
		out[got] = '\0';
	if (len)
		*len = got;
out_pipe:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (pid > 0) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (rc == CD_OK && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			rc = cd_fail(err, CD_EIO, "%s exited with status %d", argv[0], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	return rc;
}
