/* block.h: the first stage over whole lines, as records, in parts on threads. */
#include "explain/block.h"

#include <stdlib.h>
#include <string.h>

#include "explain/scan_line.h"
#include "util/err.h"

/* *arr (of *cap elements of size bytes) holds at least need: doubled as it grows */
static bool reserve(void *arr, size_t *cap, size_t need, size_t size)
{
	void **a = arr, *n;
	size_t c = *cap;

	if (need <= c)
		return true;
	while (c < need)
		c = c ? 2 * c : 1024;
	if (!(n = realloc(*a, c * size)))
		return false;
	*a = n;
	*cap = c;
	return true;
}

/* The cursor walks the part's candidates once (one parity): a candidate on the newline ending
 * a line is the next line's (newline, then a short pattern), and each line's automaton run
 * takes its own. The lines no candidate falls in hold no pattern: they are only counted. */
static void block_scan_part(struct block_part *p)
{
	const char *s = p->s + p->lo;
	const unsigned char *u = (const unsigned char *)s;
	size_t len = p->hi - p->lo, cur = 0, lines = 0;
	struct ac_cursor k;
	bool restart = true;

	p->n_lines = p->n_hits = 0;
	p->rc = CD_OK;
	while (cur < len) {
		struct block_line *l;
		size_t t, ls, le;
		const char *nl;

		if (restart)
			ac_cursor_start(p->ac, &k, u, len, cur ? cur - 1 : 0);
		restart = false;
		t = k.at < len ? k.at + (s[k.at] == '\n') : len;
		if (t < cur) {
			ac_cursor_next(p->ac, &k); /* after the end of a line taken (its '\r') */
			continue;
		}
		if (t >= len) {
			lines += newline_count(s + cur, len - cur, p->nl);
			break;
		}
		nl = t > cur ? memrchr(s + cur, '\n', t - cur) : NULL;
		ls = nl ? (size_t)(nl - s) + 1 : cur;
		lines += newline_count(s + cur, ls - cur, p->nl);
		le = (size_t)((const char *)memchr(s + t, '\n', len - t) - s);
		/* room for this line and its hits, at most BLOCK_LINE_HITS */
		if (!reserve(&p->lines, &p->cap_lines, p->n_lines + 1, sizeof(*p->lines)) ||
		    !reserve(&p->hits, &p->cap_hits, p->n_hits + BLOCK_LINE_HITS, sizeof(*p->hits))) {
			p->rc = CD_ENOMEM;
			return;
		}
		l = &p->lines[p->n_lines];
		*l = (struct block_line){ .at = (uint32_t)(p->lo + ls), .nl = (uint32_t)(p->lo + le),
					  .before = (uint32_t)lines, .hit0 = (uint32_t)p->n_hits };
		if (le - ls > SCAN_CHUNK) {
			/* taken in pieces; the cursor starts again after it */
			l->whole = true;
			l->len = (uint32_t)(le - ls);
			restart = true;
			p->n_lines++;
		} else {
			size_t hi = le > ls && s[le - 1] == '\r' ? le - 1 : le;
			size_t n = ac_find_line(p->ac, &k, ls, hi, p->hits + p->n_hits, BLOCK_LINE_HITS);

			l->len = (uint32_t)(hi - ls);
			l->n_hits = (uint16_t)n;
			p->n_hits += n;
			p->n_lines += n > 0; /* a candidate that is no pattern: nothing to take */
		}
		lines++;
		cur = le + 1;
	}
	p->newlines = lines;
}

static void run_part(void *arg)
{
	block_scan_part(arg);
}

int block_start(struct block *b, const struct ac *ac, const char *s, size_t len, size_t parts, enum newline_path nl,
		bool threaded)
{
	size_t lo = 0;

	if (parts < 1)
		parts = 1;
	if (parts > BLOCK_PARTS)
		parts = BLOCK_PARTS;
	b->s = s;
	b->len = len;
	b->n_parts = 0;
	/* parts of about equal size, each ending at a newline */
	while (lo < len) {
		struct block_part *p;
		size_t want = lo + (len - lo) / (parts - b->n_parts), hi;
		const char *n;

		if (want <= lo)
			want = lo + 1;
		n = b->n_parts + 1 == parts ? NULL : memchr(s + want - 1, '\n', len - (want - 1));
		hi = n ? (size_t)(n - s) + 1 : len;
		p = &b->part[b->n_parts++];
		p->ac = ac;
		p->s = s;
		p->lo = lo;
		p->hi = hi;
		p->nl = nl;
		lo = hi;
	}
	for (size_t i = 0; i < b->n_parts; i++)
		if (threaded)
			task_start(&b->task[i], run_part, &b->part[i]);
		else
			block_scan_part(&b->part[i]);
	b->running = threaded;
	return CD_OK;
}

int block_wait(struct block *b)
{
	int rc = CD_OK;

	for (size_t i = 0; i < b->n_parts; i++) {
		if (b->running)
			task_wait(&b->task[i]);
		if (b->part[i].rc != CD_OK)
			rc = b->part[i].rc;
	}
	b->running = false;
	return rc;
}

void block_free(struct block *b)
{
	block_wait(b);
	for (size_t i = 0; i < BLOCK_PARTS; i++) {
		free(b->part[i].lines);
		free(b->part[i].hits);
	}
	memset(b, 0, sizeof(*b));
}
