/* Output files: in place for devices and FIFOs, else a private temporary renamed over the
 * target; symlinks followed only where protected_symlinks would follow them. */
#include "util/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "os/clock.h"
#include "os/fs.h"
#include "os/host.h"
#include "os/proc.h"
#include "util/err.h"
#include "util/str.h"

/* The directory part of path ("." when none), malloc'ed. */
static char *dir_part(const char *path)
{
	const char *slash = os_last_sep(path);

	if (!slash)
		return cd_strdup(".");
	if (slash == path)
		return cd_strdup("/");
	return cd_strndup(path, (size_t)(slash - path));
}

/* Linux's protected_symlinks rule: in a sticky world-writable directory a symlink is
 * followed only when the caller or the directory's owner owns it. */
static bool symlink_is_planted(const char *path, const struct os_stat *link)
{
	struct os_stat dir;
	char *d = dir_part(path);
	bool planted;

	if (!d)
		return true;
	planted = os_stat(d, &dir) == 0 && dir.sticky_world_writable && link->uid != os_uid() && link->uid != dir.uid;
	free(d);
	return planted;
}

/* The first symlink along path, the last component included, that protected_symlinks would not
 * follow: a folder link planted in /tmp leads the temporary and the rename elsewhere as surely as
 * a file link does. Its prefix into planted (n bytes) and its owner; false when none is. */
static bool planted_component(const char *path, char *planted, size_t n, unsigned *uid)
{
	size_t len = strlen(path);
	char *prefix = cd_strdup(path);
	bool found = false;

	*uid = 0;
	if (!prefix) { /* refused rather than followed unchecked */
		snprintf(planted, n, "%s", path);
		return true;
	}
	for (size_t end = 1; end <= len && !found; end++) {
		struct os_stat lst;
		char keep;

		if (end < len && !os_is_sep(path[end]))
			continue;
		if (os_is_sep(path[end - 1]))
			continue; /* "/" itself, or a doubled separator */
		keep = prefix[end];
		prefix[end] = '\0';
		if (os_lstat(prefix, &lst) == 0 && lst.kind == OS_LINK && symlink_is_planted(prefix, &lst)) {
			snprintf(planted, n, "%s", prefix);
			*uid = lst.uid;
			found = true;
		}
		prefix[end] = keep;
	}
	free(prefix);
	return found;
}

static int open_in_place(struct outfile *o, const struct os_stat *st, bool truncate, char *err)
{
	int flags = 0, e;

	/* a FIFO with no reader: ENXIO at once instead of waiting for one forever */
	if (st->kind == OS_FIFO)
		flags |= OS_W_NONBLOCK;
	if (truncate)
		flags |= OS_W_TRUNC;
	if ((e = os_open_write(o->path, flags, 0, &o->fd)) != 0) {
		if (e == -ENXIO && st->kind == OS_FIFO)
			return cd_fail(err, CD_EIO, "%s %.200s: a FIFO with no reader; start the reader first", o->what,
				       o->path);
		return cd_fail(err, CD_EIO, "%s %.200s: %s", o->what, o->path, strerror(-e));
	}
	if (flags & OS_W_NONBLOCK)
		os_set_blocking(o->fd);
	o->in_place = true;
	return CD_OK;
}

/* The temporaries open now, removed if the run is interrupted (os_on_interrupt): only
 * pointers are kept, so the handler reads nothing that is being freed; at most 8 at once */
static const char *volatile open_tmps[8];

static void remove_open_tmps(void)
{
	for (size_t i = 0; i < sizeof open_tmps / sizeof open_tmps[0]; i++)
		if (open_tmps[i])
			os_unlink(open_tmps[i]);
}

static void remove_on_interrupt(const char *path)
{
	for (size_t i = 0; i < sizeof open_tmps / sizeof open_tmps[0]; i++)
		if (!open_tmps[i]) {
			open_tmps[i] = path;
			return;
		}
}

void outfile_remove_temporaries(void)
{
	remove_open_tmps();
}

static void forget_on_interrupt(const char *path)
{
	for (size_t i = 0; path && i < sizeof open_tmps / sizeof open_tmps[0]; i++)
		if (open_tmps[i] == path)
			open_tmps[i] = NULL;
}

/* A temporary beside the target, created by this process alone (O_EXCL: a name someone
 * planted, link or file, is never opened). */
