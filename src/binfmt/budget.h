/* What reading one archive may cost, all its members together: an archive holds each member's
 * bytes once, so what it inflates to is bounded by its size. Crafted archives (central entries
 * that share one member's bytes, a small zstd frame that claims a huge tarball, many conda
 * payloads, members that each ask for another pass) are stopped here, not once per member. */
#ifndef CUDOCTOR_BINFMT_BUDGET_H
#define CUDOCTOR_BINFMT_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* All members together inflate to at most this many times the archive's size, plus the
 * allowance: wheels and conda packages of CUDA libraries inflate to 2 to 5 times their size. */
#define ARCHIVE_INFLATE_RATIO 64u
#define ARCHIVE_INFLATE_ALLOWANCE ((uint64_t)256 << 20)
/* Passes over a conda tarball again up to a member: real packages take none. */
#define ARCHIVE_REWINDS 16u
/* Errors said one by one; past this many the rest of the archive's are counted. */
#define ARCHIVE_ERRORS_SAID 100u

struct archive_budget {
	uint64_t size;          /* the archive's bytes */
	uint64_t inflate_max;   /* what its members may inflate to together */
	uint64_t inflated;      /* what they have so far */
	unsigned rewinds;       /* passes taken again */
	size_t errors;          /* errors met */
};

void archive_budget_init(struct archive_budget *b, uint64_t archive_size);
/* n more bytes inflated: CD_OK, or CD_EUNSUPPORTED (err names the budget) past it. */
int archive_budget_inflate(struct archive_budget *b, uint64_t n, char *err);
/* Whether n more bytes would still fit. */
bool archive_budget_fits(const struct archive_budget *b, uint64_t n);
/* Whether the budget is spent: nothing more of the archive can be read. */
bool archive_budget_spent(const struct archive_budget *b);
/* One more pass: CD_OK, or CD_EUNSUPPORTED past ARCHIVE_REWINDS. */
int archive_budget_rewind(struct archive_budget *b, char *err);
/* One more error met; whether it is still to be said (the first ARCHIVE_ERRORS_SAID are). */
bool archive_budget_error(struct archive_budget *b);

#endif
