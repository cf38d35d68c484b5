/* explain's stream: pieces of any size cut into lines, a large stream scanned in stages on
 * threads (block.h) while this thread takes each stage's records in order, a line longer than
 * a stage taken in pieces, and the public scan API over it (docs/explain.md). */
#include <stdlib.h>
#include <string.h>

#include "explain/scan.h"
#include "os/env.h"
#include "os/host.h"
#include "util/cpu.h"
#include "util/err.h"
#include "util/task.h"

/* A line (or a piece of a long one) whose hits are in sc->hits: to the open OOM windows,
 * and looked at closely if it hit. */
static int take_hits(struct explain_scan *sc, const char *s, size_t len, size_t offset)
{
	if (sc->n_pend)
		explain_pend_feed(sc, s, len);
	if (!sc->n_hits)
		return CD_OK;
	sc->l.s = s;
	sc->l.len = len;
	sc->l.offset = offset;
	sc->l.no = sc->lines + 1;
	return explain_line_rules(sc);
}

/* A line (or a piece of a long one) ready: run the automaton over it, look closer if it hit. */
static int take_line(struct explain_scan *sc, const char *s, size_t len, size_t offset)
{
	if (len && s[len - 1] == '\r')
		len--;
	sc->n_hits = ac_find(&pat_set.ac, (const unsigned char *)s, len, sc->own, LINE_HITS);
	sc->hits = sc->own;
	return take_hits(sc, s, len, offset);
}

/* one physical line, in pieces of at most SCAN_CHUNK bytes */
static int take_physical(struct explain_scan *sc, const char *s, size_t len, size_t offset)
{
	int rc = CD_OK;

	for (size_t p = 0; rc == CD_OK && (p < len || p == 0); p += SCAN_CHUNK) {
		size_t n = len - p < SCAN_CHUNK ? len - p : SCAN_CHUNK;

		rc = take_line(sc, s + p, n, offset + p);
		if (len - p <= SCAN_CHUNK)
			break;
	}
	sc->lines++;
	return rc;
}


static void count_cpu(int cpu, void *arg)
{
	(void)cpu;
	++*(size_t *)arg;
}

/* How many threads scan a stage: one fewer than the CPUs this process may use (this thread
 * takes what they scan), none on one CPU. CUDOCTOR_EXPLAIN_THREADS and _STAGE set them for
 * comparing (docs/explain.md, "Checking it"). */
static void scan_threads(struct explain_scan *sc)
{
	const char *t = os_getenv("CUDOCTOR_EXPLAIN_THREADS"), *b = os_getenv("CUDOCTOR_EXPLAIN_STAGE");
	size_t cpus = 0;

	if (!os_process_cpus(count_cpu, &cpus) || cpus == 0)
		cpus = 1;
	sc->parts = cpus - 1;
	if (t && *t)
		sc->parts = strtoul(t, NULL, 10);
	if (sc->parts > BLOCK_PARTS)
		sc->parts = BLOCK_PARTS;
	sc->stage_cap = STAGE_BYTES;
	if (b && *b && strtoul(b, NULL, 10) >= 1)
		sc->stage_cap = strtoul(b, NULL, 10);
	if (sc->stage_cap > STAGE_BYTES)
		sc->stage_cap = STAGE_BYTES;
}

int explain_scan_new(struct explain_scan **out, char *err)
{
	struct explain_scan *sc;
	const char *scan;
	int rc;

	*out = NULL;
	if ((rc = kb_load(err)) != CD_OK)
		return rc;
	if ((rc = explain_patterns_build(err)) != CD_OK)
		return rc;
	sc = calloc(1, sizeof(*sc));
	if (!sc || !(sc->msg_seen = calloc(kb_message_count() + 1, 1)) ||
	    !(sc->nccl_hit = calloc(nccl_log_anchor_count(), sizeof(bool)))) {
		if (sc)
			free(sc->msg_seen);
		free(sc);
		return cd_fail(err, CD_ENOMEM, "out of memory");
	}
	nccl_log_init(&sc->nccl);
	ggml_mem_init(&sc->ggml);
	/* the plain paths, for comparing against (docs/explain.md): "lines" takes every line
	 * through the automaton, "scalar" runs the first stage and the newline count without
	 * SIMD, "sse2" the first stage without it and the count on SSE2 */
	scan = os_getenv("CUDOCTOR_EXPLAIN_SCAN");
	sc->by_line = scan && strcmp(scan, "lines") == 0;
	sc->simd = !(scan && (strcmp(scan, "scalar") == 0 || strcmp(scan, "sse2") == 0 || sc->by_line));
	sc->nl = sc->simd ? newline_best() : scan && strcmp(scan, "sse2") == 0 ? NEWLINE_SSE2 : NEWLINE_PORTABLE;
	pat_set.ac.simd = sc->simd && cpu_has_avx2();
	if (!sc->by_line)
		scan_threads(sc);
	for (size_t i = 0; i < STAGES && sc->parts; i++)
		if (!(sc->stage[i].buf = malloc(sc->stage_cap)))
			sc->parts = 0; /* this thread takes it all */
	*out = sc;
	return CD_OK;
}

