/* The only way cudoctor runs another program: os_run_capture (os/proc.h) with the limits
 * and messages here. */
#include "probe/spawn.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/env.h"
#include "os/fs.h"
#include "os/proc.h"
#include "probe/paths.h"
#include "util/err.h"

unsigned spawn_timeout_ms(void)
{
	const char *v = os_getenv("CUDOCTOR_HELPER_TIMEOUT");
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
	const char *base = os_last_sep(argv[0]) ? os_last_sep(argv[0]) + 1 : argv[0];
	size_t used = (size_t)snprintf(buf, cap, "%s", base);

	for (size_t i = 1; argv[i] && used < cap; i++)
		used += (size_t)snprintf(buf + used, cap - used, " %s", argv[i]);
}

int spawn_capture(char *const argv[], char *out, size_t max, size_t *len, char *err)
{
	unsigned limit = spawn_timeout_ms();
	struct os_run res;
	char cmd[160], lim[32];
	int e;

	command_text(argv, cmd, sizeof cmd);
	if (len)
		*len = 0;
	if ((e = os_run_capture(argv, out, max, SPAWN_OUTPUT_LIMIT, limit, &res)) != 0)
		return cd_fail(err, CD_EIO, "cannot run %s: %s", argv[0], strerror(-e));
	if (res.too_much)
		return cd_fail(err, CD_EIO, "%s printed more than %zu MiB; stopped", cmd, SPAWN_OUTPUT_LIMIT >> 20);
	if (len)
		*len = res.len;
	if (res.timed_out)
		return cd_fail(err, CD_ETIMEOUT, "%s did not answer within %s", cmd,
			       spawn_timeout_text(limit, lim, sizeof lim));
	if (res.exec_errno)
		return cd_fail(err, CD_EIO, "cannot run %s: %s", argv[0], strerror(res.exec_errno));
	if (!(res.exited && res.status == 0))
		return cd_fail(err, CD_EIO, "%s exited with status %d", argv[0], res.status);
	return CD_OK;
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

	char named[PROBE_PATH];

	/* "python3" runs as python3.exe on Windows */
	if ((size_t)snprintf(named, sizeof named, "%s%s", f->name, os_exe_suffix()) >= sizeof named)
		return 0;
	if ((path_join(f->path, f->cap, dir, f->name) != CD_OK || !path_is_executable(f->path)) &&
	    (!*os_exe_suffix() || path_join(f->path, f->cap, dir, named) != CD_OK || !path_is_executable(f->path)))
		return 0;
	f->found = true;
	return 1;
}

int spawn_find_program(const char *name, char *path, size_t cap)
{
	struct finding_program f = { name, path, cap, false };

	if (os_last_sep(name)) {
		if ((size_t)snprintf(path, cap, "%s", name) >= cap)
			return CD_ENOTFOUND;
		return CD_OK;
	}
	path_list_each(os_getenv("PATH"), try_dir, &f);
	return f.found ? CD_OK : CD_ENOTFOUND;
}
