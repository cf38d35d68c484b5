/* A member of an archive kept sparsely as it streams past: of its bytes only the pages that
 * hold what arch reads (headers and section tables, every fatbin container's and entry's
 * headers, small images, the marks the runtime checks look for) are copied into a zero-filled
 * buffer of the member's size, so the device-code readers run on it as on the whole file. */
#ifndef CUDOCTOR_BINFMT_SPARSE_H
#define CUDOCTOR_BINFMT_SPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPARSE_PAGE 4096
#define SPARSE_NEEDLES 3 /* the caller's two, and the ELF section names' */

struct sparse_range {
	size_t start, end; /* page-aligned, end may be the buffer's size */
};

struct sparse_cursor; /* a fatbin container being followed through the stream */

struct sparse_keep {
	unsigned char *map;          /* the caller's zero-filled buffer of size bytes */
	size_t size;
	uint64_t *kept;              /* one bit per page copied */
	size_t n_kept;               /* pages copied */
	bool first;                  /* the first pass keeps by what passes; later ones what was wanted */
	size_t pos;                  /* bytes fed in this pass */
	struct sparse_range *want;   /* pages to copy when the stream reaches them */
	size_t n_want, cap_want;
	struct sparse_cursor *cur;
	size_t n_cur, cap_cur;
	size_t steps;                /* container entries the cursors may still read */
	const char *needle[SPARSE_NEEDLES];
	size_t needle_before[SPARSE_NEEDLES], needle_after[SPARSE_NEEDLES];
	size_t needle_kept[SPARSE_NEEDLES], needle_last[SPARSE_NEEDLES];
	size_t last_container;       /* where the last container magic passed (+1; 0 none) */
	size_t chunk_cur;            /* the first cursor of this chunk's magics */
	bool seen_magic;             /* a container magic passed: the member may hold device code */
	unsigned char carry[64];     /* the end of the previous chunk: marks that span two chunks */
	size_t carry_len;
};

/* map: size bytes of zeros the caller owns. needles: up to two strings whose occurrences are
 * kept with 48 bytes after them (the first 64 of each, and the first after every container
 * magic), NULL-terminated. CD_OK or CD_ENOMEM. */
int sparse_init(struct sparse_keep *k, unsigned char *map, size_t size, const char *const *needles);
void sparse_free(struct sparse_keep *k);

/* Starts a pass over the member from its first byte: the first keeps by what passes, a later
 * one copies only the pages sparse_want named since. */
void sparse_pass(struct sparse_keep *k, bool first);
/* The pages of [off, off + len) are copied when the next pass reaches them. CD_OK, CD_ENOMEM. */
int sparse_want(struct sparse_keep *k, size_t off, size_t len);
/* The next len bytes of the member (every chunk but the last a multiple of SPARSE_PAGE).
 * CD_OK or CD_ENOMEM. */
int sparse_feed(struct sparse_keep *k, const unsigned char *chunk, size_t len);
bool sparse_page_kept(const struct sparse_keep *k, size_t page);

#endif
