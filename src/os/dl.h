/* Loading a shared library (.so, .dll) and finding its symbols. */
#ifndef CUDOCTOR_OS_DL_H
#define CUDOCTOR_OS_DL_H

#include <stdbool.h>
#include <stddef.h>

/* How a name is searched: OS_DL_PATH a path or the loader's own search; OS_DL_SYSTEM only the
 * system's library folder (Windows' System32: never the current folder or PATH, where any
 * folder could plant a driver). */
enum os_dl_search { OS_DL_PATH, OS_DL_SYSTEM };

/* NULL when it cannot load; why (cap bytes) says what the loader said. */
void *os_dl_open(const char *name, enum os_dl_search search, char *why, size_t cap);
void *os_dl_sym(void *lib, const char *name);
void os_dl_close(void *lib);
/* The file the loader mapped for lib (sym one of its symbols); false when it cannot say. */
bool os_dl_path(void *lib, void *sym, char *out, size_t cap);
/* Whether name is a path (holds a folder separator), not a bare library name. */
bool os_dl_is_path(const char *name);

#endif
