/* Counts and byte sizes as people type and read them: "8e9", "7B", "128k";
 * "80GiB", "24GB", "512MiB"; printed as "16.06 GiB". */
#ifndef CUDOCTOR_MEM_UNITS_H
#define CUDOCTOR_MEM_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* "8030261248", "8e9", "8B", "7.5b", "128k", "1M": CD_EUSAGE if not a count. */
int mem_parse_count(const char *s, uint64_t *out);
/* "80GiB", "80G" (binary), "24GB" (decimal), "512MiB", "1073741824": CD_EUSAGE if not a size. */
int mem_parse_size(const char *s, uint64_t *out);
/* Binary units, two decimals, "N bytes" up to 1 KiB; buf holds at least 32 bytes. */
const char *mem_fmt_size(uint64_t bytes, char *buf, size_t cap);
/* "8,030,261,248" */
const char *mem_fmt_count(uint64_t n, char *buf, size_t cap);

#endif
