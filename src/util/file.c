/* Read-only file access: mappings for parsers (only the pages touched are read; a file cut
 * short while mapped reads as zeros), bounded reads for small text. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "os/fs.h"
#include "os/map.h"
#include "util/err.h"
#include "util/file.h"
#include "util/safetext.h"

/* /dev/kmsg's device number on Linux */
#define KMSG_MAJOR 1
#define KMSG_MINOR 11

const char *file_kind_name(int kind)
{
	switch (kind) {
	case OS_DIR:
		return "a directory";
	case OS_FIFO:
		return "a FIFO (named pipe)";
	case OS_SOCKET:
		return "a socket";
	case OS_CHARDEV:
		return "a character device";
	case OS_BLOCKDEV:
		return "a block device";
	default:
		return "not a regular file";
	}
}

const char *file_error_reason(const char *path, const char *err)
{
	char safe[CD_ERRMSG];
	size_t n = safe_text(safe, sizeof safe, path, strlen(path), 0);

	if (n && strncmp(err, safe, n) == 0 && err[n] == ':' && err[n + 1] == ' ')
		return err + n + 2;
	return err;
}

/* path opened through os_open_input: a regular file, or the one device allowed (kmsg's). */
static int open_checked(const char *path, int dev_major, int dev_minor, int *fd, struct os_stat *st, int *sys_errno,
			char *err)
{
	int e = os_open_input(path, dev_major, dev_minor, fd, st);

	if (sys_errno)
		*sys_errno = e < 0 ? -e : 0;
	if (e == -OS_ECHANGED)
		return cd_fail(err, CD_EIO, "%s: changed while it was opened; skipped", path);
	if (e < 0)
		return cd_fail(err, e == -ENOENT ? CD_ENOTFOUND : CD_EIO, "%s: %s", path, strerror(-e));
	if (*fd < 0)
		return cd_fail(err, CD_EIO, "%s: %s, not a regular file; skipped", path, file_kind_name(st->kind));
	return CD_OK;
}

int file_open_input(const char *path, int *fd, size_t *size, char *err)
{
	struct os_stat st;
	int rc;

	*fd = -1;
	if (!path || !*path)
		return cd_fail(err, CD_EIO, "'' is an empty file name");
	if ((rc = open_checked(path, -1, -1, fd, &st, NULL, err)) != CD_OK)
		return rc == CD_ENOTFOUND ? CD_EIO : rc;
	*size = (size_t)st.size;
	return CD_OK;
}

/* Reads the whole of fd (size bytes as it was opened) into a buffer of its own: where a file
 * cannot be mapped (a file system without mmap, no address space left) it is read instead. */
static int read_copy(int fd, const char *path, size_t size, struct mapped_file *mf, char *err)
{
	unsigned char *buf = malloc(size ? size : 1);
	size_t used = 0;
	long long n;

	if (!buf)
		return cd_fail(err, CD_ENOMEM, "%s: out of memory", path);
	while (used < size && (n = os_read(fd, buf + used, size - used)) != 0) {
		if (n < 0) {
			free(buf);
			return cd_fail(err, CD_EIO, "%s: %s", path, strerror((int)-n));
		}
		used += (size_t)n;
	}
	mf->copy = buf;
	mf->data = buf;
	mf->size = used; /* shorter: the file shrank since it was opened */
	return CD_OK;
}

int file_map(const char *path, struct mapped_file *mf, char *err)
{
	size_t size = 0;
	int fd, rc;

	memset(mf, 0, sizeof(*mf));
	if ((rc = file_open_input(path, &fd, &size, err)) != CD_OK)
		return rc;
	if (os_map_fd(fd, size, &mf->map) != 0) {
		rc = read_copy(fd, path, size, mf, err);
		goto out;
	}
	mf->data = mf->map.data;
	mf->size = mf->map.size;
out:
	os_close(fd);
	return rc;
}

bool file_map_intact(const struct mapped_file *mf)
{
	return os_map_intact(&mf->map);
}

void file_unmap(struct mapped_file *mf)
{
	os_unmap(&mf->map);
	free(mf->copy);
	memset(mf, 0, sizeof(*mf));
}

void file_map_drop_pages(const struct mapped_file *mf)
{
	if (mf->map.data)
		os_map_release(mf->map.data, mf->map.size);
}

/* Reads fd into buf[*used .. max) until the end, no more data for now (a device opened
 * without blocking), or less than room bytes left; records a device overwrote while they were
 * read (EPIPE) are skipped. The errno of a failed read goes to *sys_errno (when not NULL). */
static int read_into(int fd, const char *path, char *buf, size_t max, size_t room, size_t *used, int *sys_errno,
		     char *err)
{
	int overwritten = 0;
	long long n;

	while (max - *used >= room) {
		n = os_read(fd, buf + *used, max - *used);
		/* EPIPE: /dev/kmsg's next read returns the oldest record left */
		if (n == -EPIPE && ++overwritten < 4096)
			continue;
		if (n == -EAGAIN)
			break;
		if (n < 0) {
			if (sys_errno)
				*sys_errno = (int)-n;
			return cd_fail(err, CD_EIO, "%s: %s", path, strerror((int)-n));
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
	os_close(fd);
	return rc;
}

int file_read_records(const char *path, size_t max, char **out, size_t *len, int *sys_errno, char *err)
{
	/* /dev/kmsg returns one record per read and refuses a buffer smaller than the record
	 * (EINVAL): reads stop while this much room is left */
	const size_t record_max = 8192;
	struct os_stat st;
	char *buf = NULL;
	size_t used = 0;
	int fd, rc = CD_OK;

	*out = NULL;
	*len = 0;
	*sys_errno = 0;
	/* the kernel log is a file (a copy) or the kernel's own /dev/kmsg, character device 1:11;
	 * any other device is refused before it is opened */
	if ((rc = open_checked(path, KMSG_MAJOR, KMSG_MINOR, &fd, &st, sys_errno, err)) != CD_OK)
		return rc;
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
	os_close(fd);
	return rc;
}

bool path_is_file(const char *path)
{
	struct os_stat st;

	return os_stat(path, &st) == 0 && st.kind == OS_FILE;
}

bool path_is_dir(const char *path)
{
	struct os_stat st;

	return os_stat(path, &st) == 0 && st.kind == OS_DIR;
}
