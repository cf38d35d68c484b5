/* A conda package's payload: zstd frames (ZSTD_decompressStream, window at most
 * 2^CONDA_WINDOW_LOG_MAX) read from a zip member's stream or a mapped .tar.zst, the tar
 * entries on top of them (tar.c). */
#include "binfmt/conda.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "util/err.h"

#define IN_CHUNK ((size_t)1 << 20)

bool conda_is_pkg_member(const char *name, size_t len)
{
	return len > 12 && memcmp(name, "pkg-", 4) == 0 && memcmp(name + len - 8, ".tar.zst", 8) == 0 &&
	       !memchr(name, '/', len);
}

bool conda_has_zstd_magic(const unsigned char *data, size_t size)
{
	return data && size >= 4 && data[0] == 0x28 && data[1] == 0xB5 && data[2] == 0x2F && data[3] == 0xFD;
}

/* More compressed bytes into in (from the zip member), when those there are used. */
static int fill(struct conda_tar *c, char *err)
{
	if (!c->z) {
		c->in_ended = true;
		return CD_OK;
	}
	size_t got = 0;
	int rc = zip_stream_read(&c->zs, c->in, IN_CHUNK, &got, err);
	if (rc)
		return rc;
	c->in_len = got;
	c->in_pos = 0;
	c->in_ended = got == 0;
	return CD_OK;
}

/* The tarball's bytes: tar.c's source. */
static int decompressed(void *ctx, unsigned char *buf, size_t want, size_t *got, char *err)
{
	struct conda_tar *c = ctx;
	*got = 0;
	while (*got < want) {
		ZSTD_inBuffer in;
		if (c->z) {
			if (c->in_pos == c->in_len && !c->in_ended) {
				int rc = fill(c, err);
				if (rc)
					return rc;
			}
			in = (ZSTD_inBuffer){c->in, c->in_len, c->in_pos};
		} else
			in = (ZSTD_inBuffer){c->src, c->src_len, c->src_pos};
		bool no_input = in.pos == in.size;
		if (no_input && c->frame_done)
			break; /* the stream ends between frames (or before the first) */
		ZSTD_outBuffer out = {buf + *got, want - *got, 0};
		size_t r = ZSTD_decompressStream(c->dctx, &out, &in);
		if (c->z)
			c->in_pos = in.pos;
		else
			c->src_pos = in.pos;
		if (ZSTD_isError(r))
			return cd_fail(err, CD_EFORMAT, "zstd: %s after %llu bytes", ZSTD_getErrorName(r),
				       (unsigned long long)c->out);
		*got += out.pos;
		c->out += out.pos;
		if (c->budget && out.pos) {
			int rc = archive_budget_inflate(c->budget, out.pos, err);
			if (rc)
				return rc;
		}
		c->frame_done = r == 0;
		if (c->out > CONDA_TAR_MAX)
			return cd_fail(err, CD_EUNSUPPORTED, "the tarball decompresses to over %llu bytes",
				       (unsigned long long)CONDA_TAR_MAX);
		if (no_input && out.pos == 0) {
			if (!c->frame_done)
				return cd_fail(err, CD_EFORMAT, "zstd: the stream is cut short after %llu bytes",
					       (unsigned long long)c->out);
			break;
		}
	}
	return CD_OK;
}

static int start(struct conda_tar *c, char *err)
{
	int rc;
	c->out = 0;
	c->in_len = c->in_pos = c->src_pos = 0;
	c->in_ended = false;
	c->frame_done = true; /* no frame begun */
	if (c->z) {
		if (c->zs_open)
			zip_stream_close(&c->zs);
		c->zs_open = false;
		if ((rc = zip_stream_open(&c->zs, c->z, c->m, CONDA_TAR_MAX, err)))
			return rc;
		c->zs_open = true;
	}
	ZSTD_DCtx_reset(c->dctx, ZSTD_reset_session_only);
	tar_init(&c->tar, decompressed, c);
	return CD_OK;
}

int conda_tar_open(struct conda_tar *c, const struct zip_archive *z, const struct zip_member *m,
		   const unsigned char *src, size_t src_len, char *err)
{
	int rc;
	memset(c, 0, sizeof(*c));
	c->z = z;
	c->m = m;
	c->src = src;
	c->src_len = src_len;
	c->budget = z ? z->budget : NULL;
	if (!(c->dctx = ZSTD_createDStream()) || (z && !(c->in = malloc(IN_CHUNK)))) {
		conda_tar_close(c);
		return cd_fail(err, CD_ENOMEM, "out of memory for zstd");
	}
	if (ZSTD_isError(ZSTD_DCtx_setParameter(c->dctx, ZSTD_d_windowLogMax, CONDA_WINDOW_LOG_MAX))) {
		conda_tar_close(c);
		return cd_fail(err, CD_EUNSUPPORTED, "zstd: cannot bound the window");
	}
	if ((rc = start(c, err)))
		conda_tar_close(c);
	return rc;
}

int conda_tar_next(struct conda_tar *c, struct tar_entry *e, char *err)
{
	int more = tar_next(&c->tar, e, err);
	if (more != 0)
		return more;
	/* behind the tar's end: the frames' checksums and the zip member's CRC-32 are checked
	 * where the stream ends, so damage to what was judged is named */
	unsigned char pad[4096];
	size_t got;
	do {
		int rc = decompressed(c, pad, sizeof pad, &got, err);
		if (rc)
			return rc;
	} while (got);
	while (c->z && !c->in_ended) {
		int rc = fill(c, err);
		if (rc)
			return rc;
		if (c->in_len)
			return cd_fail(err, CD_EFORMAT, "bytes follow the tarball's zstd frames");
	}
	return 0;
}

int conda_tar_read(struct conda_tar *c, unsigned char *buf, size_t want, size_t *got, char *err)
{
	return tar_read(&c->tar, buf, want, got, err);
}

int conda_tar_rewind(struct conda_tar *c, uint64_t ordinal, const char *name, char *err)
{
	struct tar_entry *e = malloc(sizeof(*e));
	int rc, more = 0;
	if (!e)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if ((rc = start(c, err)))
		goto out;
	while ((more = tar_next(&c->tar, e, err)) > 0 && e->ordinal < ordinal)
		;
	if (more < 0)
		rc = more;
	else if (more == 0 || e->ordinal != ordinal || strcmp(e->name, name) != 0)
		rc = cd_fail(err, CD_EFORMAT, "tar entry %llu is not the same on a second reading",
			     (unsigned long long)ordinal);
out:
	free(e);
	return rc;
}

const unsigned char *conda_tar_upto(const struct conda_tar *c)
{
	if (!c->z)
		return c->src + c->src_pos;
	return c->zs_open ? zip_stream_upto(&c->zs) : NULL;
}

void conda_tar_close(struct conda_tar *c)
{
	if (c->zs_open)
		zip_stream_close(&c->zs);
	if (c->dctx)
		ZSTD_freeDStream(c->dctx);
	free(c->in);
	memset(c, 0, sizeof(*c));
}
