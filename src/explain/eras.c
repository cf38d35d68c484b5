/* Reading CUDA error numbers across the renumbering of CUDA 10.1, and finding in a text the
 * release it comes from. The rules (docs/explain.md): a named error wins over its number; a
 * number only the old numbering has gets the old meaning; a number both have gets CUDA 13's,
 * with the old one named as the alternative, unless the text names a release before 10.1. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "explain/eras.h"
#include "explain/explain.h"

/* ---- the release a text names ---- */

/* "9.2", "10.0", "9.0.176" at p: major * 10 + minor, else 0 (a digit must end it there). */
static int version_at(const char *p, const char *end, size_t *used)
{
	const char *q = p;
	int major = 0, minor, digits = 0;

	while (q < end && isdigit((unsigned char)*q) && digits < 3) {
		major = major * 10 + (*q++ - '0');
		digits++;
	}
	if (!digits || q + 1 >= end || *q != '.' || !isdigit((unsigned char)q[1]))
		return 0;
	minor = q[1] - '0';
	q += 2;
	if (q < end && isdigit((unsigned char)*q))
		return 0; /* "9.25" is not a CUDA release */
	if (used)
		*used = (size_t)(q - p);
	return major * 10 + minor;
}

/* "cudart64_90", "cudart64_100", "cudart64_12" (from CUDA 12 on, the major alone) */
static int cudart_dll_version(const char *p, const char *end, size_t *used)
{
	const char *q = p;
	int v = 0, digits = 0;

	while (q < end && isdigit((unsigned char)*q) && digits < 4) {
		v = v * 10 + (*q++ - '0');
		digits++;
	}
	*used = (size_t)(q - p);
	if (digits == 2)
		return v >= 10 && v <= 19 ? v * 10 : v;
	return digits == 3 ? v : 0;
}

/* Words that may stand between "cuda" and its version: "CUDA Version: 10.0", "CUDA runtime
 * version: 9.0.176", "CUDA used to build PyTorch: 9.0", "Cuda compilation tools, release 9.2".
 * Compute capability ("CUDA capability 7.5") is not among them. */
static bool version_word(const char *p, size_t n)
{
	/* with their lengths: this runs for the word after every "cuda" of every hit line */
	static const struct {
		const char *w;
		size_t n;
	} words[] = { { "version", 7 }, { "toolkit", 7 }, { "runtime", 7 }, { "release", 7 }, { "used", 4 },
		      { "to", 2 },      { "build", 5 },   { "pytorch", 7 }, { "compilation", 11 },
		      { "tools", 5 },   { "sdk", 3 } };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (words[i].n == n && memcmp(p, words[i].w, n) == 0)
			return true;
	return false;
}

static bool sep(char c)
{
	return c == ' ' || c == ':' || c == '=' || c == ',' || c == '-' || c == '_' || c == '\t';
}

/* After "cuda" at p: the version its words lead to, else 0; *used: bytes up to its end. */
static int after_cuda(const char *p, const char *end, size_t *used)
{
	const char *start = p;

	for (int words = 0; p < end && words < 6; words++) {
		const char *w;
		size_t n;
		int v;

		while (p < end && sep(*p))
			p++;
		/* "CUDA\\v9.0\\bin", "cuda/v10.0", "CUDA v9.2" */
		if (end - p >= 3 && (*p == '\\' || *p == '/') && p[1] == 'v' && isdigit((unsigned char)p[2]))
			p += 2;
		else if (end - p >= 2 && *p == 'v' && isdigit((unsigned char)p[1]))
			p++;
		if (p < end && isdigit((unsigned char)*p)) {
			n = 0;
			v = version_at(p, end, &n);
			*used = v ? (size_t)(p - start) + n : 0;
			return v;
		}
		w = p;
		while (p < end && isalpha((unsigned char)*p))
			p++;
		if (p == w || !version_word(w, (size_t)(p - w)))
			return 0;
	}
	return 0;
}

int eras_marker_release(const char *low, size_t len, size_t *used)
{
	const char *end = low + len;
	size_t n = 0;
	int v = 0;

	if (len > 13 && memcmp(low, "libcudart.so.", 13) == 0)
		v = version_at(low + 13, end, &n), n += 13;
	else if (len > 9 && (memcmp(low, "cudart64_", 9) == 0 || memcmp(low, "cudart32_", 9) == 0))
		v = cudart_dll_version(low + 9, end, &n), n += 9;
	else if (len > 4 && memcmp(low, "cuda", 4) == 0 &&
		 !(isalpha((unsigned char)low[4]) && !(low[4] == 'v' && len > 5 && isdigit((unsigned char)low[5]))))
		v = after_cuda(low + 4, end, &n), n += 4;
	if (used)
		*used = v ? n : 0;
	return v;
}

/* a release before 10.1 (and not a stray "0.4" or "1.0", which are no CUDA releases) */
static bool old_release(int v)
{
	return v >= 20 && v < 101;
}

/* deviceQuery: "CUDA Driver Version / Runtime Version          10.0 / 9.0": the runtime is
 * the second (the driver's version says only what it can run) */
static int device_query_runtime(const char *low, size_t len)
{
	const char *p = memmem(low, len, "runtime version", 15), *end = low + len;
	size_t used;

	if (!p)
		return 0;
	p += 15;
	while (p < end && (*p == ' ' || *p == ':' || *p == '\t'))
		p++;
	if (!version_at(p, end, &used))
		return 0;
	p += used;
	while (p < end && isdigit((unsigned char)*p))
		p++;
	if (end - p >= 3 && strncmp(p, " / ", 3) == 0)
		return version_at(p + 3, end, NULL);
	return 0;
}

