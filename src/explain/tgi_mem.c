/* Reading TGI's budget and warmup lines (tgi_mem.h). Each reader looks for its key on the line and
 * reads the whole number after it; a key without one ("None") is left alone. */
#include "explain/tgi_mem.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/str.h"

#define TGI_MAX_TOKENS 1000000000L /* above any context: a longer run of digits is not a budget */

/* The launcher's Args line ("max_batch_prefill_tokens: Some(4096)", older "max_input_length:
 * 3072"), its command-line flags, the warmup's span ("warmup{max_input_length=64
 * max_prefill_tokens=256}") and what it settles on ("Setting max batch total tokens to 30816"). */
static const struct {
	const char *key;
	size_t field; /* offsetof in struct tgi_mem */
} keys[] = {
	{ "max_input_tokens", offsetof(struct tgi_mem, max_input) },
	{ "max_input_length", offsetof(struct tgi_mem, max_input) },
	{ "--max-input-tokens", offsetof(struct tgi_mem, max_input) },
	{ "--max-input-length", offsetof(struct tgi_mem, max_input) },
	{ "max_total_tokens", offsetof(struct tgi_mem, max_total) },
	{ "--max-total-tokens", offsetof(struct tgi_mem, max_total) },
	{ "max_batch_prefill_tokens", offsetof(struct tgi_mem, max_prefill) },
	{ "max_prefill_tokens", offsetof(struct tgi_mem, max_prefill) },
	{ "--max-batch-prefill-tokens", offsetof(struct tgi_mem, max_prefill) },
	{ "max_batch_total_tokens", offsetof(struct tgi_mem, max_batch_total) },
	{ "--max-batch-total-tokens", offsetof(struct tgi_mem, max_batch_total) },
	{ "Setting max batch total tokens to", offsetof(struct tgi_mem, max_batch_total) },
};

/* the automaton's anchors: a line with none of them holds no key */
static const char *const anchors[] = { "max_input_", "max_total_tokens", "prefill_tokens", "max_batch_total_tokens",
				       "--max-", "max batch total tokens", "cuda_memory_fraction" };

size_t tgi_mem_anchor_count(void)
{
	return sizeof(anchors) / sizeof(anchors[0]);
}

const char *tgi_mem_anchor(size_t i)
{
	return i < tgi_mem_anchor_count() ? anchors[i] : NULL;
}

void tgi_mem_init(struct tgi_mem *t)
{
	memset(t, 0, sizeof(*t));
}

/* offset of needle in s[from..len) (ASCII case ignored), or -1 */
static long find_from(const char *s, size_t len, size_t from, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = from; n && i + n <= len; i++)
		if (strncasecmp(s + i, needle, n) == 0)
			return (long)i;
	return -1;
}

/* the whole number after a key: separators (": ", "=", a space), then "Some(" if there; -1 when
 * none or beyond any budget */
