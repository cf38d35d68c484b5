/* Read-only file access: mmap for parsers (only the pages touched are read), bounded reads for small text. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/err.h"
#include "util/file.h"

int file_map(const char *path, struct mapped_file *mf, char *err)
{
	struct stat st;
	void *p;
	int fd, rc = CD_OK;

	memset(mf, 0, sizeof(*mf));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cd_fail(err, CD_EIO, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0) {
		rc = cd_fail(err, CD_EIO, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = cd_fail(err, CD_EIO, "%s: not a regular file", path);
		goto out;
	}
	if (st.st_size == 0)
		goto out;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		rc = cd_fail(err, CD_EIO, "%s: mmap: %s", path, strerror(errno));
		goto out;
	}
	mf->data = p;
	mf->size = (size_t)st.st_size;
	mf->map_base = p;
	mf->map_size = (size_t)st.st_size;
out:
	close(fd);
	return rc;
}

void file_unmap(struct mapped_file *mf)
{
	if (mf->map_base)
		munmap(mf->map_base, mf->map_size);
	memset(mf, 0, sizeof(*mf));
}

int file_read_text(const char *path, size_t max, char **out, size_t *len, char *err)
{
	char *buf = NULL;
	size_t used = 0;
	ssize_t n;
	int fd, rc = CD_OK;

	*out = NULL;
	if (len)
		*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cd_fail(err, CD_EIO, "%s: %s", path, strerror(errno));
	buf = malloc(max + 1);
	if (!buf) {
		rc = cd_fail(err, CD_ENOMEM, "%s: out of memory", path);
		goto out;
	}
	while (used < max) {
		n = read(fd, buf + used, max - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = cd_fail(err, CD_EIO, "%s: %s", path, strerror(errno));
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
