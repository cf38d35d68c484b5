/* A bounded MessagePack reader (msgpack spec, "Formats"): one value's head at a time and
 * skipping whole values, every length checked against the buffer and nesting capped. */
#ifndef CUDOCTOR_BINFMT_MSGPACK_H
#define CUDOCTOR_BINFMT_MSGPACK_H

#include <stddef.h>
#include <stdint.h>

#define MP_DEPTH_MAX 32 /* AMDGPU metadata nests 4 deep; deeper is not a code object's */

enum mp_type { MP_NIL, MP_BOOL, MP_UINT, MP_INT, MP_FLOAT, MP_STR, MP_BIN, MP_ARRAY, MP_MAP, MP_EXT };

struct mp_reader {
	const unsigned char *data;
	size_t size, pos;
};

struct mp_value {
	enum mp_type type;
	uint64_t u;            /* MP_UINT, MP_BOOL; MP_ARRAY/MP_MAP: element (pair) count */
	int64_t i;             /* MP_INT (negative) */
	const unsigned char *s; /* MP_STR, MP_BIN, MP_EXT: len bytes inside the buffer */
	size_t len;
};

/* The next value's head: scalars and strings whole, arrays and maps by count (their
 * elements follow). CD_EFORMAT when it runs past the buffer or is the unused byte 0xc1. */
int mp_next(struct mp_reader *r, struct mp_value *v, char *err);
/* Skips the next value and everything it holds. */
int mp_skip(struct mp_reader *r, char *err);
/* Skips what the head v (just read) holds: a map's or array's elements, nothing else. */
int mp_skip_body(struct mp_reader *r, const struct mp_value *v, char *err);

#endif
