/* Output files, written the one way every writer (--output, --html, lab --plot, fleet --save
 * and --prometheus) uses: never a device or FIFO replaced, never a planted link followed. */
#ifndef CUDOCTOR_OUTFILE_H
#define CUDOCTOR_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

/* What outfile_open decided:
 * - the target exists and is not a regular file (/dev/null, a FIFO, a character or block
 *   device): it is written in place, never replaced (a FIFO with no reader is refused
 *   rather than waited on);
 * - otherwise a temporary file beside the target, created with O_EXCL|O_NOFOLLOW, gets the
 *   bytes; outfile_commit gives it the old file's mode and owner (a new file: 0666 less the
 *   umask), fsyncs it and renames it over the target, so a reader sees the old file or the
 *   whole new one. Where the old owner cannot be kept (not root, another user's file) the
 *   file is written in place instead, so it keeps its owner;
 * - a symlink is followed to its target, except one the caller does not own in a
 *   world-writable sticky directory (/tmp) whose owner did not make it either: refused, as
 *   the kernel's protected_symlinks would. A dangling symlink is refused too. */
struct outfile {
	int fd;            /* write here (or through stream) */
	FILE *stream;      /* outfile_stream's, or NULL */
	char *path;        /* the file written: the target, its symlink resolved */
	char *tmp;         /* the temporary beside it; NULL when writing in place */
	bool in_place;
	unsigned mode;     /* for the temporary at commit */
	unsigned uid;
	unsigned gid;
	bool keep_owner;   /* the target existed: give the temporary its owner */
	bool sync;         /* fsync before the rename (outfile_open sets it); a writer racing a
			      SIGKILL (fleet rank 0 under a launcher tearing the job down) clears it:
			      the rename still shows readers the whole file or none */
	const char *what;  /* the option, for messages ("--output") */
};

/* Opens path for writing as above. what names the option in messages ("--html").
 * CD_OK; CD_EIO (err says why: a directory, a refused symlink, no FIFO reader, ...). */
int outfile_open(struct outfile *o, const char *path, const char *what, char *err);
/* A stdio stream over the file (closed by commit/abort); NULL when out of memory. */
FILE *outfile_stream(struct outfile *o);
/* Flushes, fsyncs, renames the temporary into place and closes. On failure the temporary
 * is removed and the target is left as it was. CD_OK or CD_EIO. */
int outfile_commit(struct outfile *o, char *err);
/* Closes and removes the temporary; the target is left as it was. Safe after commit. */
void outfile_abort(struct outfile *o);

/* Removes every temporary open now (their targets stay as they were): for a process that
 * must end where nothing can unwind to outfile_abort. */
void outfile_remove_temporaries(void);

/* Writes len bytes of data to path through the above, in one go. */
int outfile_write_all(const char *path, const char *what, const void *data, size_t len, char *err);

#endif
