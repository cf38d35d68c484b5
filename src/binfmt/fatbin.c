/* Walks fatbin containers and entry headers; payloads are located, never read. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem, strnlen */
#endif
#include "binfmt/fatbin.h"

#include <string.h>

#include "binfmt/bytes.h"
#include "util/err.h"

static const unsigned char container_sig[8] = {0x50, 0xED, 0x55, 0xBA, 0x01, 0x00, 0x10, 0x00};

bool fatbin_is_container_at(const unsigned char *data, size_t size, size_t off)
{
	return data && in_bounds(off, FATBIN_HEADER_SIZE, size) &&
	       memcmp(data + off, container_sig, sizeof(container_sig)) == 0;
}

int fatbin_container_open(struct fatbin_container *c, const unsigned char *data, size_t size,
			  size_t off, char *err)
{
	memset(c, 0, sizeof(*c));
	if (!data || !in_bounds(off, FATBIN_HEADER_SIZE, size))
		return cd_fail(err, CD_EFORMAT, "fatbin header truncated at offset 0x%zx", off);
	if (rd32(data + off) != FATBIN_MAGIC)
		return cd_fail(err, CD_EFORMAT, "no fatbin magic at offset 0x%zx", off);
	if (rd16(data + off + 4) != 1 || rd16(data + off + 6) != FATBIN_HEADER_SIZE)
		return cd_fail(err, CD_EUNSUPPORTED,
			       "fatbin version %u header size %u at offset 0x%zx (expected 1 and 16)",
			       rd16(data + off + 4), rd16(data + off + 6), off);
	uint64_t fat_size = rd64(data + off + 8);
	if (!in_bounds(off + FATBIN_HEADER_SIZE, fat_size, size))
		return cd_fail(err, CD_EFORMAT,
			       "fatbin at offset 0x%zx claims %llu bytes, only %zu remain", off,
			       (unsigned long long)fat_size, size - off - FATBIN_HEADER_SIZE);
	c->data = data;
	c->size = size;
	c->offset = off;
	c->next = off + FATBIN_HEADER_SIZE;
	c->end = c->next + (size_t)fat_size;
	return CD_OK;
}

int fatbin_next_entry(struct fatbin_container *c, struct fatbin_entry *e, char *err)
{
	if (c->next == c->end)
		return 0;
	size_t off = c->next;
	size_t room = c->end - off;
	if (room < FATBIN_ENTRY_MIN_HEADER)
		return cd_fail(err, CD_EFORMAT, "fatbin entry header truncated at offset 0x%zx", off);
	const unsigned char *p = c->data + off;
	memset(e, 0, sizeof(*e));
	e->offset = off;
	e->kind = rd16(p);
	e->header_size = rd32(p + 4);
	e->payload_size = rd64(p + 8);
	e->compressed_size = rd32(p + 16);
	uint32_t opt_off = rd32(p + 20);
	e->version_minor = rd16(p + 24);
	e->version_major = rd16(p + 26);
	e->arch = rd32(p + 28);
	uint32_t ident_off = rd32(p + 32), ident_len = rd32(p + 36);
	e->flags = rd64(p + 40);
	e->uncompressed_size = rd64(p + 56);
	if (e->header_size < FATBIN_ENTRY_MIN_HEADER || e->header_size % 8)
		return cd_fail(err, CD_EFORMAT, "fatbin entry at offset 0x%zx has header size %u",
			       off, e->header_size);
	if (!in_bounds(e->header_size, e->payload_size, room))
		return cd_fail(err, CD_EFORMAT,
			       "fatbin entry at offset 0x%zx runs past its container end 0x%zx", off,
			       c->end);
	/* Strings and the options descriptor must lie inside the entry header. */
	if (ident_off && ident_len && in_bounds(ident_off, ident_len, e->header_size)) {
		e->ident = (const char *)p + ident_off;
		e->ident_len = strnlen(e->ident, ident_len);
	}
	if (opt_off && in_bounds(opt_off, 8, e->header_size)) {
		uint32_t o = rd32(p + opt_off), l = rd32(p + opt_off + 4);
		if (l && in_bounds(o, l, e->header_size)) {
			e->options = (const char *)p + o;
			e->options_len = l;
		}
	}
	e->payload = p + e->header_size;
	e->payload_len = (size_t)e->payload_size;
	if (fatbin_entry_compression(e) != FATBIN_RAW && e->compressed_size &&
	    e->compressed_size <= e->payload_size)
		e->payload_len = e->compressed_size;
	c->next = off + e->header_size + (size_t)e->payload_size;
	c->n_entries++;
	return 1;
}

