/* The Windows side's probe: a Windows drive read as files (C:\ on Windows, /mnt/c from WSL2,
 * a test's tree) into facts/windows.h; nothing is run and nothing is loaded. */
#ifndef CUDOCTOR_PROBE_WINDOWS_H
#define CUDOCTOR_PROBE_WINDOWS_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/python.h"
#include "facts/windows.h"
#include "probe/win_dirs.h"

struct win_side_opts {
	const char *root;          /* where C:\ is read: "/mnt/c", a test's tree */
	const char *from;          /* how it was reached, for the report: "WSL2 (/mnt/c)" */
	const char *const *env;    /* the Windows environment, "NAME=VALUE", NULL-terminated;
				      NULL when it cannot be seen (from WSL2) */
	const char *path;          /* the Windows PATH in Windows form ("C:\a;D:\b"); NULL unknown */
	const struct python_info *py; /* the Python probe's, whose Windows-side frameworks' files are
					 followed to the DLLs they import; NULL none */
	bool registry;              /* the drive is this running Windows': its registry is read */
};

/* Every toolkit of the drive: the CUDA_PATH variables (when env is given), the default
 * install folder's v* and PATH's nvcc.exe folders, each with its version from its files; and
 * for each Windows-side framework of o->py, the CUDA DLLs its files import and where Python
 * would load each from. CD_OK or CD_ENOMEM. */
int win_side_probe(struct win_side *w, const struct win_side_opts *o, char *err);
void win_side_free(struct win_side *w);

/* Where this machine's Windows side is, if it has one it can read: on Windows itself, the
 * system drive ("C:"; every drive reached as itself), the environment, PATH and registry; under WSL2
 * (/proc/sys/kernel/osrelease or /proc/version names Microsoft) with /mnt/c mounted, the drive
 * under host_root(), the environment not visible, and PATH's /mnt/X/ folders (WSL appends
 * Windows' PATH) as the Windows PATH into path_buf (n bytes). false: none. */
bool win_side_locate(struct win_side_opts *o, char *root_buf, char *path_buf, size_t n);

/* A Windows path ("C:\Program Files\x", "d:/y") as the file it is on this machine, through
 * root (C:'s folder; a root ending in "/c" reaches the other drives beside it, as /mnt/d);
 * false when it cannot be reached (a relative path, another drive with no mount). */
bool win_path_local(const char *root, const char *win, char *out, size_t n);

/* The other way: a file under root (or under a drive beside a root ending in "/c") as Windows
 * names it, "C:\\Users\\me\\python_embeded"; false when local is on no drive. */
bool win_path_windows(const char *root, const char *local, char *out, size_t n);

/* Each folder of a Windows PATH ("C:\\a;D:\\b"), in order: fn(its Windows name, where it is
 * on this machine, its rank, arg) until fn returns true. Empty entries have no rank; a folder
 * that cannot be reached is skipped with its rank. */
void win_path_each(const char *root, const char *path,
		   bool (*fn)(char *dir, const char *local, int rank, void *arg), void *arg);

/* The one search of a list of folders for a DLL, as Windows does it: name (in any case, as
 * Windows matches it) looked for in dirs[0 .. n) in order, a folder listed twice looked in once.
 * Each folder is listed once in c, however many DLLs are looked for.
 * The first copy (the one that loads) and the next (which it shadows) in Windows' names (a
 * folder on no drive keeps its own), with their indexes in dirs; -1 none. */
struct win_dll_dir {
	const char *local;            /* the folder on this machine; NULL or "" skipped */
	int step;                     /* the caller's name for the place */
	int rank;                     /* its index in PATH; -1 another place */
};
struct win_dll_hits {
	int at, second_at;
	char first[FACTS_PATH], second[FACTS_PATH];
};
void win_dll_search(struct win_dirs *c, const char *root, const struct win_dll_dir *dirs, size_t n,
		    const char *name, struct win_dll_hits *h, bool *oom);

#endif
