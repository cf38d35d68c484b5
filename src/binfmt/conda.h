/* Conda packages: a `.conda` (a zip holding info-*.tar.zst and pkg-*.tar.zst) or a bare
 * `.tar.zst`, read as a tar stream through zstd with a bounded window, front to back. */
#ifndef CUDOCTOR_BINFMT_CONDA_H
#define CUDOCTOR_BINFMT_CONDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "binfmt/tar.h"
#include "binfmt/zip.h"

#define CONDA_WINDOW_LOG_MAX 27 /* 128 MiB: a frame that needs a larger window is refused */
/* The most a tarball may decompress to, whatever its frames declare: a conda package of
 * CUDA libraries is a few GB. */
#define CONDA_TAR_MAX ((uint64_t)32 << 30)

/* Whether the zip member is a conda package's payload tarball (pkg-*.tar.zst). */
bool conda_is_pkg_member(const char *name, size_t len);
/* A zstd frame's magic. */
bool conda_has_zstd_magic(const unsigned char *data, size_t size);

struct conda_tar {
	const struct zip_archive *z;    /* the zip member holding the tarball, or NULL: src is it */
	const struct zip_member *m;
	struct zip_stream zs;
	bool zs_open;
	const unsigned char *src;       /* a bare .tar.zst */
	size_t src_len, src_pos;
	void *dctx;                     /* ZSTD_DStream */
	unsigned char *in;              /* compressed bytes from the zip member */
	size_t in_len, in_pos;
	bool in_ended, frame_done;
	uint64_t out;                   /* bytes decompressed */
	struct tar_reader tar;
	struct archive_budget *budget;  /* the archive's, charged with every byte decompressed: z's
					   budget, or for a bare .tar.zst what the caller sets after
					   opening; NULL none */
};

/* From the zip member m of z, or (z NULL) from the zstd stream src. Nothing is read yet. */
int conda_tar_open(struct conda_tar *c, const struct zip_archive *z, const struct zip_member *m,
		   const unsigned char *src, size_t src_len, char *err);
/* The next entry: 1, 0 the end, negative damaged (tar_next). */
int conda_tar_next(struct conda_tar *c, struct tar_entry *e, char *err);
/* The current entry's bytes (tar_read). */
int conda_tar_read(struct conda_tar *c, unsigned char *buf, size_t want, size_t *got, char *err);
/* Back to the start, then on to the data of entry ordinal, which must be named name. */
int conda_tar_rewind(struct conda_tar *c, uint64_t ordinal, const char *name, char *err);
/* Where the compressed input has been read up to (a mapped archive may release before it). */
const unsigned char *conda_tar_upto(const struct conda_tar *c);
void conda_tar_close(struct conda_tar *c);

#endif
