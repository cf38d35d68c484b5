/* The faults of cudoctor_faults, a test-only build of cudoctor: before main runs, the class
 * CUDOCTOR_FAULT names replaces entries of os/sys.h's table, and the allocation calls of
 * cudoctor's own code (linked with --wrap) fail where it says. Never part of cudoctor itself.
 *
 *   CUDOCTOR_FAULT=CLASS[@N]    N: the first call that fails (1 unless given)
 *     short    every read of a file or pipe returns 1 to 7 bytes (callers must loop)
 *     eintr    every other read and write fails with EINTR first (os/ must retry)
 *     enomem   the Nth allocation (malloc, calloc, realloc, strdup, strndup) fails, once
 *     enospc   every write from the Nth fails with ENOSPC (stdout included: below)
 *     eacces   the Nth open of an input (read only) fails with EACCES, once
 *     mmap     every map fails with ENOMEM
 *     thread   no thread starts (EAGAIN)
 *     dlopen   no library loads
 *   CUDOCTOR_FAULT_TRACE=1      the failing allocation's stack on stderr
 *   CUDOCTOR_FAULT_COUNTS=FILE  at exit, how many allocations, reads, writes and opens were
 *                               made ("alloc N" a line each): where a test places its N
 *
 * stdout's bytes are C stdio's, written by libc's own write, which the table cannot reach:
 * here stdout is a stream whose bytes go through os_write, so a full disk under --output
 * reaches main.c as it would from the kernel, through a failed fflush. */
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "os/fs.h"
#include "os/sys.h"

enum fault { F_NONE, F_SHORT, F_EINTR, F_ENOMEM, F_ENOSPC, F_EACCES, F_MMAP, F_THREAD, F_DLOPEN };

static enum fault fault;
static unsigned long long first = 1;
static atomic_ullong n_alloc, n_read, n_write, n_open, n_input;
static const char *counts_file;
static bool trace; /* CUDOCTOR_FAULT_TRACE: the failing allocation's stack on stderr */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

/* Whether this allocation is the one that fails. */
static int alloc_fails(void)
{
	unsigned long long k = atomic_fetch_add(&n_alloc, 1) + 1;

	if (fault != F_ENOMEM || k != first)
		return 0;
	if (trace) {
		void *frames[32];

		backtrace_symbols_fd(frames, backtrace(frames, 32), 2);
	}
	errno = ENOMEM;
	return 1;
}

void *__wrap_malloc(size_t n)
{
	return alloc_fails() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return alloc_fails() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	return alloc_fails() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return alloc_fails() ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	return alloc_fails() ? NULL : __real_strndup(s, n);
}

static long long faulty_read(int fd, void *buf, size_t n)
{
	unsigned long long k = atomic_fetch_add(&n_read, 1) + 1;
	struct os_stat st;

	if (fault == F_EINTR && k % 2)
		return -EINTR;
	/* a device of records (/dev/kmsg) refuses a smaller buffer: a short read is a file's or
	 * a pipe's */
	if (fault == F_SHORT && n > 1 && os_fstat(fd, &st) == 0 && (st.kind == OS_FILE || st.kind == OS_FIFO))
		n = 1 + k % (n - 1 < 7 ? n - 1 : 7);
	return os_sys_real.read(fd, buf, n);
}

static long long faulty_write(int fd, const void *buf, size_t n)
{
	unsigned long long k = atomic_fetch_add(&n_write, 1) + 1;

	if (fault == F_EINTR && k % 2)
		return -EINTR;
	if (fault == F_ENOSPC && k >= first)
		return -ENOSPC;
	return os_sys_real.write(fd, buf, n);
}

static int faulty_open(const char *path, int oflags, unsigned mode)
{
	atomic_fetch_add(&n_open, 1);
	if (fault == F_EACCES && (oflags & O_ACCMODE) == O_RDONLY && atomic_fetch_add(&n_input, 1) + 1 == first)
		return -EACCES;
	return os_sys_real.open(path, oflags, mode);
}

static int failed_map(int fd, size_t size, void **p)
{
	return -ENOMEM;
}

static int failed_thread(struct os_thread *t)
{
	return -EAGAIN;
}

static void *failed_dl_open(const char *name, enum os_dl_search search, char *why, size_t cap)
{
	if (cap)
		snprintf(why, cap, "%s: cannot open shared object file: injected fault", name);
	return NULL;
}

/* stdout through os_write (above) */
static ssize_t stdout_write(void *cookie, const char *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		long long w = os_write(OS_STDOUT, buf + done, n - done);

		if (w <= 0) {
			errno = w < 0 ? (int)-w : EIO;
			return (ssize_t)done; /* fewer than n: stdio marks the stream failed */
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

static void write_counts(void)
{
	FILE *f;

	if (!counts_file || !(f = fopen(counts_file, "w")))
		return;
	fprintf(f, "alloc %llu\nread %llu\nwrite %llu\nopen %llu\n", (unsigned long long)n_alloc,
		(unsigned long long)n_read, (unsigned long long)n_write, (unsigned long long)n_open);
	fclose(f);
}

__attribute__((constructor)) static void faults_install(void)
{
	static const struct {
		const char *name;
		enum fault f;
	} classes[] = { { "short", F_SHORT },	{ "eintr", F_EINTR }, { "enomem", F_ENOMEM }, { "enospc", F_ENOSPC },
			{ "eacces", F_EACCES }, { "mmap", F_MMAP },   { "thread", F_THREAD }, { "dlopen", F_DLOPEN } };
	const char *spec = getenv("CUDOCTOR_FAULT"), *at;
	cookie_io_functions_t io = { .write = stdout_write };
	FILE *out;
	size_t len;

	counts_file = getenv("CUDOCTOR_FAULT_COUNTS");
	trace = getenv("CUDOCTOR_FAULT_TRACE") != NULL;
	if (counts_file)
		atexit(write_counts);
	if (spec) {
		at = strchr(spec, '@');
		len = at ? (size_t)(at - spec) : strlen(spec);
		for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
			if (strlen(classes[i].name) == len && !strncmp(spec, classes[i].name, len))
				fault = classes[i].f;
		if (at)
			first = strtoull(at + 1, NULL, 10);
		if (fault == F_NONE) {
			fprintf(stderr, "cudoctor_faults: unknown CUDOCTOR_FAULT '%s'\n", spec);
			exit(2);
		}
	}
	os_sys.read = faulty_read;
	os_sys.write = faulty_write;
	os_sys.open = faulty_open;
	if (fault == F_MMAP)
		os_sys.map = failed_map;
	if (fault == F_THREAD)
		os_sys.thread_start = failed_thread;
	if (fault == F_DLOPEN)
		os_sys.dl_open = failed_dl_open;
	if ((out = fopencookie(NULL, "w", io)))
		stdout = out;
}
