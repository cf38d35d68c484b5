/* Output files: in place for devices and FIFOs, else a private temporary renamed over the
 * target; symlinks followed only where protected_symlinks would follow them. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_NOFOLLOW, O_CLOEXEC */
#endif
#include "util/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/err.h"
#include "util/str.h"

/* The directory part of path ("." when none), malloc'ed. */
static char *dir_part(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return cd_strdup(".");
	if (slash == path)
		return cd_strdup("/");
	return cd_strndup(path, (size_t)(slash - path));
}

/* Linux's protected_symlinks rule: in a sticky world-writable directory a symlink is
 * followed only when the caller or the directory's owner owns it. */
static bool symlink_is_planted(const char *path, const struct stat *link)
{
	struct stat dir;
	char *d = dir_part(path);
	bool planted;

	if (!d)
		return true;
	planted = stat(d, &dir) == 0 && (dir.st_mode & S_ISVTX) && (dir.st_mode & S_IWOTH) &&
		  link->st_uid != geteuid() && link->st_uid != dir.st_uid;
	free(d);
	return planted;
}

static int open_in_place(struct outfile *o, const struct stat *st, bool truncate, char *err)
{
	int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW;

	/* a FIFO with no reader: ENXIO at once instead of waiting for one forever */
	if (S_ISFIFO(st->st_mode))
		flags |= O_NONBLOCK;
	if (truncate)
		flags |= O_TRUNC;
	o->fd = open(o->path, flags);
	if (o->fd < 0) {
		if (errno == ENXIO && S_ISFIFO(st->st_mode))
			return cd_fail(err, CD_EIO, "%s %.200s: a FIFO with no reader; start the reader first", o->what,
				       o->path);
		return cd_fail(err, CD_EIO, "%s %.200s: %s", o->what, o->path, strerror(errno));
	}
	if (flags & O_NONBLOCK)
		fcntl(o->fd, F_SETFL, fcntl(o->fd, F_GETFL) & ~O_NONBLOCK);
	o->in_place = true;
	return CD_OK;
}

/* A temporary beside the target, created by this process alone (O_EXCL: a name someone
 * planted, link or file, is never opened). */
static int open_temporary(struct outfile *o, char *err)
{
	static unsigned counter;
	char *d = dir_part(o->path);
	const char *base = strrchr(o->path, '/') ? strrchr(o->path, '/') + 1 : o->path;
	struct timespec ts;
	int e = 0;

	if (!d)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	clock_gettime(CLOCK_REALTIME, &ts);
	for (int tries = 0; tries < 64; tries++) {
		unsigned long r = (unsigned long)ts.tv_nsec * 2654435761u ^ (unsigned long)getpid() << 16 ^ ++counter * 40503u;

		free(o->tmp);
		if (!(o->tmp = cd_asprintf("%s/.%.100s.%06lx.tmp", d, base, r & 0xffffff))) {
			free(d);
			return cd_fail(err, CD_ENOMEM, "out of memory");
		}
		o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
		if (o->fd >= 0) {
			free(d);
			return CD_OK;
		}
		e = errno;
		if (e != EEXIST)
			break;
		ts.tv_nsec += 7919;
	}
	free(d);
	free(o->tmp);
	o->tmp = NULL;
	/* a missing directory reads as the target's own error, as a plain open would say it */
	if (e == ENOENT || e == ENOTDIR)
		return cd_fail(err, CD_EIO, "%s %.200s: %s", o->what, o->path, strerror(e));
	return cd_fail(err, CD_EIO, "%s %.200s: cannot create a temporary file beside it: %s", o->what, o->path,
		       strerror(e));
}

