/* Slurm-style host lists: split each name into prefix and trailing number, sort, and write
 * runs of consecutive numbers as ranges inside one bracket per prefix and digit count. */
#include "fleet/hostlist.h"
#include "util/sort.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "util/err.h"
#include "util/str.h"

struct hname {
	const char *name;
	size_t plen;               /* prefix length */
	size_t digits;             /* trailing digits; 0: none (the whole name is the prefix) */
	unsigned long long num;
};

static struct hname split(const char *name)
{
	struct hname h = { name, strlen(name), 0, 0 };
	size_t end = h.plen, start = end;

	while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9')
		start--;
	if (start == end || end - start > 18) /* no number, or too long to be one */
		return h;
	h.plen = start;
	h.digits = end - start;
	for (size_t i = start; i < end; i++)
		h.num = h.num * 10 + (unsigned long long)(name[i] - '0');
	return h;
}

static int hcmp(const struct hname *a, const struct hname *b)
{
	size_t n = a->plen < b->plen ? a->plen : b->plen;
	int c = memcmp(a->name, b->name, n);

	if (c)
		return c;
	if (a->plen != b->plen)
		return a->plen < b->plen ? -1 : 1;
	if (a->digits != b->digits)
		return a->digits < b->digits ? -1 : 1;
	return (a->num > b->num) - (a->num < b->num);
}

static int hcmp_q(const void *x, const void *y)
{
	return hcmp(x, y);
}

int fleet_name_cmp(const char *a, const char *b)
{
	struct hname x = split(a), y = split(b);
	int c = hcmp(&x, &y);
	return c ? c : strcmp(a, b);
}

static bool same_group(const struct hname *a, const struct hname *b)
{
	return a->digits && a->digits == b->digits && a->plen == b->plen && memcmp(a->name, b->name, a->plen) == 0;
}

int fleet_hostlist(const char *const *names, size_t n, char **out)
{
	struct hname *h = n ? malloc(n * sizeof *h) : NULL;
	struct strbuf sb;
	size_t m = 0, i, j;

	*out = NULL;
	if (n && !h)
		return CD_ENOMEM;
	for (i = 0; i < n; i++)
		h[i] = split(names[i]);
	if (n)
		cd_qsort(h, n, sizeof *h, hcmp_q);
	for (i = 0; i < n; i++) /* drop duplicates */
		if (m == 0 || hcmp(&h[m - 1], &h[i]) != 0)
			h[m++] = h[i];
	sb_init(&sb);
	for (i = 0; i < m; i = j) {
		const struct hname *g = &h[i];
		for (j = i + 1; j < m && same_group(g, &h[j]); j++)
			;
		if (i)
			sb_append(&sb, ",");
		if (j - i == 1) {
			sb_append(&sb, g->name);
			continue;
		}
		sb_append_n(&sb, g->name, g->plen);
		sb_append(&sb, "[");
		for (size_t k = i; k < j;) {
			size_t e = k;
			while (e + 1 < j && h[e + 1].num == h[e].num + 1)
				e++;
			sb_printf(&sb, "%s%0*llu", k > i ? "," : "", (int)g->digits, h[k].num);
			if (e > k)
				sb_printf(&sb, "-%0*llu", (int)g->digits, h[e].num);
			k = e + 1;
		}
		sb_append(&sb, "]");
	}
	free(h);
	*out = sb_detach(&sb);
	return *out ? CD_OK : CD_ENOMEM;
}

int fleet_hostlist_of(const struct fleet *f, const size_t *idx, size_t n, char **out)
{
	const char **names = malloc((n ? n : 1) * sizeof *names);
	int rc;

	*out = NULL;
	if (!names)
		return CD_ENOMEM;
	for (size_t i = 0; i < n; i++)
		names[i] = f->nodes[idx[i]].name;
	rc = fleet_hostlist(names, n, out);
	free(names);
	return rc;
}
