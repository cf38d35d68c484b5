/* Counts and byte sizes as people type and read them: "8e9", "7B", "128k"; "80GiB",
 * "24GB", "512MiB"; and the one way sizes are printed: "139.8 GiB", "512 MiB", "1000 bytes". */
#ifndef CUDOCTOR_UNITS_H
#define CUDOCTOR_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define UNITS_BUF 32 /* holds any units_fmt_* output */

/* "8030261248", "8e9", "8B", "7.5b", "128k", "1M": CD_EUSAGE if not a count. */
int units_parse_count(const char *s, uint64_t *out);
/* "80GiB", "80G" (binary), "24GB" (decimal), "512MiB", "1073741824": CD_EUSAGE if not a size. */
int units_parse_size(const char *s, uint64_t *out);
/* Tokens of context: a plain count, or k/m as 1024 and 1048576 ("128k" = 131072); CD_EUSAGE. */
int units_parse_tokens(const char *s, uint64_t *out);
/* Binary units with one decimal, none when it is .0 ("139.8 GiB", "512 MiB", "1.5 KiB");
 * "N bytes" below 1 KiB. Returns buf. */
const char *units_fmt_bytes(uint64_t bytes, char *buf, size_t cap);
/* "8,030,261,248"; returns buf. */
const char *units_fmt_count(uint64_t n, char *buf, size_t cap);

#endif
