/* A Windows program's CUDA DLLs followed through Windows' search order for a desktop program
 * (facts/windows.h's struct win_exe): files read, nothing run or loaded. */
#ifndef CUDOCTOR_PROBE_WIN_EXE_H
#define CUDOCTOR_PROBE_WIN_EXE_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/windows.h"
#include "probe/windows.h"

struct win_exe_opts {
	const struct win_side_opts *side; /* the Windows side (win_side_locate); NULL: none, only the
					     program's own folder is searched */
	const struct win_side *ws;        /* its toolkits, whose bin folders hold copies that are not
					     searched; NULL none */
	const char *cwd;                  /* the current folder on this machine; NULL unknown */
};

/* True when data is a PE program (IMAGE_FILE_EXECUTABLE_IMAGE, not a DLL). */
bool win_exe_is_program(const unsigned char *data, size_t size);

/* For the program file (its bytes data/size), each CUDA library DLL it imports, directly or
 * delay-loaded (kb_vendor_wheel's families), and the copy Windows would load: the program's
 * folder, System32, System, the Windows folder, the current folder, PATH's folders. CD_OK,
 * CD_EFORMAT (not a PE file) or CD_ENOMEM. */
int win_exe_probe(struct win_exe *x, const char *file, const unsigned char *data, size_t size,
		  const struct win_exe_opts *o, char *err);
/* The same for the program at path on this machine, read here, against the Windows side
 * win_side_locate finds (its toolkits, this process's current folder): what arch and doctor
 * call. CD_OK with x->n 0 when the file is no PE program or imports no CUDA DLL; CD_EIO and
 * the like when it cannot be read; CD_ENOMEM. */
int win_exe_probe_file(struct win_exe *x, const char *path, char *err);
void win_exe_free(struct win_exe *x);

#endif
