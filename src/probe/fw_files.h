/* The one finder of a framework's device-code files under a site-packages: one table, framework
 * → where its device code lives and which file carries its version. doctor (probe/python.c) and
 * `arch --python` (probe/arch_inputs.c) both read it, so both judge the same files. */
#ifndef CUDOCTOR_PROBE_FW_FILES_H
#define CUDOCTOR_PROBE_FW_FILES_H

#include <stdbool.h>
#include <stddef.h>

#define FW_FILES_WHERE 6

/* One framework. A place in `where` is relative to site-packages, '/' between its parts:
 * "dir/file" one file; "dir/" every module in that folder (shared objects, .dll, .pyd:
 * util/str.h's str_is_module_name); "dir/name*" (or "name*" in site-packages itself) the
 * modules there whose names start with name. A layout of another platform is more places (or rows) of the same three forms. */
struct fw_files_row {
	const char *fw;                          /* as doctor names it: "torch", "cupy-cuda12x" */
	const char *version_file;                /* "torch/version.py"; NULL: its dist-info's name */
	bool alternatives;                       /* its files are builds it picks one of at run time
	                                          * (bitsandbytes' one per CUDA release) */
	const char *const where[FW_FILES_WHERE];
};

/* The table, and its size in *n. */
const struct fw_files_row *fw_files_table(size_t *n);
/* fw's row; NULL when the table has none. */
const struct fw_files_row *fw_files_row(const char *fw);

/* Calls fn(path, arg) for each existing regular file of row's places under site, place by
 * place, a folder's files in name order. Stops at fn's first error and returns it; CD_ENOMEM. */
int fw_files_each(const struct fw_files_row *row, const char *site, int (*fn)(const char *path, void *arg),
		  void *arg);

#endif
