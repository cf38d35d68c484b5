/* /etc/ld.so.cache read as the dynamic loader reads it, without running ldconfig -p. */
#ifndef CUDOCTOR_PROBE_LDCACHE_H
#define CUDOCTOR_PROBE_LDCACHE_H

#include <stdbool.h>
#include <stddef.h>

struct ldcache_entry {
	char *soname;   /* "libcudart.so.12" */
	char *path;     /* "/usr/local/cuda-12.4/lib64/libcudart.so.12" */
	int flags;      /* FLAG_ELF_LIBC6 | architecture bits, as ldconfig writes them */
};

struct ldcache {
	struct ldcache_entry *e; /* in cache order: the loader takes the first match */
	size_t n;
};

/* Parses the "glibc-ld.so.cache1.1" format, alone or after the old "ld.so-1.7.0"
 * table. Every offset is checked against size; CD_EFORMAT names the bad offset. */
int ldcache_parse(const unsigned char *data, size_t size, struct ldcache *out, char *err);
int ldcache_load(const char *path, struct ldcache *out, char *err);
void ldcache_free(struct ldcache *c);

/* True when the entry was written for this process's architecture (x86-64 or
 * AArch64 64-bit libc6); other architectures' entries are never loaded by us. */
bool ldcache_entry_native(const struct ldcache_entry *e);

#endif