static void mark(struct era_state *s, const char *p, size_t n, size_t line_no)
{
	size_t k = n < sizeof(s->marker) - 1 ? n : sizeof(s->marker) - 1;

	memcpy(s->marker, p, k);
	s->marker[k] = '\0';
	while (k > 0 && (s->marker[k - 1] == ' ' || s->marker[k - 1] == ','))
		s->marker[--k] = '\0';
	s->old = true;
	s->line = line_no;
}

/* a marker whose "cuda" starts at p: true when it names a release before 10.1 (recorded) */
static bool marker_at(struct era_state *s, const char *low, const char *end, const char *p, size_t line_no)
{
	const char *start = p;
	size_t n;
	int v;

	/* "libcudart.so.9.0" starts three bytes before its "cuda" */
	if (p - low >= 3 && memcmp(p - 3, "lib", 3) == 0)
		start = p - 3;
	/* a word that only holds "cuda" ("cudaMalloc", "nvcuda") names no release */
	if (start > low && isalnum((unsigned char)start[-1]))
		return false;
	v = eras_marker_release(start, (size_t)(end - start), &n);
	if (!old_release(v))
		return false;
	mark(s, start, n, line_no);
	return true;
}

void eras_line(struct era_state *s, const char *low, size_t len, size_t line_no, const struct era_hints *hints)
{
	const char *end = low + len, *p = low;
	bool all = hints && hints->all;
	int v;

	if (s->old)
		return;
	if ((!all || hints->runtime_version) && (v = device_query_runtime(low, len)) && old_release(v)) {
		const char *q = memmem(low, len, "runtime version", 15);

		mark(s, q, (size_t)(end - q), line_no);
		return;
	}
	if (all) {
		for (size_t i = 0; i < hints->n_cuda; i++)
			if (hints->cuda_at[i] < len && marker_at(s, low, end, low + hints->cuda_at[i], line_no))
				return;
		return;
	}
	while ((p = memmem(p, (size_t)(end - p), "cuda", 4)) != NULL) {
		if (marker_at(s, low, end, p, line_no))
			return;
		p++;
	}
}

/* ---- numbers ---- */

const struct kb_error *eras_number(int n, struct era_reading *rd)
{
	const struct kb_error *now = kb_error_by_code(KB_API_RUNTIME, n);
	const struct kb_old_code *old = kb_old_code_by_code(n);

	memset(rd, 0, sizeof(*rd));
	if (!now)
		now = kb_error_by_code(KB_API_DRIVER, n);
	rd->number = n;
	/* the same error kept its number (2, 35, 46): nothing to weigh */
	if (!old || old->error->code == n)
		return now;
	rd->old = old;
	if (!now) {
		rd->how = ERA_OLD_ONLY;
		return old->error;
	}
	rd->how = ERA_CURRENT_ALT;
	rd->now = now;
	return now;
}

bool eras_is_old_code(const struct kb_error *e, int n)
{
	const struct kb_old_code *old = kb_old_code_of(e);

	return old && old->code == n && n != e->code;
}

void eras_note_named(struct explain_match *m, const struct kb_error *e, const int *nums, int n)
{
	for (int k = 0; k < n && m->code_seen < 0; k++) {
		if (!eras_is_old_code(e, nums[k]))
			continue;
		m->code_seen = nums[k];
		memset(&m->era, 0, sizeof(m->era));
		m->era.how = ERA_NAMED;
		m->era.number = nums[k];
		m->era.old = kb_old_code_of(e);
	}
}

void eras_settle(struct explain_result *r, const struct era_state *s)
{
	if (!s->old)
		return;
	for (size_t i = 0; i < r->n; i++) {
		struct explain_match *m = &r->m[i];
		const struct kb_error *e;

		if (m->era.how != ERA_CURRENT_ALT || m->error != m->era.now)
			continue;
		e = m->era.old->error;
		m->error = e;
		m->finding = e->finding ? e->finding : "cuda-error";
		/* CUDA 13's invalid argument at a launch is not what 1 meant before 10.1 */
		m->invalid_value_launch = false;
		m->era.how = ERA_OLD_BY_TEXT;
		snprintf(m->era.marker, sizeof(m->era.marker), "%s", s->marker);
		m->era.marker_line = s->line;
	}
}

bool eras_evidence(const struct explain_match *m, char *out, size_t cap)
{
	const struct era_reading *rd = &m->era;
	const struct kb_old_code *o = rd->old;

	switch (rd->how) {
	case ERA_NAMED:
		snprintf(out, cap, "%d: this error's number before CUDA 10.1 (CUDA 13 numbers it %d)", rd->number,
			 o->error->code);
		return true;
	case ERA_OLD_ONLY:
		snprintf(out, cap, "%d: %s's number before CUDA 10.1 (\"%s\"; CUDA 13 numbers it %d); no CUDA 13 "
			 "runtime or driver error has the number %d", rd->number, o->error->name, o->string,
			 o->error->code, rd->number);
		return true;
	case ERA_CURRENT_ALT:
		snprintf(out, cap, "%d read as CUDA 13's %s; before CUDA 10.1 it was %s (\"%s\"), the reading if "
			 "the program was built with CUDA 10.0 or older", rd->number, rd->now->name, o->error->name,
			 o->string);
		return true;
	case ERA_OLD_BY_TEXT:
		snprintf(out, cap, "%d read in the numbering before CUDA 10.1, as %s (\"%s\"), since the text names "
			 "an older CUDA (\"%s\", line %zu); CUDA 13 reads %d as %s", rd->number, o->error->name,
			 o->string, rd->marker, rd->marker_line, rd->number, rd->now->name);
		return true;
	default:
		return false;
	}
}