static long count_at(const char *s, size_t len, size_t i)
{
	long v = 0;
	size_t digits = 0;

	while (i < len && (s[i] == ':' || s[i] == '=' || s[i] == ' ' || s[i] == '"'))
		i++;
	if (i + 5 <= len && strncmp(s + i, "Some(", 5) == 0)
		i += 5;
	for (; i < len && isdigit((unsigned char)s[i]); i++) {
		if (++digits > 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return digits && v > 0 && v <= TGI_MAX_TOKENS ? v : -1;
}

/* "cuda_memory_fraction: 0.9", "--cuda-memory-fraction 0.9" */
static void read_fraction(struct tgi_mem *t, const char *s, size_t len)
{
	static const char *const fkeys[] = { "cuda_memory_fraction", "--cuda-memory-fraction" };
	char buf[16];

	for (size_t k = 0; k < 2; k++) {
		long at = find_from(s, len, 0, fkeys[k]);
		size_t i, n = 0;
		double v;

		if (at < 0)
			continue;
		i = (size_t)at + strlen(fkeys[k]);
		while (i < len && (s[i] == ':' || s[i] == '=' || s[i] == ' '))
			i++;
		while (i < len && n + 1 < sizeof(buf) && (isdigit((unsigned char)s[i]) || s[i] == '.'))
			buf[n++] = s[i++];
		buf[n] = '\0';
		v = n ? strtod(buf, NULL) : 0;
		if (v > 0 && v <= 1)
			t->mem_fraction = v;
	}
}

void tgi_mem_line(struct tgi_mem *t, const char *s, size_t len)
{
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		size_t n = strlen(keys[k].key);
		long at;

		/* each occurrence: "max_total_tokens" also ends "max_batch_total_tokens"'s neighbours */
		for (size_t from = 0; (at = find_from(s, len, from, keys[k].key)) >= 0; from = (size_t)at + n) {
			long v;

			/* a key inside a longer key ("max_prefill_tokens" in "max_batch_prefill_tokens")
			 * is that key's */
			if (at > 0 && (isalnum((unsigned char)s[at - 1]) || s[at - 1] == '_' ||
				       (keys[k].key[0] != '-' && s[at - 1] == '-')))
				continue;
			v = count_at(s, len, (size_t)at + n);
			if (v > 0)
				*(long *)(void *)((char *)t + keys[k].field) = v;
		}
	}
	read_fraction(t, s, len);
}

/* the number just before " <word>" ending at s[end) ("4096 prefill tokens"): -1 when none */
static long count_before(const char *s, size_t end)
{
	size_t i = end;
	long v = 0, scale = 1;

	while (i > 0 && s[i - 1] == ' ')
		i--;
	if (i == 0 || !isdigit((unsigned char)s[i - 1]))
		return -1;
	for (size_t digits = 0; i > 0 && isdigit((unsigned char)s[i - 1]); i--) {
		if (++digits > 10)
			return -1;
		v += (s[i - 1] - '0') * scale;
		scale *= 10;
	}
	return v > 0 && v <= TGI_MAX_TOKENS ? v : -1;
}

/* half of what failed, not below the floor a single request needs; 0 when the floor is reached */
static long next_below(long failed, long floor)
{
	long half = failed / 2;

	if (floor > 0 && floor >= failed)
		return 0;
	return floor > half ? floor : half > 0 ? half : 0;
}

bool tgi_mem_oom(const struct tgi_mem *t, const char *s, size_t len, struct tgi_oom *out)
{
	long at = find_from(s, len, 0, "enough memory to handle");
	long prefill_at, total_at;

	if (at < 0)
		return false;
	memset(out, 0, sizeof(*out));
	out->budget = *t;
	prefill_at = find_from(s, len, (size_t)at, " prefill tokens");
	total_at = find_from(s, len, (size_t)at, " total tokens");
	if (prefill_at < 0)
		return false;
	out->prefill = count_before(s, (size_t)prefill_at);
	if (total_at >= 0 && total_at < prefill_at)
		out->total = count_before(s, (size_t)total_at);
	if (out->prefill <= 0)
		return false;
	if (out->total < 0)
		out->total = 0;
	if (out->total > 0)
		out->total_next = next_below(out->total, t->max_total);
	else
		out->prefill_next = next_below(out->prefill, t->max_input);
	return true;
}

size_t tgi_mem_evidence(const struct tgi_oom *o, char *lines, size_t n, size_t max)
{
	const struct tgi_mem *b = &o->budget;
	size_t k = 0;

	if (o->total > 0) {
		k = str_lines_add(lines, n, k, max,
				  "TGI's warmup set aside the KV cache for %ld tokens (--max-batch-total-tokens) and "
				  "then had no room for a prefill of %ld tokens: the cache leaves too little for the "
				  "activations",
				  o->total, o->prefill);
		if (b->max_total > 0)
			k = str_lines_add(lines, n, k, max,
					  "%ld / %ld (--max-total-tokens, one request) = room for %.1f full requests at "
					  "once; %s",
					  o->total, b->max_total, (double)o->total / (double)b->max_total,
					  o->total_next ? "fewer leave the activations room"
							: "one request is the least it can hold: shorter requests "
							  "(--max-total-tokens) or more memory");
	} else {
		k = str_lines_add(lines, n, k, max,
				  "TGI's warmup ran one prefill batch of %ld tokens (--max-batch-prefill-tokens) beside "
				  "the weights, and its activations did not fit",
				  o->prefill);
		if (b->max_input > 0)
			k = str_lines_add(lines, n, k, max,
					  "one prompt is at most %ld tokens (--max-input-tokens), the least a prefill batch "
					  "may hold: %s",
					  b->max_input,
					  o->prefill_next ? "the prefill budget can go down to that"
							  : "it is already there, so prompts must be shorter, the "
							    "model smaller (--quantize) or spread wider (--num-shard)");
	}
	if (b->mem_fraction > 0 && b->mem_fraction < 1)
		k = str_lines_add(lines, n, k, max,
				  "TGI may use %.0f%% of each GPU (--cuda-memory-fraction %.2f); the rest is not "
				  "counted for it",
				  b->mem_fraction * 100.0, b->mem_fraction);
	return k;
}
