/* Running a helper program (nvcc) and capturing its output, only where no file tells us. */
#ifndef CUDOCTOR_PROBE_SPAWN_H
#define CUDOCTOR_PROBE_SPAWN_H

#include <stddef.h>

/* Runs argv[0] (a path, no PATH search, no shell) with stdin and stderr on /dev/null,
 * captures at most max-1 bytes of stdout into out (NUL-terminated) and waits for
 * it. CD_OK when it exited 0; CD_EIO otherwise with err saying why. */
int spawn_capture(char *const argv[], char *out, size_t max, size_t *len, char *err);

#endif
