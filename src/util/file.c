/* Read-only file access: mmap for parsers (only the pages touched are read; a file cut short
 * while mapped reads as zeros, not SIGBUS), bounded reads for small text. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/err.h"
#include "util/file.h"

const char *file_kind_name(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO (named pipe)";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	return "not a regular file";
}

int file_open_input(const char *path, int *fd, size_t *size, char *err)
{
	struct stat st;
	int e;

	*fd = -1;
	if (!path || !*path)
		return cd_fail(err, CD_EIO, "'' is an empty file name");
	/* O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting */
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (*fd < 0) {
		e = errno;
		/* a socket cannot be opened (ENXIO): name what it is */
		if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
			return cd_fail(err, CD_EIO, "%s: %s, not a regular file; skipped", path, file_kind_name(st.st_mode));
		return cd_fail(err, CD_EIO, "%s: %s", path, strerror(e));
	}
	if (fstat(*fd, &st) != 0) {
		e = errno;
		close(*fd);
		*fd = -1;
		return cd_fail(err, CD_EIO, "%s: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(*fd);
		*fd = -1;
		return cd_fail(err, CD_EIO, "%s: %s, not a regular file; skipped", path, file_kind_name(st.st_mode));
	}
	*size = (size_t)st.st_size;
	return CD_OK;
}

/* ---- the SIGBUS guard over mappings (file.h) ---- */

#define GUARD_SLOTS 64

static struct guard_slot {
	volatile uintptr_t lo, hi; /* [lo, hi) mapped; hi 0: free */
	volatile sig_atomic_t hit;
} guards[GUARD_SLOTS];
static struct sigaction previous_bus;
static uintptr_t guard_page = 4096; /* read once outside the handler: sysconf is not signal-safe */

/* Not ours: what was there before decides (a sanitizer's handler, or the default that ends
 * the process with SIGBUS when the faulting access runs again). */
static void pass_on(int sig, siginfo_t *si, void *ctx)
{
	if ((previous_bus.sa_flags & SA_SIGINFO) && previous_bus.sa_sigaction) {
		previous_bus.sa_sigaction(sig, si, ctx);
		return;
	}
	if (previous_bus.sa_handler != SIG_DFL && previous_bus.sa_handler != SIG_IGN) {
		previous_bus.sa_handler(sig);
		return;
	}
	signal(sig, SIG_DFL);
}

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t a = (uintptr_t)si->si_addr, page = guard_page;

	for (size_t i = 0; i < GUARD_SLOTS; i++) {
		if (!guards[i].hi || a < guards[i].lo || a >= guards[i].hi)
			continue;
		/* zeros where the file's bytes were: the access runs again and reads them */
		if (mmap((void *)(a & ~(page - 1)), (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) == MAP_FAILED)
			break;
		guards[i].hit = 1;
		return;
	}
	pass_on(sig, si, ctx);
}

static int guard_add(const void *base, size_t size)
{
	struct sigaction cur;

	/* installed once, and again whenever someone replaced it since (a test harness that
	 * restores its own handlers after each test) */
	if (sigaction(SIGBUS, NULL, &cur) != 0)
		return 0;
	if (!(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != on_sigbus) {
		struct sigaction sa;
		long pg = sysconf(_SC_PAGESIZE);

		if (pg > 0)
			guard_page = (uintptr_t)pg;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_sigbus;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGBUS, &sa, &previous_bus) != 0)
			return 0;
	}
	for (size_t i = 0; i < GUARD_SLOTS; i++)
		if (!guards[i].hi) {
			guards[i].hit = 0;
			guards[i].lo = (uintptr_t)base;
			guards[i].hi = (uintptr_t)base + size;
			return (int)i + 1;
		}
	return 0; /* more mappings open at once than slots: this one goes unguarded */
}

int file_map(const char *path, struct mapped_file *mf, char *err)
{
	size_t size;
	void *p;
	int fd, rc;

	memset(mf, 0, sizeof(*mf));
	if ((rc = file_open_input(path, &fd, &size, err)) != CD_OK)
		return rc;
	if (size == 0)
		goto out;
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		rc = cd_fail(err, CD_EIO, "%s: mmap: %s", path, strerror(errno));
		goto out;
	}
	mf->data = p;
	mf->size = size;
	mf->map_base = p;
	mf->map_size = size;
	mf->guard = guard_add(p, size);
