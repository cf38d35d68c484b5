/* Read-only file access: mappings for parsers (only the pages touched are read; a file cut
 * short while mapped reads as zeros), bounded reads for small text. */
#include <stdlib.h>
#include <string.h>

#include "os/fs.h"
#include "os/map.h"
#include "util/err.h"
#include "util/file.h"

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

int file_open_input(const char *path, int *fd, size_t *size, char *err)
{
	struct os_stat st;
	int e;

	*fd = -1;
	if (!path || !*path)
		return cd_fail(err, CD_EIO, "'' is an empty file name");
	if ((e = os_open_read(path, fd)) != 0) {
		/* a socket cannot be opened (ENXIO): name what it is */
		if (os_stat(path, &st) == 0 && st.kind != OS_FILE)
			return cd_fail(err, CD_EIO, "%s: %s, not a regular file; skipped", path, file_kind_name(st.kind));
		return cd_fail(err, CD_EIO, "%s: %s", path, strerror(-e));
	}
	if ((e = os_fstat(*fd, &st)) != 0) {
		os_close(*fd);
		*fd = -1;
		return cd_fail(err, CD_EIO, "%s: %s", path, strerror(-e));
	}
	if (st.kind != OS_FILE) {
		os_close(*fd);
		*fd = -1;
		return cd_fail(err, CD_EIO, "%s: %s, not a regular file; skipped", path, file_kind_name(st.kind));
	}
	*size = (size_t)st.size;
	return CD_OK;
}

int file_map(const char *path, struct mapped_file *mf, char *err)
{
	size_t size;
	int fd, rc, e;

	memset(mf, 0, sizeof(*mf));
	if ((rc = file_open_input(path, &fd, &size, err)) != CD_OK)
		return rc;
	if ((e = os_map_fd(fd, size, &mf->map)) != 0) {
		rc = cd_fail(err, CD_EIO, "%s: mmap: %s", path, strerror(-e));
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
	memset(mf, 0, sizeof(*mf));
}

void file_map_drop_pages(const struct mapped_file *mf)
{
	if (mf->map.data)
		os_map_release(mf->map.data, mf->map.size);
}

int file_read_text(const char *path, size_t max, char **out, size_t *len, char *err)
{
	char *buf = NULL;
	size_t used = 0;
	long long n;
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
	while (used < max) {
		n = os_read(fd, buf + used, max - used);
		if (n < 0) {
			rc = cd_fail(err, CD_EIO, "%s: %s", path, strerror((int)-n));
			goto out;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
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
