/* The folders a Windows DLL search looks in, each listed once per probe: its file names in the
 * order dir_names gives them, and a hash of their case-folded forms (Windows matches names in any
 * case), so many DLLs looked for in many folders cost one listing of each folder, not one per
 * DLL and folder. */
#ifndef CUDOCTOR_PROBE_WIN_DIRS_H
#define CUDOCTOR_PROBE_WIN_DIRS_H

#include <stdbool.h>
#include <stddef.h>

struct win_dirs;

/* NULL when out of memory. */
struct win_dirs *win_dirs_new(void);
void win_dirs_free(struct win_dirs *c);

/* The folder local's names (sorted as dir_names sorts them; a missing folder has none), and its
 * number in c, the same for every spelling of one path; false when out of memory. */
bool win_dirs_list(struct win_dirs *c, const char *local, const char *const **names, size_t *n, size_t *id);

/* Starts a search over folders: win_dirs_visit then says whether a folder is met the first
 * time in it (PATH names System32 again, in many spellings). */
void win_dirs_search(struct win_dirs *c);
bool win_dirs_visit(struct win_dirs *c, size_t id);

/* The file in local named name in any case, joined into out; false: none (*oom when the listing
 * could not be made). */
bool win_dirs_find(struct win_dirs *c, const char *local, const char *name, char *out, size_t n, bool *oom);

#endif
