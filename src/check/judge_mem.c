/* The memory test's verdict: words that read back other than written are an error, with the
 * offsets and bits that flipped as evidence. */
#include <stdio.h>

#include "check/judge.h"
#include "rules/catalogue.h"
#include "util/err.h"

const char *check_pattern_name(unsigned pattern)
{
	static const char *const names[CHECK_PAT_COUNT] = {
		[CHECK_PAT_ZEROS] = "0x0000000000000000",
		[CHECK_PAT_ONES] = "0xffffffffffffffff",
		[CHECK_PAT_5555] = "0x5555555555555555",
		[CHECK_PAT_AAAA] = "0xaaaaaaaaaaaaaaaa",
		[CHECK_PAT_WALKING_ONES] = "walking ones",
		[CHECK_PAT_ADDRESS] = "address-in-address",
	};
	return pattern < CHECK_PAT_COUNT ? names[pattern] : "?";
}

/* "3, 17" for the bits set in x, at most len bytes */
static int bit_list(unsigned long long x, char *buf, size_t len)
{
	size_t used = 0;
	int n = 0;

	buf[0] = '\0';
	for (int b = 0; b < 64; b++) {
		if (!(x >> b & 1))
			continue;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%d", n ? ", " : "", b);
		n++;
	}
	return n;
}

int check_judge_memory(struct report *r, const char *subject, const struct check_mem_result *m)
{
	unsigned long long any_bits = 0;
	size_t single = 0, shown = m->n_recorded < CHECK_MEM_RECORDS ? m->n_recorded : CHECK_MEM_RECORDS;
	unsigned long long words = m->bytes / 8 * m->patterns;
	bool oom = false;
	struct finding_vars v;
	struct finding *f;
	char bits[256];

	if (m->errors == 0)
		return CD_OK;
	finding_vars_init(&v);
	finding_var(&v, "errors", "%llu", m->errors);
	finding_var(&v, "words", "%llu", words);
	f = finding_make(r, SEV_ERROR, "load-memory-errors", subject, &v);
	if (!f)
		return CD_ENOMEM;
	oom |= finding_evidence(f, "%.2f GiB tested with %u pattern%s; %llu words differed from what was written",
				(double)m->bytes / (1ull << 30), m->patterns, m->patterns == 1 ? "" : "s", m->errors) != CD_OK;
	for (size_t i = 0; i < shown; i++) {
		const struct check_mem_error *e = &m->rec[i];
		unsigned long long x = e->expected ^ e->got;
		int nb = bit_list(x, bits, sizeof bits);

		any_bits |= x;
		single += nb == 1;
		/* the first few in full; the rest only feed the summary below */
		if (i < 4)
			oom |= finding_evidence(f, "offset 0x%llx (%s): wrote 0x%016llx, read 0x%016llx: bit%s %s flipped",
						e->offset, check_pattern_name(e->pattern), e->expected, e->got,
						nb == 1 ? "" : "s", bits) != CD_OK;
	}
	if (shown) {
		bit_list(any_bits, bits, sizeof bits);
		oom |= finding_evidence(f, "the first %zu errors: %zu single-bit; bits that flipped: %s", shown, single,
					bits) != CD_OK;
	}
	return oom ? CD_ENOMEM : CD_OK;
}
