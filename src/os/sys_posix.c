/* os/sys.h on POSIX: the table's entries are read, write, open, mmap, pthread_create and
 * dlopen, each once, with no retry and no policy: the os/ function above decides. */
#include "os/sys.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

_Static_assert(sizeof(pthread_t) <= sizeof(((struct os_thread *)0)->handle), "pthread_t fits a handle");

static long long real_read(int fd, void *buf, size_t n)
{
	ssize_t r = read(fd, buf, n);

	return r < 0 ? -errno : (long long)r;
}

static long long real_write(int fd, const void *buf, size_t n)
{
	ssize_t r = write(fd, buf, n);

	return r < 0 ? -errno : (long long)r;
}

static int real_open(const char *path, int oflags, unsigned mode)
{
	int fd = open(path, oflags, (mode_t)mode);

	return fd < 0 ? -errno : fd;
}

static int real_map(int fd, size_t size, void **p)
{
	void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);

	if (m == MAP_FAILED)
		return -errno;
	*p = m;
	return 0;
}

static void *trampoline(void *arg)
{
	struct os_thread *t = arg;

	t->fn(t->arg);
	return NULL;
}

static int real_thread_start(struct os_thread *t)
{
	pthread_t th;
	int e = pthread_create(&th, NULL, trampoline, t);

	if (e != 0)
		return -e;
	memcpy(t->handle, &th, sizeof th);
	return 0;
}

static void *real_dl_open(const char *name, enum os_dl_search search, char *why, size_t cap)
{
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	(void)search; /* the dynamic loader's own search is the system's */
	if (!h && cap) {
		e = dlerror();
		snprintf(why, cap, "%s", e ? e : "cannot load");
	}
	return h;
}

#define REAL_CALLS                                                                                     \
	{                                                                                              \
		.read = real_read, .write = real_write, .open = real_open, .map = real_map,            \
		.thread_start = real_thread_start, .dl_open = real_dl_open,                            \
	}

const struct os_sys os_sys_real = REAL_CALLS;
struct os_sys os_sys = REAL_CALLS;
