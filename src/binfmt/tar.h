/* Tar streams (POSIX ustar and pax, GNU long names) read front to back from a byte source:
 * headers checked by their checksum, every size bounded and none trusted past the stream. */
#ifndef CUDOCTOR_BINFMT_TAR_H
#define CUDOCTOR_BINFMT_TAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TAR_BLOCK 512
#define TAR_NAME_MAX 4096            /* a longer path (pax or GNU long name) is refused */
#define TAR_META_MAX ((size_t)1 << 20) /* of a pax header or a GNU long name record */

/* The bytes under the tar stream: CD_OK with *got < want only where they end. */
typedef int (*tar_read_fn)(void *ctx, unsigned char *buf, size_t want, size_t *got, char *err);

struct tar_entry {
	char name[TAR_NAME_MAX + 1]; /* NUL-terminated (a name holding NUL is cut there) */
	size_t name_len;
	uint64_t size;               /* of its data, as declared: read through tar_read */
	char type;                   /* '0' (or NUL) a regular file, '5' a folder, ... */
	uint64_t ordinal;            /* 0 the first entry */
};

struct tar_reader {
	tar_read_fn read;
	void *ctx;
	uint64_t left;   /* data of the current entry not yet given */
	uint64_t pad;    /* and the padding after it */
	uint64_t n;      /* entries given */
	bool ended;
};

void tar_init(struct tar_reader *t, tar_read_fn read, void *ctx);
/* Passes the rest of the current entry, then reads the next header (pax and GNU long-name
 * records folded into it): 1 an entry, 0 the end (two zero blocks, or the stream's end on a
 * block boundary), negative damaged. */
int tar_next(struct tar_reader *t, struct tar_entry *e, char *err);
/* The current entry's next bytes: up to want, fewer only at its end (*got 0 there); an entry
 * whose stream ends before its declared size is damaged. */
int tar_read(struct tar_reader *t, unsigned char *buf, size_t want, size_t *got, char *err);

/* One header block: whether its checksum holds (both the unsigned and signed sums count). */
bool tar_checksum_ok(const unsigned char blk[TAR_BLOCK]);

#endif
