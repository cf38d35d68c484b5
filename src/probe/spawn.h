/* Running a helper program (nvcc, python3) and capturing its output, only where no file
 * tells us: with a time limit, a bounded read, and its whole process group killed at the
 * limit, so a helper that hangs (an NFS mount, a wrapper waiting on a licence) cannot hang
 * cudoctor. */
#ifndef CUDOCTOR_PROBE_SPAWN_H
#define CUDOCTOR_PROBE_SPAWN_H

#include <stddef.h>

/* The limit on each helper, in milliseconds: $CUDOCTOR_HELPER_TIMEOUT seconds (decimals
 * allowed, 0.05..3600), else SPAWN_TIMEOUT_DEFAULT_MS. */
#define SPAWN_TIMEOUT_DEFAULT_MS 5000u
unsigned spawn_timeout_ms(void);
/* "5 s", "0.3 s": the limit as findings name it. */
const char *spawn_timeout_text(unsigned ms, char *buf, size_t cap);

/* A helper may print this much before it is stopped (its output is read, not kept, past max). */
#define SPAWN_OUTPUT_LIMIT ((size_t)4 << 20)

/* Runs argv[0] (a path, no PATH search, no shell) in a process group of its own, with stdin
 * and stderr on /dev/null, captures at most max-1 bytes of stdout into out (NUL-terminated)
 * and waits for it, at most spawn_timeout_ms(). CD_OK when it exited 0; CD_ETIMEOUT when it
 * had not finished at the limit (its group was killed; err: "ARGV did not answer within
 * 5 s"); CD_EIO otherwise (could not run, exited non-zero, printed more than
 * SPAWN_OUTPUT_LIMIT), err saying why. */
int spawn_capture(char *const argv[], char *out, size_t max, size_t *len, char *err);

/* The first executable name in $PATH, or name itself when it holds a '/'. CD_ENOTFOUND. */
int spawn_find_program(const char *name, char *path, size_t cap);

#endif
