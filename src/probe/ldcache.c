/* Parser for glibc's /etc/ld.so.cache. Layout (glibc elf/cache.c, sysdeps/generic/dl-cache.h):
 * new format header "glibc-ld.so.cache" "1.1", u32 nlibs, u32 len_strings, u8 flags,
 * 3 pad, u32 extension_offset, 3 x u32 unused (48 bytes), then nlibs entries of
 * {i32 flags, u32 key, u32 value, u32 osversion, u64 hwcap} (24 bytes). key/value are
 * offsets of NUL-terminated strings from the start of the new header. Older files put
 * the "ld.so-1.7.0" table (u32 nlibs, entries {i32 flags, u32 key, u32 value}) first,
 * with the new header following it at an 8-byte boundary. */
#include "probe/ldcache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/file.h"
#include "util/str.h"

#define NEW_MAGIC "glibc-ld.so.cache1.1"
#define NEW_MAGIC_LEN 20
#define OLD_MAGIC "ld.so-1.7.0"
#define OLD_MAGIC_LEN 11
#define NEW_HEADER 48
#define NEW_ENTRY 24
#define OLD_ENTRY 12

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4); /* the cache is written in the host's byte order */
	return v;
}

/* A NUL-terminated string at base+off, all of it inside [base, end). */
static const char *str_at(const unsigned char *base, size_t avail, uint32_t off)
{
	const unsigned char *nul;

	if (off >= avail)
		return NULL;
	nul = memchr(base + off, '\0', avail - off);
	return nul ? (const char *)base + off : NULL;
}

int ldcache_parse(const unsigned char *data, size_t size, struct ldcache *out, char *err)
{
	size_t hdr = 0, avail;
	uint32_t nlibs;
	const unsigned char *base;
	int rc = CD_OK;

	memset(out, 0, sizeof *out);
	if (size >= OLD_MAGIC_LEN + 4 && memcmp(data, OLD_MAGIC, OLD_MAGIC_LEN) == 0) {
		uint32_t old_n = rd32(data + OLD_MAGIC_LEN);
		uint64_t end = OLD_MAGIC_LEN + 4 + (uint64_t)old_n * OLD_ENTRY;
		end = (end + 7) & ~(uint64_t)7;
		if (end > size)
			return cd_fail(err, CD_EFORMAT, "ld.so.cache: old table of %u entries runs past the end (offset %llu, size %zu)",
				       old_n, (unsigned long long)end, size);
		hdr = (size_t)end;
	}
	if (size - hdr < NEW_HEADER || memcmp(data + hdr, NEW_MAGIC, NEW_MAGIC_LEN) != 0)
		return cd_fail(err, CD_EFORMAT, "ld.so.cache: no \"%s\" header at offset %zu", NEW_MAGIC, hdr);
	base = data + hdr;
	avail = size - hdr;
	nlibs = rd32(base + NEW_MAGIC_LEN);
	if ((uint64_t)nlibs * NEW_ENTRY > avail - NEW_HEADER)
		return cd_fail(err, CD_EFORMAT, "ld.so.cache: %u entries do not fit in %zu bytes (offset %zu)", nlibs, avail, hdr + NEW_HEADER);
	if (nlibs == 0)
		return CD_OK;
	out->e = calloc(nlibs, sizeof *out->e);
	if (!out->e)
		return cd_fail(err, CD_ENOMEM, "ld.so.cache: out of memory");
	for (uint32_t i = 0; i < nlibs; i++) {
		const unsigned char *ent = base + NEW_HEADER + (size_t)i * NEW_ENTRY;
		const char *key = str_at(base, avail, rd32(ent + 4));
		const char *val = str_at(base, avail, rd32(ent + 8));
		struct ldcache_entry *e;

		if (!key || !val) {
			rc = cd_fail(err, CD_EFORMAT, "ld.so.cache: entry %u has a string offset outside the file (offset %zu)",
				     i, hdr + NEW_HEADER + (size_t)i * NEW_ENTRY);
			goto out;
		}
		e = &out->e[out->n];
		e->flags = (int)rd32(ent);
		e->soname = cd_strdup(key);
		e->path = cd_strdup(val);
		out->n++;
		if (!e->soname || !e->path) {
			rc = cd_fail(err, CD_ENOMEM, "ld.so.cache: out of memory");
			goto out;
		}
	}
out:
	if (rc != CD_OK)
		ldcache_free(out);
	return rc;
}

int ldcache_load(const char *path, struct ldcache *out, char *err)
{
	struct mapped_file mf;
	int rc;

	memset(out, 0, sizeof *out);
	rc = file_map(path, &mf, err);
	if (rc != CD_OK)
		return rc;
	rc = ldcache_parse(mf.data, mf.size, out, err);
	file_unmap(&mf);
	return rc;
}

void ldcache_free(struct ldcache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->e[i].soname);
		free(c->e[i].path);
	}
	free(c->e);
	c->e = NULL;
	c->n = 0;
}

bool ldcache_entry_native(const struct ldcache_entry *e)
{
	int libc6 = e->flags & 0x00ff, arch = e->flags & 0xff00;

	if (libc6 != 0x03) /* FLAG_ELF_LIBC6 */
		return false;
#if defined(__x86_64__)
	return arch == 0x0300; /* FLAG_X8664_LIB64 */
#elif defined(__aarch64__)
	return arch == 0x0a00; /* FLAG_AARCH64_LIB64 */
#else
	(void)arch;
	return true;
#endif
}
