/* The shared libraries an ELF file asks the loader for (DT_NEEDED of its .dynamic section),
 * and the name it gives itself (DT_SONAME). */
#ifndef CUDOCTOR_BINFMT_ELF_NEEDED_H
#define CUDOCTOR_BINFMT_ELF_NEEDED_H

#include <stddef.h>

#include "binfmt/elf.h"

/* Fills names[0 .. max) with pointers into the file (NUL-terminated there) and returns how
 * many DT_NEEDED entries there are (possibly more than max). 0 for a static or non-dynamic
 * file; entries whose string is out of bounds are skipped. */
size_t elf_needed(const struct elf_file *e, const char **names, size_t max);
/* DT_SONAME: a pointer into the file (NUL-terminated there), or NULL when there is none. */
const char *elf_soname(const struct elf_file *e);

#endif