/* A block's records, taken in order as if every line were taken one by one: each line a
 * candidate fell in with the hits the first stage found on it (take_line would find the same),
 * a long line in pieces (take_physical); while an OOM window is open every line goes to it,
 * so the lines between records are then taken one by one until it closes. base: the block's
 * offset in the stream. */
static int take_block(struct explain_scan *sc, const struct block *b, size_t base)
{
	size_t lines0 = sc->lines;
	int rc = CD_OK;

	for (size_t q = 0; q < b->n_parts && rc == CD_OK; q++) {
		const struct block_part *p = &b->part[q];
		size_t cur = p->lo; /* the next line not taken */

		for (size_t i = 0; i <= p->n_lines && rc == CD_OK; i++) {
			const struct block_line *l = i < p->n_lines ? &p->lines[i] : NULL;
			size_t stop = l ? l->at : p->hi;

			while (sc->n_pend && cur < stop && rc == CD_OK) {
				size_t le = (size_t)((const char *)memchr(b->s + cur, '\n', stop - cur) - b->s);

				rc = take_physical(sc, b->s + cur, le - cur, base + cur);
				cur = le + 1;
			}
			if (!l || rc != CD_OK)
				break;
			if (i + 1 < p->n_lines)
				__builtin_prefetch(b->s + p->lines[i + 1].at);
			sc->lines = lines0 + l->before;
			if (l->whole) {
				rc = take_physical(sc, b->s + l->at, l->len, base + l->at);
			} else {
				sc->n_hits = l->n_hits;
				sc->hits = p->hits + l->hit0;
				rc = take_hits(sc, b->s + l->at, l->len, base + l->at);
				sc->lines++;
			}
			cur = (size_t)l->nl + 1;
		}
		lines0 += p->newlines;
		sc->lines = lines0;
	}
	return rc;
}

/* Complete lines s[0..len) (s[len - 1] is a newline) starting at stream offset base, on this
 * thread: through the first stage (block.h), or with CUDOCTOR_EXPLAIN_SCAN=lines every line
 * through the automaton. */
static int take_lines(struct explain_scan *sc, const char *s, size_t len, size_t base)
{
	int rc = CD_OK;

	if (sc->by_line) {
		for (size_t cur = 0; rc == CD_OK && cur < len;) {
			size_t le = (size_t)((const char *)memchr(s + cur, '\n', len - cur) - s);

			rc = take_physical(sc, s + cur, le - cur, base + cur);
			cur = le + 1;
		}
		return rc;
	}
	block_start(&sc->here, &pat_set.ac, s, len, 1, sc->nl, false);
	if ((rc = block_wait(&sc->here)) == CD_OK)
		rc = take_block(sc, &sc->here, base);
	return rc;
}

/* a partial line: kept until its newline comes (a line longer than a chunk is taken in
 * pieces as it grows) */
static int carry_add(struct explain_scan *sc, const char *s, size_t add)
{
	char *nc = realloc(sc->carry, sc->carry_len + add + 1);
	int rc = CD_OK;

	if (!nc)
		return CD_ENOMEM;
	sc->carry = nc;
	memcpy(sc->carry + sc->carry_len, s, add);
	sc->carry_len += add;
	while (rc == CD_OK && sc->carry_len > 4 * SCAN_CHUNK) {
		/* a piece of a line longer than the chunk: take it now, keep the rest */
		rc = take_line(sc, sc->carry, SCAN_CHUNK, sc->bytes - sc->carry_len + add);
		memmove(sc->carry, sc->carry + SCAN_CHUNK, sc->carry_len - SCAN_CHUNK);
		sc->carry_len -= SCAN_CHUNK;
	}
	sc->bytes += add;
	return rc;
}

