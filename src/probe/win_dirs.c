/* Folders listed once for a Windows DLL search (probe/win_dirs.h). */
#include "probe/win_dirs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "probe/paths.h"
#include "util/err.h"
#include "util/file.h"
#include "util/strindex.h"

struct listing {
	char *local;
	char **names;
	char **folded;            /* names in lower case: the keys of ix */
	size_t n;
	struct strindex ix;       /* folded name -> index in names */
	unsigned long visited;    /* the search that last met it */
};

struct win_dirs {
	struct listing **l;
	size_t n, cap;
	struct strindex by_path;  /* local -> index in l */
	unsigned long search;     /* the search under way (win_dirs_search), from 1 */
};

struct win_dirs *win_dirs_new(void)
{
	struct win_dirs *c = calloc(1, sizeof *c);

	if (c)
		strindex_init(&c->by_path);
	return c;
}

static void listing_free(struct listing *x)
{
	if (!x)
		return;
	names_free(x->names, x->n);
	for (size_t i = 0; x->folded && i < x->n; i++)
		free(x->folded[i]);
	free(x->folded);
	strindex_free(&x->ix);
	free(x->local);
	free(x);
}

void win_dirs_free(struct win_dirs *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		listing_free(c->l[i]);
	free(c->l);
	strindex_free(&c->by_path);
	free(c);
}

static char *folded(const char *s)
{
	size_t n = strlen(s);
	char *f = malloc(n + 1);

	for (size_t i = 0; f && i <= n; i++)
		f[i] = (char)tolower((unsigned char)s[i]);
	return f;
}

static struct listing *list(const char *local)
{
	struct listing *x = calloc(1, sizeof *x);

	if (!x)
		return NULL;
	strindex_init(&x->ix);
	if (!(x->local = strdup(local)) || dir_names(local, NULL, NULL, &x->names, &x->n) != CD_OK)
		goto oom;
	if (x->n && !(x->folded = calloc(x->n, sizeof *x->folded)))
		goto oom;
	for (size_t i = 0; i < x->n; i++)
		if (!(x->folded[i] = folded(x->names[i])) ||
		    strindex_put(&x->ix, x->folded[i], strlen(x->folded[i]), i, NULL) != CD_OK)
			goto oom;
	return x;
oom:
	listing_free(x);
	return NULL;
}

bool win_dirs_list(struct win_dirs *c, const char *local, const char *const **names, size_t *n, size_t *id)
{
	struct listing *x;
	size_t at;

	if (!strindex_get(&c->by_path, local, strlen(local), &at)) {
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 16;
			struct listing **l = realloc(c->l, cap * sizeof *l);

			if (!l)
				return false;
			c->l = l;
			c->cap = cap;
		}
		if (!(x = list(local)))
			return false;
		if (strindex_put(&c->by_path, x->local, strlen(x->local), c->n, NULL) != CD_OK) {
			listing_free(x);
			return false;
		}
		at = c->n;
		c->l[c->n++] = x;
	}
	x = c->l[at];
	*names = (const char *const *)x->names;
	*n = x->n;
	*id = at;
	return true;
}

void win_dirs_search(struct win_dirs *c)
{
	c->search++;
}

bool win_dirs_visit(struct win_dirs *c, size_t id)
{
	if (c->l[id]->visited == c->search)
		return false;
	c->l[id]->visited = c->search;
	return true;
}

bool win_dirs_find(struct win_dirs *c, const char *local, const char *name, char *out, size_t n, bool *oom)
{
	const char *const *names;
	size_t count, id, at;
	char *key;
	bool found;

	if (!local || !local[0])
		return false;
	if (!win_dirs_list(c, local, &names, &count, &id) || !(key = folded(name))) {
		*oom = true;
		return false;
	}
	found = strindex_get(&c->l[id]->ix, key, strlen(key), &at) && path_join(out, n, local, names[at]) == CD_OK &&
		path_is_file(out);
	free(key);
	return found;
}
