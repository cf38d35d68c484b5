/* A hash index from byte strings to numbers (positions in the caller's array), so a parser's
 * look-ups by name stay linear in the input: GGUF metadata keys, safetensors shard names.
 * Keys are borrowed: they must outlive the index. */
#ifndef CUDOCTOR_STRINDEX_H
#define CUDOCTOR_STRINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strindex {
	struct strindex_slot *slots; /* open addressing, a power of two, at most half full */
	size_t cap, n;
};

void strindex_init(struct strindex *ix);
void strindex_free(struct strindex *ix);

/* Adds key -> value unless key is there already (the first value stays: a duplicate key
 * reads as its first occurrence). *existing, when not NULL, is the value the key has after
 * the call. CD_OK or CD_ENOMEM. */
int strindex_put(struct strindex *ix, const char *key, size_t len, size_t value, size_t *existing);
/* True when key is there, with its value in *value. */
bool strindex_get(const struct strindex *ix, const char *key, size_t len, size_t *value);

#endif
