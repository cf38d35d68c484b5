/* os/env.h on Win32: the wide environment block, read as UTF-8. A value is kept for the
 * life of the process (a caller may hold it while another thread asks again), one copy per
 * distinct value. */
#include "os/env.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <shellapi.h>

#include "os/win32.h"

struct seen {
	struct seen *next;
	char *name, *value;
};

static struct seen *values;
static SRWLOCK lock = SRWLOCK_INIT;

static char *read_var(const wchar_t *wname)
{
	DWORD n = GetEnvironmentVariableW(wname, NULL, 0);
	wchar_t *w;
	char *out = NULL;
	size_t cap;

	if (n == 0)
		return NULL;
	if (!(w = malloc((size_t)n * sizeof *w)))
		return NULL;
	if (GetEnvironmentVariableW(wname, w, n) < n) {
		cap = (size_t)n * 3 + 1;
		if ((out = malloc(cap)) && !os_w_to_utf8(w, out, cap)) {
			free(out);
			out = NULL;
		}
	}
	free(w);
	return out;
}

void os_args_utf8(int *argc, char ***argv)
{
	int n = 0;
	wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
	char **v;

	if (!w || n <= 0)
		return;
	if (!(v = calloc((size_t)n + 1, sizeof *v)))
		goto out;
	for (int i = 0; i < n; i++) {
		size_t cap = wcslen(w[i]) * 3 + 1;

		if (!(v[i] = malloc(cap)) || !os_w_to_utf8(w[i], v[i], cap)) {
			for (int k = 0; k <= i; k++)
				free(v[k]);
			free(v);
			goto out;
		}
	}
	*argc = n;
	*argv = v;
out:
	LocalFree(w);
}

const char *os_getenv(const char *name)
{
	wchar_t *wname = os_w_from_utf8(name);
	char *now;
	const char *answer = NULL;

	if (!wname)
		return NULL;
	now = read_var(wname);
	free(wname);
	if (!now)
		return NULL;
	AcquireSRWLockExclusive(&lock);
	for (struct seen *s = values; s; s = s->next)
		if (strcmp(s->name, name) == 0 && strcmp(s->value, now) == 0) {
			answer = s->value;
			break;
		}
	if (!answer) {
		struct seen *s = malloc(sizeof *s);
		char *copy = s ? _strdup(name) : NULL;

		if (copy) {
			s->name = copy;
			s->value = now;
			s->next = values;
			values = s;
			answer = now;
			now = NULL;
		} else {
			free(s);
		}
	}
	ReleaseSRWLockExclusive(&lock);
	free(now);
	return answer;
}

int os_setenv(const char *name, const char *value)
{
	wchar_t *n = os_w_from_utf8(name), *v = os_w_from_utf8(value);
	int rc = 0;

	if (!n || !v)
		rc = -EINVAL;
	else if (!SetEnvironmentVariableW(n, v))
		rc = os_w_errno();
	free(n);
	free(v);
	return rc;
}

char os_path_list_sep(void)
{
	return ';';
}
