/* Open-addressed hash index over borrowed byte strings, linear probing, doubled at half full. */
#include "util/strindex.h"

#include <stdlib.h>
#include <string.h>

#include "os/host.h"
#include "util/err.h"

struct strindex_slot {
	const char *key; /* NULL: empty */
	size_t len;
	uint64_t hash;
	size_t value;
};

void strindex_init(struct strindex *ix)
{
	memset(ix, 0, sizeof(*ix));
}

void strindex_free(struct strindex *ix)
{
	free(ix->slots);
	strindex_init(ix);
}

/* The slot hash: FNV-1a started from a per-process secret (os_random_seed) and finished by
 * splitmix64's mixer, so crafted keys cannot be made to share slots. */
static uint64_t slot_hash(const char *key, size_t len)
{
	static uint64_t seed;
	const unsigned char *b = (const unsigned char *)key;
	uint64_t h;

	if (!seed) {
		seed = os_random_seed() | 1;
	}
	h = 1469598103934665603ULL ^ seed;
	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

static struct strindex_slot *find(struct strindex_slot *slots, size_t cap, const char *key, size_t len,
				  uint64_t h)
{
	for (size_t i = (size_t)h & (cap - 1);; i = (i + 1) & (cap - 1)) {
		struct strindex_slot *s = &slots[i];

		if (!s->key || (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0))
			return s;
	}
}

static int grow(struct strindex *ix)
{
	size_t cap = ix->cap ? ix->cap * 2 : 64;
	struct strindex_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return CD_ENOMEM;
	for (size_t i = 0; i < ix->cap; i++)
		if (ix->slots[i].key)
			*find(slots, cap, ix->slots[i].key, ix->slots[i].len, ix->slots[i].hash) = ix->slots[i];
	free(ix->slots);
	ix->slots = slots;
	ix->cap = cap;
	return CD_OK;
}

int strindex_put(struct strindex *ix, const char *key, size_t len, size_t value, size_t *existing)
{
	uint64_t h = slot_hash(key, len);
	struct strindex_slot *s;

	if ((ix->n + 1) * 2 > ix->cap && grow(ix) != CD_OK)
		return CD_ENOMEM;
	s = find(ix->slots, ix->cap, key, len, h);
	if (!s->key) {
		s->key = key;
		s->len = len;
		s->hash = h;
		s->value = value;
		ix->n++;
	}
	if (existing)
		*existing = s->value;
	return CD_OK;
}

bool strindex_get(const struct strindex *ix, const char *key, size_t len, size_t *value)
{
	const struct strindex_slot *s;

	if (!ix->cap)
		return false;
	s = find(ix->slots, ix->cap, key, len, slot_hash(key, len));
	if (!s->key)
		return false;
	if (value)
		*value = s->value;
	return true;
}