static int open_temporary(struct outfile *o, char *err)
{
	static unsigned counter;
	char *d = dir_part(o->path);
	const char *base = os_last_sep(o->path) ? os_last_sep(o->path) + 1 : o->path;
	unsigned long ns = (unsigned long)(os_monotonic_s() * 1e9);
	int e = 0;

	if (!d)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	for (int tries = 0; tries < 64; tries++) {
		unsigned long r = ns * 2654435761u ^ (unsigned long)os_pid() << 16 ^ ++counter * 40503u;

		free(o->tmp);
		if (!(o->tmp = cd_asprintf("%s/.%.100s.%06lx.tmp", d, base, r & 0xffffff))) {
			free(d);
			return cd_fail(err, CD_ENOMEM, "out of memory");
		}
		/* created and listed in one step: Ctrl-C at any point leaves no temporary */
		os_on_interrupt(remove_open_tmps);
		os_interrupts_hold(true);
		if ((e = -os_open_write(o->tmp, OS_W_EXCL, 0600, &o->fd)) == 0)
			remove_on_interrupt(o->tmp);
		os_interrupts_hold(false);
		if (e == 0) {
			free(d);
			return CD_OK;
		}
		if (e != EEXIST)
			break;
		ns += 7919;
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
	struct os_stat lst, st;
	int rc, e;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->what = what;
	o->sync = true;
	if (!path || !*path)
		return cd_fail(err, CD_EIO, "%s: an empty file name", what);
	{
		char planted[4096];
		unsigned uid;

		if (planted_component(path, planted, sizeof planted, &uid))
			return strcmp(planted, path) == 0
				       ? cd_fail(err, CD_EIO,
						 "%s %.200s: a symlink owned by uid %u in a world-writable directory; "
						 "refused (remove it, or name the file it points to)",
						 what, path, uid)
				       : cd_fail(err, CD_EIO,
						 "%s %.200s: %.200s is a symlink owned by uid %u in a world-writable "
						 "directory; refused (name the folder it points to)",
						 what, path, planted, uid);
	}
	if (os_lstat(path, &lst) == 0 && lst.kind == OS_LINK) {
		char real[4096];

		if (!os_realpath(path, real, sizeof real))
			return cd_fail(err, CD_EIO, "%s %.200s: a symlink to a file that does not exist; refused", what,
				       path);
		o->path = cd_strdup(real);
	} else {
		o->path = cd_strdup(path);
	}
	if (!o->path)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if ((e = os_stat(o->path, &st)) == 0) {
		if (st.kind == OS_DIR) {
			rc = cd_fail(err, CD_EIO, "%s %.200s: a directory", what, path);
			goto fail;
		}
		if (st.kind == OS_SOCKET) {
			rc = cd_fail(err, CD_EIO, "%s %.200s: a socket, not a file", what, path);
			goto fail;
		}
		if (st.kind != OS_FILE) {
			if ((rc = open_in_place(o, &st, false, err)) != CD_OK)
				goto fail;
			return CD_OK;
		}
		o->mode = st.mode;
		o->uid = st.uid;
		o->gid = st.gid;
		o->keep_owner = true;
		/* renaming a temporary of ours over another user's file would take it from them */
		if (st.uid != os_uid() && !os_is_admin()) {
			if ((rc = open_in_place(o, &st, true, err)) != CD_OK)
				goto fail;
			return CD_OK;
		}
	} else if (e != -ENOENT) {
		rc = cd_fail(err, CD_EIO, "%s %.200s: %s", what, path, strerror(-e));
		goto fail;
	} else {
		o->mode = os_new_file_mode();
	}
	if ((rc = open_temporary(o, err)) != CD_OK) {
		/* a folder the user may not write, holding a file they may: written in place, as the
		 * shell's > would (a reader may then see half a report) */
		if (e == 0 && st.uid == os_uid() && os_access(o->path, OS_WRITE))
			rc = open_in_place(o, &st, true, err);
		if (rc != CD_OK)
			goto fail;
	}
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

	if (o->stream ? fclose(o->stream) != 0 : o->fd >= 0 && (e = -os_close(o->fd)) != 0)
		e = e ? e : errno;
	o->stream = NULL;
	o->fd = -1;
	return e;
}

static void release(struct outfile *o)
{
	forget_on_interrupt(o->tmp);
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
	/* root keeps the old owner; anyone else reached here only for a file of their own */
	if (!e && o->tmp)
		e = -os_fchmod_own(o->fd, o->mode, o->keep_owner, o->uid, o->gid);
	/* a device or FIFO has nothing to sync (EINVAL); a file must reach the disk before the rename */
	if (!e && o->sync && (ce = -os_fsync(o->fd)) != 0 && !(o->in_place && (ce == EINVAL || ce == EROFS)))
		e = ce;
	if ((ce = close_file(o)) != 0 && !e)
		e = ce;
	if (!e && o->tmp)
		e = -os_rename(o->tmp, o->path);
	if (e) {
		rc = cd_fail(err, CD_EIO, "%s %.200s: %s", o->what, o->path, strerror(e));
		if (o->tmp)
			os_unlink(o->tmp);
	}
	release(o);
	return rc;
}

void outfile_abort(struct outfile *o)
{
	bool had = o->fd >= 0;

	close_file(o);
	if (had && o->tmp)
		os_unlink(o->tmp);
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
		long long n = os_write(o.fd, p, len);

		if (n <= 0) {
			rc = cd_fail(err, CD_EIO, "%s %.200s: %s", what, path, n < 0 ? strerror((int)-n) : "short write");
			outfile_abort(&o);
			return rc;
		}
		p += n;
		len -= (size_t)n;
	}
	return outfile_commit(&o, err);
}
