/* Zip archives (wheels, .zip) read in place: end of central directory (zip64 too), central
 * directory entries, local headers; stored and deflate members inflated with a bounded
 * output, their declared sizes checked rather than trusted. */
#ifndef CUDOCTOR_BINFMT_ZIP_H
#define CUDOCTOR_BINFMT_ZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "binfmt/budget.h"

#define ZIP_STORED 0
#define ZIP_DEFLATE 8
/* Deflate cannot expand past about 1032:1; a member that declares more is a bomb or damage. */
#define ZIP_DEFLATE_RATIO 1032u
/* The most one member may inflate to: a CUDA library is at most a few GB (torch's largest
 * near 1.5 GB); the member is held in memory while it is judged. */
#define ZIP_MEMBER_MAX ((uint64_t)4 << 30)

struct zip_archive {
	const unsigned char *data;
	size_t size;
	size_t cd_off;        /* central directory, bounds-checked */
	size_t cd_size;
	uint64_t n_entries;   /* as the end record declares */
	size_t next;          /* offset of the next central entry (iteration) */
	uint64_t seen;        /* entries read so far */
	struct archive_budget *budget; /* what all members may inflate to together; NULL: no bound
					  beyond each member's own (the caller sets it) */
	unsigned char *overlap;        /* zip_find_overlaps: a bit per entry whose bytes another's share */
};

struct zip_member {
	const char *name;     /* inside the archive, name_len bytes, not NUL-terminated */
	size_t name_len;
	uint16_t flags, method;
	uint32_t crc;
	uint64_t comp_size, size; /* from the central directory (zip64 extra when 0xffffffff) */
	uint64_t local_off;
	bool overlaps;        /* its [local header, data end) shares bytes with another member's
				 (zip_find_overlaps): one stored member inflated many times over */
};

/* "PK\3\4" (a member first) or "PK\5\6" (an empty archive). */
bool zip_has_magic(const unsigned char *data, size_t size);

/* Finds the end of central directory record (and its zip64 form) and checks that the
 * central directory lies inside the buffer. */
int zip_open(struct zip_archive *z, const unsigned char *data, size_t size, char *err);

/* Marks every member whose [local header, end of data) overlaps another member's, in one pass
 * over the central directory (sorted: n log n), so the walk can skip them: any number of central
 * entries may point at one local header. Held until zip_close. CD_OK, CD_ENOMEM, or the central
 * directory's damage (CD_EFORMAT). */
int zip_find_overlaps(struct zip_archive *z, char *err);
void zip_close(struct zip_archive *z);

/* The next central directory entry: 1 a member, 0 the end, negative malformed. */
int zip_next(struct zip_archive *z, struct zip_member *m, char *err);

/* Whether the member's name ends in '/' (a folder entry). */
bool zip_member_is_dir(const struct zip_member *m);

/* The member's stored bytes, behind its local header: *out points into the archive. */
int zip_member_stored(const struct zip_archive *z, const struct zip_member *m, const unsigned char **out,
		      size_t *len, char *err);

/* The member's first bytes: inflates at most want bytes into buf (*got of them; fewer only when
 * the member is shorter). CD_OK, CD_EFORMAT (damaged), CD_EUNSUPPORTED (method, encryption). */
int zip_member_head(const struct zip_archive *z, const struct zip_member *m, unsigned char *buf, size_t want,
		    size_t *got, char *err);

/* A member read front to back into the caller's buffer, a chunk at a time: refused when it
 * declares more than cap, more than deflate can expand to or more than the archive's budget has
 * left; when it ends it must have given
 * exactly its declared size and its CRC-32. Holds zlib's state (32 KiB window), nothing of
 * the member. */
struct zip_stream {
	const struct zip_member *m;
	const unsigned char *src;  /* the member's stored bytes, inside the archive */
	size_t src_len, fed;       /* of src: bytes given to zlib (or copied, stored) */
	void *z;                   /* z_stream for deflate, NULL stored */
	uint64_t out;              /* bytes given so far */
	uint32_t crc;
	bool ended;
	struct archive_budget *budget; /* the archive's, charged with every byte given; NULL none */
};

int zip_stream_open(struct zip_stream *s, const struct zip_archive *z, const struct zip_member *m, uint64_t cap,
		    char *err);
/* The next bytes: buf filled up to want (fewer only at the member's end); *got 0 once the
 * member ended and its size and CRC-32 were checked. CD_OK, CD_EFORMAT. */
int zip_stream_read(struct zip_stream *s, unsigned char *buf, size_t want, size_t *got, char *err);
/* The archive's bytes read so far end here (a caller that mapped it may release them). */
const unsigned char *zip_stream_upto(const struct zip_stream *s);
void zip_stream_close(struct zip_stream *s);

/* The whole member, malloc'ed (caller frees), read through a zip_stream. */
int zip_member_read(const struct zip_archive *z, const struct zip_member *m, uint64_t cap, unsigned char **out,
		    size_t *len, char *err);

#endif
