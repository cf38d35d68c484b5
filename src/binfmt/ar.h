/* Static archives (`ar`, GNU and BSD name styles): members read in place. */
#ifndef CUDOCTOR_BINFMT_AR_H
#define CUDOCTOR_BINFMT_AR_H

#include <stdbool.h>
#include <stddef.h>

struct ar_iter {
	const unsigned char *data;
	size_t size;
	size_t next;                 /* offset of the next member header */
	const unsigned char *names;  /* GNU "//" long-name table, or NULL */
	size_t names_len;
};

struct ar_member {
	char name[256];              /* NUL-terminated, truncated if longer */
	const unsigned char *data;
	size_t size;
	size_t offset;               /* of the member's data in the archive */
};

bool ar_has_magic(const unsigned char *data, size_t size);
int ar_open(struct ar_iter *it, const unsigned char *data, size_t size, char *err);
/* 1 = a member (symbol and name tables are skipped), 0 = end, negative = malformed. */
int ar_next(struct ar_iter *it, struct ar_member *m, char *err);

#endif