/* pieces on this thread: the line an earlier piece left open, the complete lines, the rest */
static int feed_here(struct explain_scan *sc, const char *data, size_t n)
{
	size_t pos = 0;
	const char *nl;
	int rc = CD_OK;

	/* the line an earlier piece left open ends at the first newline here */
	if (sc->carry_len && n) {
		nl = memchr(data, '\n', n);
		if (!nl) {
			rc = carry_add(sc, data, n);
			pos = n;
		} else {
			size_t add = (size_t)(nl - data);
			char *nc = realloc(sc->carry, sc->carry_len + add + 1);

			if (!nc) {
				rc = CD_ENOMEM;
			} else {
				sc->carry = nc;
				memcpy(sc->carry + sc->carry_len, data, add);
				rc = take_physical(sc, sc->carry, sc->carry_len + add, sc->bytes - sc->carry_len);
				sc->carry_len = 0;
				sc->bytes += add + 1;
				pos = add + 1;
			}
		}
	}
	/* the complete lines, then what is left of the last one */
	if (rc == CD_OK && pos < n && (nl = memrchr(data + pos, '\n', n - pos))) {
		size_t end = (size_t)(nl - data) + 1;

		rc = take_lines(sc, data + pos, end - pos, sc->bytes);
		sc->bytes += end - pos;
		pos = end;
	}
	if (rc == CD_OK && pos < n)
		rc = carry_add(sc, data + pos, n - pos);
	return rc;
}

/* a stage scanned before: waited for and taken */
static int take_stage(struct explain_scan *sc, struct stage *st)
{
	int rc;

	if (!st->busy)
		return CD_OK;
	st->busy = false;
	if ((rc = block_wait(&st->blk)) == CD_OK)
		rc = take_block(sc, &st->blk, st->base);
	sc->bytes = st->base + st->blk.len;
	return rc;
}

/* the stages scanned and not taken, oldest first */
static int take_stages(struct explain_scan *sc)
{
	int rc = CD_OK;

	for (int i = 1; i < STAGES && rc == CD_OK; i++)
		rc = take_stage(sc, &sc->stage[(sc->fill + i) % STAGES]);
	return rc;
}

/* The stage being filled is full: its whole lines are scanned on threads while the oldest is
 * taken here (the one between stays scanned, so this thread seldom waits), and the rest of
 * its last line begins the oldest's buffer, filled next. A stage without a newline is the
 * start of a line longer than a stage: taken here, as a line left open. */
static int stage_full(struct explain_scan *sc)
{
	struct stage *f = &sc->stage[sc->fill], *o = &sc->stage[(sc->fill + 1) % STAGES];
	const char *nl = memrchr(f->buf, '\n', f->len);
	size_t end;
	int rc;

	if (!nl) {
		if ((rc = take_stages(sc)) == CD_OK)
			rc = feed_here(sc, f->buf, f->len);
		f->len = 0;
		return rc;
	}
	end = (size_t)(nl - f->buf) + 1;
	block_start(&f->blk, &pat_set.ac, f->buf, end, sc->parts, sc->nl, true);
	f->busy = true;
	rc = take_stage(sc, o);
	memcpy(o->buf, f->buf + end, f->len - end);
	o->len = f->len - end;
	o->base = f->base + end;
	sc->fill = (sc->fill + 1) % STAGES;
	return rc;
}

/* A line longer than a stage is taken here up to its end; the rest goes to the stage. */
static int feed_staged(struct explain_scan *sc, const char *data, size_t n)
{
	int rc = CD_OK;

	while (rc == CD_OK && n) {
		struct stage *f = &sc->stage[sc->fill];
		const char *nl;
		size_t k;

		if (sc->carry_len) {
			nl = memchr(data, '\n', n);
			k = nl ? (size_t)(nl - data) + 1 : n;
			rc = feed_here(sc, data, k);
		} else {
			k = n < sc->stage_cap - f->len ? n : sc->stage_cap - f->len;
			if (!f->len)
				f->base = sc->staged;
			memcpy(f->buf + f->len, data, k);
			f->len += k;
			if (f->len == sc->stage_cap)
				rc = stage_full(sc);
		}
		sc->staged += k;
		data += k;
		n -= k;
	}
	return rc;
}

/* A stage filled by the reader on a task of its own, while this thread takes the stage
 * before: the copy out of the kernel is then off the thread that judges the lines. */
struct fill_job {
	struct stage *st;
	size_t cap;
	explain_read_fn read;
	void *ctx;
	bool end;   /* the reader said the stream ended */
	int rc;     /* CD_OK, or CD_EIO when it failed */
};

static void fill_stage(void *arg)
{
	struct fill_job *j = arg;

	while (j->st->len < j->cap) {
		long long n = j->read(j->ctx, j->st->buf + j->st->len, j->cap - j->st->len);

		if (n <= 0) {
			j->end = true;
			j->rc = n < 0 ? CD_EIO : CD_OK;
			return;
		}
		j->st->len += (size_t)n;
	}
}

/* One piece read aside (where no stage takes it: one CPU, or a line longer than a stage left
 * open) and fed as any piece is; *end when the reader said the stream ended. */
