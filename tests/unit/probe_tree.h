/* Builds small directory trees in a temporary directory for the probe tests: pip, torch,
 * toolkit and /proc layouts with real-looking files. Header-only, like testlib.h. */
#ifndef CUDOCTOR_PROBE_TREE_H
#define CUDOCTOR_PROBE_TREE_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p for the directory part of root/rel (or all of it when dir_too) */
static inline int tree_mkdirs(const char *root, const char *rel, int dir_too)
{
	char p[PATH_MAX];
	size_t rl = strlen(root);

	if (snprintf(p, sizeof p, "%s/%s", root, rel) >= (int)sizeof p)
		return -1;
	for (char *s = p + rl + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	if (dir_too)
		mkdir(p, 0755);
	return 0;
}

/* writes text to root/rel, creating directories; mode 0755 when exec */
static inline int tree_file(const char *root, const char *rel, const char *text, int exec)
{
	char p[PATH_MAX];
	FILE *f;

	tree_mkdirs(root, rel, 0);
	snprintf(p, sizeof p, "%s/%s", root, rel);
	f = fopen(p, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	return chmod(p, exec ? 0755 : 0644);
}

static inline int tree_dir(const char *root, const char *rel)
{
	return tree_mkdirs(root, rel, 1);
}

/* root/rel -> target (target as given, relative or absolute) */
static inline int tree_link(const char *root, const char *rel, const char *target)
{
	char p[PATH_MAX];

	tree_mkdirs(root, rel, 0);
	snprintf(p, sizeof p, "%s/%s", root, rel);
	return symlink(target, p);
}

static inline char *tree_path(const char *root, const char *rel, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", root, rel);
	return buf;
}

/* a fresh directory under /tmp; caller removes it with tree_remove */
static inline char *tree_new(char *buf, size_t n)
{
	snprintf(buf, n, "/tmp/cudoctor-test-XXXXXX");
	return mkdtemp(buf);
}

static inline void tree_remove(const char *root)
{
	char cmd[PATH_MAX + 16];

	if (!root || strncmp(root, "/tmp/", 5) != 0 || strstr(root, "cudoctor-test-") == NULL)
		return; /* refuse anything that is not ours */
	snprintf(cmd, sizeof cmd, "/bin/rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
}

#endif
