/* One archive's budget (binfmt/budget.h): bytes inflated, passes, errors said. */
#include "binfmt/budget.h"

#include "util/err.h"

void archive_budget_init(struct archive_budget *b, uint64_t archive_size)
{
	uint64_t scaled = archive_size > UINT64_MAX / ARCHIVE_INFLATE_RATIO ? UINT64_MAX : archive_size * ARCHIVE_INFLATE_RATIO;

	b->size = archive_size;
	b->inflate_max = scaled > UINT64_MAX - ARCHIVE_INFLATE_ALLOWANCE ? UINT64_MAX : scaled + ARCHIVE_INFLATE_ALLOWANCE;
	b->inflated = 0;
	b->rewinds = 0;
	b->errors = 0;
}

bool archive_budget_fits(const struct archive_budget *b, uint64_t n)
{
	return n <= b->inflate_max - b->inflated;
}

bool archive_budget_spent(const struct archive_budget *b)
{
	return b->inflated >= b->inflate_max;
}

int archive_budget_inflate(struct archive_budget *b, uint64_t n, char *err)
{
	if (!archive_budget_fits(b, n)) {
		b->inflated = b->inflate_max;
		return cd_fail(err, CD_EUNSUPPORTED,
			       "the archive's members inflate to over %llu bytes (%u times its %llu bytes and %llu "
			       "more); the rest of it is not read",
			       (unsigned long long)b->inflate_max, ARCHIVE_INFLATE_RATIO, (unsigned long long)b->size,
			       (unsigned long long)ARCHIVE_INFLATE_ALLOWANCE);
	}
	b->inflated += n;
	return CD_OK;
}

int archive_budget_rewind(struct archive_budget *b, char *err)
{
	if (b->rewinds >= ARCHIVE_REWINDS)
		return cd_fail(err, CD_EUNSUPPORTED,
			       "needs another pass over the tarball, and %u were taken for this archive", ARCHIVE_REWINDS);
	b->rewinds++;
	return CD_OK;
}

bool archive_budget_error(struct archive_budget *b)
{
	return ++b->errors <= ARCHIVE_ERRORS_SAID;
}