out:
	close(fd);
	return rc;
}

bool file_map_intact(const struct mapped_file *mf)
{
	return !mf->guard || !guards[mf->guard - 1].hit;
}

void file_unmap(struct mapped_file *mf)
{
	if (mf->guard) {
		guards[mf->guard - 1].hi = 0;
		guards[mf->guard - 1].lo = 0;
	}
	if (mf->map_base)
		munmap(mf->map_base, mf->map_size);
	memset(mf, 0, sizeof(*mf));
}

void file_map_drop_pages(const struct mapped_file *mf)
{
	if (mf->map_base)
		madvise(mf->map_base, mf->map_size, MADV_DONTNEED);
}

/* Reads fd into buf[*used .. max) until the end, no more data for now (a device opened
 * without blocking), or less than room bytes left; records a device overwrote while they were
 * read (EPIPE) are skipped. The errno of a failed read goes to *sys_errno (when not NULL). */
static int read_into(int fd, const char *path, char *buf, size_t max, size_t room, size_t *used, int *sys_errno,
		     char *err)
{
	int overwritten = 0;
	ssize_t n;

	while (max - *used >= room) {
		n = read(fd, buf + *used, max - *used);
		/* EPIPE: /dev/kmsg's next read returns the oldest record left */
		if (n < 0 && (errno == EINTR || (errno == EPIPE && ++overwritten < 4096)))
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0) {
			if (sys_errno)
				*sys_errno = errno;
			return cd_fail(err, CD_EIO, "%s: %s", path, strerror(errno));
		}
		if (n == 0)
			break;
		*used += (size_t)n;
	}
	return CD_OK;
}

int file_read_text(const char *path, size_t max, char **out, size_t *len, char *err)
{
	char *buf = NULL;
	size_t used = 0;
	int fd, rc = CD_OK;

	*out = NULL;
	if (len)
		*len = 0;
	if ((rc = file_open_input(path, &fd, &(size_t){ 0 }, err)) != CD_OK)
		return rc;
	buf = malloc(max + 1);
	if (!buf) {
		rc = cd_fail(err, CD_ENOMEM, "%s: out of memory", path);
		goto out;
	}
	if ((rc = read_into(fd, path, buf, max, 1, &used, NULL, err)) != CD_OK)
		goto out;
	buf[used] = '\0';
	*out = buf;
	buf = NULL;
	if (len)
		*len = used;
out:
	free(buf);
	close(fd);
	return rc;
}

int file_read_records(const char *path, size_t max, char **out, size_t *len, int *sys_errno, char *err)
{
	/* /dev/kmsg returns one record per read and refuses a buffer smaller than the record
	 * (EINVAL): reads stop while this much room is left */
	const size_t record_max = 8192;
	struct stat st;
	char *buf = NULL;
	size_t used = 0;
	int fd, rc = CD_OK;

	*out = NULL;
	*len = 0;
	*sys_errno = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		*sys_errno = errno;
		return cd_fail(err, errno == ENOENT ? CD_ENOTFOUND : CD_EIO, "%s: %s", path, strerror(errno));
	}
	if (fstat(fd, &st) != 0) {
		*sys_errno = errno;
		rc = cd_fail(err, CD_EIO, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
		rc = cd_fail(err, CD_EIO, "%s: %s, not a record device; skipped", path, file_kind_name(st.st_mode));
		goto out;
	}
	buf = malloc(max + 1);
	if (!buf) {
		rc = cd_fail(err, CD_ENOMEM, "%s: out of memory", path);
		goto out;
	}
	if ((rc = read_into(fd, path, buf, max, max < record_max ? 1 : record_max, &used, sys_errno, err)) != CD_OK)
		goto out;
	buf[used] = '\0';
	*out = buf;
	*len = used;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return rc;
}

bool path_is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool path_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}
