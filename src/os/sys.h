/* The calls of the OS layer a fault can hit, made through one table (SQLite's aSyscall[]):
 * each entry starts as the platform's own call, and a test replaces entries at run time to
 * make a read short or interrupted, a write fail with ENOSPC, an open, a map, a thread or a
 * library fail. The functions of os/ above these entries (os_read's retry on EINTR, the map's
 * guard, os_dl_open's reason) stay the code under test. */
#ifndef CUDOCTOR_OS_SYS_H
#define CUDOCTOR_OS_SYS_H

#include <stddef.h>

#include "os/dl.h"
#include "os/thread.h"

struct os_sys {
	/* One read of at most n bytes: how many (fewer than n is no error), 0 at the end, or a
	 * negative errno; -EINTR means try again. */
	long long (*read)(int fd, void *buf, size_t n);
	/* One write of at most n bytes: how many were written, or a negative errno. */
	long long (*write)(int fd, const void *buf, size_t n);
	/* Opens path (UTF-8) with the platform's open flags and mode: a descriptor or a negative
	 * errno. */
	int (*open)(const char *path, int oflags, unsigned mode);
	/* Maps size (> 0) bytes of fd read-only into *p: 0 or a negative errno. */
	int (*map)(int fd, size_t size, void **p);
	/* Starts t->fn(t->arg) on a thread of its own, its handle in t->handle: 0 or a negative
	 * errno. */
	int (*thread_start)(struct os_thread *t);
	/* Loads a library as os_dl_open says: the handle, or NULL and why. */
	void *(*dl_open)(const char *name, enum os_dl_search search, char *why, size_t cap);
};

/* What os/ calls; a test may assign any entry and must put back what it took. */
extern struct os_sys os_sys;
/* The platform's own calls, what os_sys starts as. */
extern const struct os_sys os_sys_real;

#endif