static int read_aside(struct explain_scan *sc, explain_read_fn read, void *ctx, bool *end)
{
	long long n;

	if (!sc->aside && !(sc->aside = malloc(ASIDE_BYTES)))
		return CD_ENOMEM;
	n = read(ctx, sc->aside, ASIDE_BYTES);
	*end = n <= 0;
	if (n <= 0)
		return n < 0 ? CD_EIO : CD_OK;
	return sc->parts ? feed_staged(sc, sc->aside, (size_t)n) : feed_here(sc, sc->aside, (size_t)n);
}

/* The stream read into the stages, each filled on a task while the one before is taken. */
static int stream(struct explain_scan *sc, explain_read_fn read, void *ctx)
{
	int rc = CD_OK;
	bool end = false;

	while (rc == CD_OK && !end) {
		struct stage *f = &sc->stage[sc->fill];
		struct fill_job job = { f, sc->stage_cap, read, ctx, false, CD_OK };
		struct task t;
		size_t had = f->len;

		if (!sc->parts || sc->carry_len) {
			rc = read_aside(sc, read, ctx, &end);
			continue;
		}
		if (!had)
			f->base = sc->staged;
		task_start(&t, fill_stage, &job);
		rc = take_stage(sc, &sc->stage[(sc->fill + 1) % STAGES]);
		task_wait(&t);
		sc->staged += f->len - had;
		if (rc == CD_OK)
			rc = job.rc;
		end = job.end;
		if (rc == CD_OK && !end)
			rc = stage_full(sc);
	}
	return rc;
}

/* A scan's failure said once: a read that failed, else out of memory (which ends the scan:
 * what it found so far is incomplete) */
static int scan_failed(struct explain_scan *sc, int rc, char *err)
{
	if (rc == CD_EIO)
		return cd_fail(err, rc, "reading failed");
	sc->failed = rc;
	return cd_fail(err, rc, "out of memory");
}

int explain_scan_stream(struct explain_scan *sc, explain_read_fn read, void *ctx, char *err)
{
	int rc;

	if (sc->failed)
		return sc->failed;
	rc = stream(sc, read, ctx);
	return rc == CD_OK ? CD_OK : scan_failed(sc, rc, err);
}

int explain_scan_feed(struct explain_scan *sc, const char *data, size_t n, char *err)
{
	int rc;

	if (sc->failed)
		return sc->failed;
	rc = sc->parts ? feed_staged(sc, data, n) : feed_here(sc, data, n);
	return rc == CD_OK ? CD_OK : scan_failed(sc, rc, err);
}

int explain_scan_finish(struct explain_scan *sc, struct explain_result *out, char *err)
{
	int rc = CD_OK;

	memset(out, 0, sizeof(*out));
	if (sc->failed)
		return cd_fail(err, sc->failed, "out of memory");
	/* what the stages hold, in order: those scanned, then the one being filled */
	if (sc->parts) {
		struct stage *f = &sc->stage[sc->fill];

		if ((rc = take_stages(sc)) == CD_OK)
			rc = feed_here(sc, f->buf, f->len);
		f->len = 0;
		if (rc != CD_OK)
			return scan_failed(sc, rc, err);
	}
	if (sc->carry_len) {
		rc = take_physical(sc, sc->carry, sc->carry_len, sc->bytes - sc->carry_len);
		sc->carry_len = 0;
	}
	while (sc->n_pend)
		explain_pend_close(sc, 0);
	if (rc != CD_OK)
		return cd_fail(err, rc, "out of memory");
	if (explain_settle(sc) != CD_OK)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	*out = sc->r;
	memset(&sc->r, 0, sizeof(sc->r));
	return CD_OK;
}

const struct nccl_log *explain_scan_nccl(const struct explain_scan *sc)
{
	return &sc->nccl;
}

size_t explain_scan_bytes(const struct explain_scan *sc)
{
	return sc->bytes;
}

size_t explain_scan_lines(const struct explain_scan *sc)
{
	return sc->lines;
}

void explain_scan_free(struct explain_scan *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->n_pend; i++)
		free(sc->pend[i].buf);
	for (size_t i = 0; i < STAGES; i++) {
		block_free(&sc->stage[i].blk);
		free(sc->stage[i].buf);
	}
	block_free(&sc->here);
	free(sc->aside);
	free(sc->carry);
	free(sc->msg_seen);
	free(sc->nccl_hit);
	explain_result_free(&sc->r);
	nccl_log_free(&sc->nccl);
	free(sc);
}

int explain_text(const char *text, size_t len, struct explain_result *out, char *err)
{
	struct explain_scan *sc;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = explain_scan_new(&sc, err)) != CD_OK)
		return rc;
	if (text)
		rc = explain_scan_feed(sc, text, len, err);
	if (rc == CD_OK)
		rc = explain_scan_finish(sc, out, err);
	explain_scan_free(sc);
	return rc;
}

void explain_result_free(struct explain_result *r)
{
	free(r->m);
	memset(r, 0, sizeof(*r));
}