/* The walk behind fatbin_container_valid_at, charging each entry read to *steps; false once
 * they are spent. */
static bool valid_within(const unsigned char *data, size_t size, size_t off, size_t *steps)
{
	struct fatbin_container c;
	struct fatbin_entry e;
	if (!fatbin_is_container_at(data, size, off) || fatbin_container_open(&c, data, size, off, NULL))
		return false;
	int rc = 0;
	while (*steps > 0 && (rc = fatbin_next_entry(&c, &e, NULL)) == 1)
		--*steps;
	return *steps > 0 && rc == 0;
}

bool fatbin_container_valid_at(const unsigned char *data, size_t size, size_t off)
{
	size_t steps = SIZE_MAX;
	return valid_within(data, size, off, &steps);
}

#if defined(__SSE2__)
#include <emmintrin.h>
/* True when some 8-aligned word of the 64 bytes at p starts with the container magic: four
 * 16-byte compares per block, so the common case (no magic) costs a few instructions per
 * 64 bytes instead of a compare per word. Lanes 0 and 2 of each load are the aligned ones. */
static bool block_has_magic(const unsigned char *p)
{
	const __m128i magic = _mm_set1_epi32((int)FATBIN_MAGIC);
	__m128i eq = _mm_or_si128(
		_mm_or_si128(_mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)p), magic),
			     _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(p + 16)), magic)),
		_mm_or_si128(_mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(p + 32)), magic),
			     _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(p + 48)), magic)));
	return (_mm_movemask_epi8(eq) & 0x0F0F) != 0;
}
#endif

size_t fatbin_scan(const unsigned char *data, size_t size, size_t from, size_t until)
{
	/* Containers sit at 8-byte aligned offsets (every size in them is a multiple of 8 and
	 * the sections holding them are 8-aligned), so only aligned words are compared. */
	uint64_t sig;
	memcpy(&sig, container_sig, sizeof(sig));
	if (until > size)
		until = size;
	size_t off = (from + 7) & ~(size_t)7;
	/* Each magic found is validated by walking its entries. A real file's containers are each
	 * walked once and a stray magic fails at its first entry, but crafted entries that each
	 * hold a container magic make every walk run to the end: quadratic (1.6 MB in 6 s). The
	 * walks of one scan share a budget in proportion to the bytes scanned; once it is spent
	 * the rest of the range holds no container. */
	size_t steps = (until > off ? (until - off) / 4 : 0) + 4096;
	while (data && off < until && size - off >= FATBIN_HEADER_SIZE) {
#if defined(__SSE2__)
		if ((off & 63) == 0 && until - off >= 64 && size - off >= 64 && !block_has_magic(data + off)) {
			off += 64;
			continue;
		}
#endif
		uint64_t w;
		memcpy(&w, data + off, sizeof(w));
		if (w == sig && valid_within(data, size, off, &steps))
			return off;
		if (steps == 0)
			return size;
		off += 8;
	}
	return size;
}

enum fatbin_compression fatbin_entry_compression(const struct fatbin_entry *e)
{
	if (e->flags & FATBIN_FLAG_ZSTD)
		return FATBIN_ZSTD;
	if (e->flags & FATBIN_FLAG_LZ4)
		return FATBIN_LZ4;
	return FATBIN_RAW;
}

uint64_t fatbin_entry_image_size(const struct fatbin_entry *e)
{
	if (fatbin_entry_compression(e) != FATBIN_RAW && e->uncompressed_size)
		return e->uncompressed_size;
	return e->payload_size;
}

const char *fatbin_kind_name(uint16_t kind)
{
	switch (kind) {
	case FATBIN_KIND_PTX: return "ptx";
	case FATBIN_KIND_ELF: return "sass";
	case FATBIN_KIND_NVVM: return "nvvm";
	default: return NULL;
	}
}

const char *fatbin_arch_suffix(uint64_t flags)
{
	if (flags & FATBIN_FLAG_ARCH_SPECIFIC)
		return "a";
	if (flags & FATBIN_FLAG_FAMILY)
		return "f";
	return "";
}
