/* Filesystem helpers for the probes. */
#include "probe/paths.h"
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/env.h"
#include "os/fs.h"
#include "util/err.h"
#include "util/str.h"

int path_join(char *out, size_t n, const char *a, const char *b)
{
	size_t la = strlen(a);
	int w;

	while (la > 1 && a[la - 1] == '/')
		la--;
	while (*b == '/')
		b++;
	w = snprintf(out, n, "%.*s/%s", (int)la, a, b);
	if (w < 0 || (size_t)w >= n) {
		if (n)
			out[0] = '\0';
		return CD_EFORMAT;
	}
	return CD_OK;
}

bool path_real(const char *p, char *out)
{
	return os_realpath(p, out, PROBE_PATH);
}

bool path_is_executable(const char *p)
{
	struct os_stat st;

	return os_stat(p, &st) == 0 && st.kind == OS_FILE && os_access(p, OS_EXEC);
}

bool path_is_symlink(const char *p)
{
	struct os_stat st;

	return os_lstat(p, &st) == 0 && st.kind == OS_LINK;
}

void path_parent(char *p)
{
	char *slash = (char *)os_last_sep(p);

	if (!slash)
		strcpy(p, ".");
	else if (slash == p)
		p[1] = '\0';
	else
		*slash = '\0';
}

static int cmp_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

int dir_names(const char *dir, bool (*keep)(const char *name, void *arg), void *arg,
	      char ***names, size_t *n)
{
	struct os_dir *d;
	const char *name;
	char **v = NULL;
	size_t cnt = 0, cap = 0;
	int rc = CD_OK;

	*names = NULL;
	*n = 0;
	if (os_dir_open(dir, &d) != 0)
		return CD_OK;
	while ((name = os_dir_next(d)) != NULL) {
		if (keep && !keep(name, arg))
			continue;
		if (cnt == cap) {
			size_t nc = cap ? cap * 2 : 16;
			char **nv = realloc(v, nc * sizeof *nv);
			if (!nv) {
				rc = CD_ENOMEM;
				goto out;
			}
			v = nv;
			cap = nc;
		}
		v[cnt] = cd_strdup(name);
		if (!v[cnt]) {
			rc = CD_ENOMEM;
			goto out;
		}
		cnt++;
	}
	if (cnt)
		cd_qsort(v, cnt, sizeof *v, cmp_names);
out:
	os_dir_close(d);
	if (rc != CD_OK) {
		names_free(v, cnt);
		return rc;
	}
	*names = v;
	*n = cnt;
	return CD_OK;
}

void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int path_list_each(const char *list, int (*fn)(const char *dir, void *arg), void *arg)
{
	char dir[PROBE_PATH];
	const char *p = list;

	if (!list)
		return 0;
	while (*p) {
		const char *e = strchr(p, os_path_list_sep());
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len > 0 && len < sizeof dir) {
			int rc;
			memcpy(dir, p, len);
			dir[len] = '\0';
			rc = fn(dir, arg);
			if (rc)
				return rc;
		}
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}
