/* DT_NEEDED entries, read through the section headers elf.c checked: the .dynamic section's
 * (tag, value) pairs, each NEEDED value an offset into the string table it links to. */
#include "binfmt/elf_needed.h"

#include <string.h>

#include "binfmt/bytes.h"
#include "util/err.h"

#define SHT_DYNAMIC 6
#define DT_NULL 0
#define DT_NEEDED 1

size_t elf_needed(const struct elf_file *e, const char **names, size_t max)
{
	struct elf_section dyn, str;
	const unsigned char *d, *s;
	size_t dlen, slen, n = 0, ent = e->is64 ? 16 : 8;
	char err[CD_ERRMSG];
	bool found = false;

	for (size_t i = 0; i < e->shnum && !found; i++)
		found = elf_section_at(e, i, &dyn, err) == CD_OK && dyn.type == SHT_DYNAMIC;
	if (!found || elf_section_at(e, dyn.link, &str, err) != CD_OK)
		return 0;
	d = elf_section_bytes(e, &dyn, &dlen);
	s = elf_section_bytes(e, &str, &slen);
	if (!d || !s || !slen)
		return 0;
	for (size_t off = 0; off + ent <= dlen; off += ent) {
		uint64_t tag = e->is64 ? rd64(d + off) : rd32(d + off);
		uint64_t val = e->is64 ? rd64(d + off + 8) : rd32(d + off + 4);

		if (tag == DT_NULL)
			break;
		if (tag != DT_NEEDED || val >= slen || !memchr(s + val, '\0', slen - val))
			continue;
		if (n < max)
			names[n] = (const char *)(s + val);
		n++;
	}
	return n;
}
