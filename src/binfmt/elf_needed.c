/* DT_NEEDED and DT_SONAME entries, read through the section headers elf.c checked: the
 * .dynamic section's (tag, value) pairs, each value an offset into the string table it links
 * to. */
#include "binfmt/elf_needed.h"

#include <string.h>

#include "binfmt/bytes.h"
#include "util/err.h"

#define SHT_DYNAMIC 6
#define DT_NULL 0
#define DT_NEEDED 1
#define DT_SONAME 14

/* Each string of a tag in .dynamic, in order: names[0 .. max), the count returned. */
static size_t dynamic_strings(const struct elf_file *e, uint64_t want, const char **names, size_t max)
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
		if (tag != want || val >= slen || !memchr(s + val, '\0', slen - val))
			continue;
		if (n < max)
			names[n] = (const char *)(s + val);
		n++;
	}
	return n;
}

size_t elf_needed(const struct elf_file *e, const char **names, size_t max)
{
	return dynamic_strings(e, DT_NEEDED, names, max);
}

const char *elf_soname(const struct elf_file *e)
{
	const char *name = NULL;
	return dynamic_strings(e, DT_SONAME, &name, 1) ? name : NULL;
}