int outfile_open(struct outfile *o, const char *path, const char *what, char *err)
{
	struct stat lst, st;
	mode_t um;
	int rc;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->what = what;
	o->sync = true;
	if (!path || !*path)
		return cd_fail(err, CD_EIO, "%s: an empty file name", what);
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		char real[PATH_MAX];

		if (symlink_is_planted(path, &lst))
			return cd_fail(err, CD_EIO,
				       "%s %.200s: a symlink owned by uid %u in a world-writable directory; "
				       "refused (remove it, or name the file it points to)",
				       what, path, (unsigned)lst.st_uid);
		if (!realpath(path, real))
			return cd_fail(err, CD_EIO, "%s %.200s: a symlink to a file that does not exist; refused", what,
				       path);
		o->path = cd_strdup(real);
	} else {
		o->path = cd_strdup(path);
	}
	if (!o->path)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if (stat(o->path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			rc = cd_fail(err, CD_EIO, "%s %.200s: a directory", what, path);
			goto fail;
		}
		if (S_ISSOCK(st.st_mode)) {
			rc = cd_fail(err, CD_EIO, "%s %.200s: a socket, not a file", what, path);
			goto fail;
		}
		if (!S_ISREG(st.st_mode)) {
			if ((rc = open_in_place(o, &st, false, err)) != CD_OK)
				goto fail;
			return CD_OK;
		}
		o->mode = st.st_mode & 07777;
		o->uid = st.st_uid;
		o->gid = st.st_gid;
		o->keep_owner = true;
		/* renaming a temporary of ours over another user's file would take it from them */
		if (st.st_uid != geteuid() && geteuid() != 0) {
			if ((rc = open_in_place(o, &st, true, err)) != CD_OK)
				goto fail;
			return CD_OK;
		}
	} else if (errno != ENOENT) {
		rc = cd_fail(err, CD_EIO, "%s %.200s: %s", what, path, strerror(errno));
		goto fail;
	} else {
		um = umask(0);
		umask(um);
		o->mode = 0666 & ~um;
	}
	if ((rc = open_temporary(o, err)) != CD_OK)
		goto fail;
	return CD_OK;
fail:
	free(o->path);
	o->path = NULL;
	return rc;
}

FILE *outfile_stream(struct outfile *o)
{
	if (!o->stream && o->fd >= 0)
		o->stream = fdopen(o->fd, "w");
	return o->stream;
}

/* Closes the descriptor (or the stream over it): 0, or the errno of the close. */
static int close_file(struct outfile *o)
{
	int e = 0;

	if (o->stream ? fclose(o->stream) != 0 : o->fd >= 0 && close(o->fd) != 0)
		e = errno;
	o->stream = NULL;
	o->fd = -1;
	return e;
}

static void release(struct outfile *o)
{
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
}

int outfile_commit(struct outfile *o, char *err)
{
	int rc = CD_OK, e = 0, ce;

	if (o->fd < 0)
		return cd_fail(err, CD_EIO, "%s: not open", o->what ? o->what : "output");
	if (o->stream && fflush(o->stream) != 0)
		e = errno ? errno : EIO;
	if (!e && o->tmp) {
		if (fchmod(o->fd, o->mode) != 0)
			e = errno;
		/* root keeps the old owner; anyone else reached here only for a file of their own */
		else if (o->keep_owner && geteuid() == 0 && fchown(o->fd, o->uid, o->gid) != 0)
			e = errno;
	}
	/* a device or FIFO has nothing to sync (EINVAL); a file must reach the disk before the rename */
	if (!e && o->sync && fsync(o->fd) != 0 && !(o->in_place && (errno == EINVAL || errno == EROFS)))
		e = errno;
	if ((ce = close_file(o)) != 0 && !e)
		e = ce;
	if (!e && o->tmp && rename(o->tmp, o->path) != 0)
		e = errno;
	if (e) {
		rc = cd_fail(err, CD_EIO, "%s %.200s: %s", o->what, o->path, strerror(e));
		if (o->tmp)
			unlink(o->tmp);
	}
	release(o);
	return rc;
}

void outfile_abort(struct outfile *o)
{
	bool had = o->fd >= 0;

	close_file(o);
	if (had && o->tmp)
		unlink(o->tmp);
	release(o);
}

int outfile_write_all(const char *path, const char *what, const void *data, size_t len, char *err)
{
	struct outfile o;
	const char *p = data;
	int rc;

	if ((rc = outfile_open(&o, path, what, err)) != CD_OK)
		return rc;
	while (len > 0) {
		ssize_t n = write(o.fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = cd_fail(err, CD_EIO, "%s %.200s: %s", what, path, n < 0 ? strerror(errno) : "short write");
			outfile_abort(&o);
			return rc;
		}
		p += n;
		len -= (size_t)n;
	}
	return outfile_commit(&o, err);
}
