/* Small filesystem helpers the probes share: joining, resolving, listing a directory. */
#ifndef CUDOCTOR_PROBE_PATHS_H
#define CUDOCTOR_PROBE_PATHS_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/path.h"

#define PROBE_PATH FACTS_PATH

/* out = a + "/" + b; CD_EFORMAT (out left empty) if it does not fit. */
int path_join(char *out, size_t n, const char *a, const char *b);
/* realpath(3) into out (PROBE_PATH bytes); false if it does not resolve. */
bool path_real(const char *p, char *out);
bool path_is_executable(const char *p);
bool path_is_symlink(const char *p);
/* dirname in place ("/a/b/c" -> "/a/b"; "/a" -> "/"). */
void path_parent(char *p);

/* Names in dir accepted by keep (NULL: all but . and ..), sorted with strverscmp so
 * "cuda-12.10" follows "cuda-12.9". Caller frees with names_free. A missing dir is
 * an empty list (CD_OK); only CD_ENOMEM fails. */
int dir_names(const char *dir, bool (*keep)(const char *name, void *arg), void *arg,
	      char ***names, size_t *n);
void names_free(char **names, size_t n);

/* Splits a PATH-like list on ':' and calls fn for each non-empty element in order;
 * stops early when fn returns non-zero and returns that value. */
int path_list_each(const char *list, int (*fn)(const char *dir, void *arg), void *arg);

#endif
