/* MessagePack heads read big-endian from a bounded buffer; skipping walks elements with
 * an explicit count per level, so a lying count stops at the buffer's end. */
#include "binfmt/msgpack.h"

#include <string.h>

#include "util/err.h"

static uint64_t be(const unsigned char *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static int need(struct mp_reader *r, size_t n, char *err)
{
	if (r->size - r->pos < n)
		return cd_fail(err, CD_EFORMAT, "msgpack value at %zu runs past its %zu bytes", r->pos, r->size);
	return CD_OK;
}

/* A value of n bytes' length field then that many bytes. */
static int sized(struct mp_reader *r, struct mp_value *v, enum mp_type t, size_t lenbytes, char *err)
{
	int rc;
	if ((rc = need(r, lenbytes, err)))
		return rc;
	uint64_t len = be(r->data + r->pos, lenbytes);
	r->pos += lenbytes;
	if (t == MP_EXT) { /* ext: a type byte after the length */
		if ((rc = need(r, 1, err)))
			return rc;
		r->pos++;
	}
	if (len > r->size - r->pos)
		return cd_fail(err, CD_EFORMAT, "msgpack string of %llu bytes at %zu runs past the buffer",
			       (unsigned long long)len, r->pos);
	v->type = t;
	v->s = r->data + r->pos;
	v->len = (size_t)len;
	r->pos += (size_t)len;
	return CD_OK;
}

static int number(struct mp_reader *r, struct mp_value *v, enum mp_type t, size_t n, char *err)
{
	int rc;
	if ((rc = need(r, n, err)))
		return rc;
	uint64_t x = be(r->data + r->pos, n);
	r->pos += n;
	v->type = t;
	if (t == MP_INT) {
		if (n < 8 && (x >> (8 * n - 1)) & 1) /* sign-extend */
			x |= ~(uint64_t)0 << (8 * n);
		v->i = (int64_t)x;
		if (v->i >= 0) { /* a signed format holding a non-negative number */
			v->type = MP_UINT;
			v->u = x;
		}
	} else {
		v->u = x;
	}
	return CD_OK;
}

/* A container's count: each element takes at least a byte, so a count beyond the buffer is a lie. */
static int container(struct mp_reader *r, struct mp_value *v, enum mp_type t, size_t n, char *err)
{
	int rc;
	if ((rc = need(r, n, err)))
		return rc;
	v->type = t;
	v->u = be(r->data + r->pos, n);
	r->pos += n;
	if (v->u > (r->size - r->pos) / (t == MP_MAP ? 2 : 1))
		return cd_fail(err, CD_EFORMAT, "msgpack %s at %zu declares %llu elements, more than its bytes hold",
			       t == MP_MAP ? "map" : "array", r->pos, (unsigned long long)v->u);
	return CD_OK;
}

int mp_next(struct mp_reader *r, struct mp_value *v, char *err)
{
	int rc;
	memset(v, 0, sizeof(*v));
	if ((rc = need(r, 1, err)))
		return rc;
	unsigned b = r->data[r->pos++];
	if (b <= 0x7f || b >= 0xe0) {
		v->type = b <= 0x7f ? MP_UINT : MP_INT;
		v->u = b;
		v->i = (int8_t)b;
		return CD_OK;
	}
	if (b >= 0x80 && b <= 0x9f) { /* fixmap, fixarray: the count is in the byte itself */
		v->type = b <= 0x8f ? MP_MAP : MP_ARRAY;
		v->u = b & 0x0f;
		if (v->u > (r->size - r->pos) / (v->type == MP_MAP ? 2 : 1))
			return cd_fail(err, CD_EFORMAT, "msgpack container at %zu declares more elements than its bytes hold",
				       r->pos - 1);
		return CD_OK;
	}
	if (b >= 0xa0 && b <= 0xbf) {
		size_t len = b - 0xa0;
		if (len > r->size - r->pos)
			return cd_fail(err, CD_EFORMAT, "msgpack string at %zu runs past the buffer", r->pos);
		v->type = MP_STR;
		v->s = r->data + r->pos;
		v->len = len;
		r->pos += len;
		return CD_OK;
	}
	switch (b) {
	case 0xc0: v->type = MP_NIL; return CD_OK;
	case 0xc2: case 0xc3: v->type = MP_BOOL; v->u = b == 0xc3; return CD_OK;
	case 0xc4: return sized(r, v, MP_BIN, 1, err);
	case 0xc5: return sized(r, v, MP_BIN, 2, err);
	case 0xc6: return sized(r, v, MP_BIN, 4, err);
	case 0xc7: return sized(r, v, MP_EXT, 1, err);
	case 0xc8: return sized(r, v, MP_EXT, 2, err);
	case 0xc9: return sized(r, v, MP_EXT, 4, err);
	case 0xca: if ((rc = need(r, 4, err))) return rc; r->pos += 4; v->type = MP_FLOAT; return CD_OK;
	case 0xcb: if ((rc = need(r, 8, err))) return rc; r->pos += 8; v->type = MP_FLOAT; return CD_OK;
	case 0xcc: return number(r, v, MP_UINT, 1, err);
	case 0xcd: return number(r, v, MP_UINT, 2, err);
	case 0xce: return number(r, v, MP_UINT, 4, err);
	case 0xcf: return number(r, v, MP_UINT, 8, err);
	case 0xd0: return number(r, v, MP_INT, 1, err);
	case 0xd1: return number(r, v, MP_INT, 2, err);
	case 0xd2: return number(r, v, MP_INT, 4, err);
	case 0xd3: return number(r, v, MP_INT, 8, err);
	case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8: { /* fixext: type byte and 1..16 bytes */
		size_t len = (size_t)1 << (b - 0xd4);
		if ((rc = need(r, 1 + len, err)))
			return rc;
		v->type = MP_EXT;
		v->s = r->data + r->pos + 1;
		v->len = len;
		r->pos += 1 + len;
		return CD_OK;
	}
	case 0xd9: return sized(r, v, MP_STR, 1, err);
	case 0xda: return sized(r, v, MP_STR, 2, err);
	case 0xdb: return sized(r, v, MP_STR, 4, err);
	case 0xdc: return container(r, v, MP_ARRAY, 2, err);
	case 0xdd: return container(r, v, MP_ARRAY, 4, err);
	case 0xde: return container(r, v, MP_MAP, 2, err);
	case 0xdf: return container(r, v, MP_MAP, 4, err);
	default:
		return cd_fail(err, CD_EFORMAT, "msgpack byte 0x%02x at %zu is no value", b, r->pos - 1);
	}
}

int mp_skip_body(struct mp_reader *r, const struct mp_value *v, char *err)
{
	uint64_t left[MP_DEPTH_MAX]; /* values still to skip at each open level */
	size_t depth = 0;
	struct mp_value x;
	int rc;

	if (v->type != MP_ARRAY && v->type != MP_MAP)
		return CD_OK;
	left[depth++] = v->type == MP_MAP ? v->u * 2 : v->u;
	while (depth) {
		if (!left[depth - 1]) {
			depth--;
			continue;
		}
		left[depth - 1]--;
		if ((rc = mp_next(r, &x, err)))
			return rc;
		if (x.type != MP_ARRAY && x.type != MP_MAP)
			continue;
		if (depth == MP_DEPTH_MAX)
			return cd_fail(err, CD_EFORMAT, "msgpack nests deeper than %d levels at %zu", MP_DEPTH_MAX, r->pos);
		left[depth++] = x.type == MP_MAP ? x.u * 2 : x.u;
	}
	return CD_OK;
}

int mp_skip(struct mp_reader *r, char *err)
{
	struct mp_value v;
	int rc = mp_next(r, &v, err);
	return rc ? rc : mp_skip_body(r, &v, err);
}
