/* Finding nvcc the way a build would, and reading its release from `nvcc --version`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe/nvcc_version.h"
#include "util/err.h"
#include "util/file.h"

static bool executable(const char *path)
{
	return path_is_file(path) && access(path, X_OK) == 0;
}

static bool from_path(char *out, size_t n)
{
	const char *path = getenv("PATH");

	while (path && *path) {
		size_t len = strcspn(path, ":");

		if (len > 0 && len + 6 < n) {
			snprintf(out, n, "%.*s/nvcc", (int)len, path);
			if (executable(out))
				return true;
		}
		path += len + (path[len] == ':');
	}
	return false;
}

/* Runs `path --version` without a shell (the path may hold any character). */
static int read_release(const char *path, struct version *v, char *err)
{
	int fds[2], status, rc = CD_EFORMAT;
	pid_t pid;
	char buf[4096];
	size_t used = 0;
	ssize_t got;
	char *r;

	if (pipe(fds) != 0)
		return cd_fail(err, CD_EIO, "pipe failed");
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return cd_fail(err, CD_EIO, "fork failed");
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl(path, path, "--version", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (used + 1 < sizeof(buf) && (got = read(fds[0], buf + used, sizeof(buf) - 1 - used)) > 0)
		used += (size_t)got;
	buf[used] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	r = strstr(buf, "release ");
	if (r && version_parse(r + 8, v) == CD_OK)
		rc = CD_OK;
	else
		cd_fail(err, CD_EFORMAT, "%s --version printed no release line", path);
	return rc;
}

int nvcc_here_find(struct nvcc_here *out, char *err)
{
	const char *home = getenv("CUDA_HOME");

	memset(out, 0, sizeof(*out));
	if (home && *home && strlen(home) + 10 < sizeof(out->path)) {
		snprintf(out->path, sizeof(out->path), "%s/bin/nvcc", home);
		snprintf(out->how, sizeof(out->how), "CUDA_HOME");
		if (executable(out->path))
			return read_release(out->path, &out->release, err);
	}
	if (from_path(out->path, sizeof(out->path))) {
		snprintf(out->how, sizeof(out->how), "PATH");
		return read_release(out->path, &out->release, err);
	}
	snprintf(out->path, sizeof(out->path), "/usr/local/cuda/bin/nvcc");
	snprintf(out->how, sizeof(out->how), "/usr/local/cuda");
	if (executable(out->path))
		return read_release(out->path, &out->release, err);
	out->path[0] = '\0';
	return cd_fail(err, CD_ENOTFOUND, "no nvcc in $CUDA_HOME/bin, on PATH or in /usr/local/cuda/bin");
}
