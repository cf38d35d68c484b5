/* The explain matcher: walks pasted text line by line and folds every recognised CUDA
 * error or framework message into one match per finding. The text is untrusted: every
 * scan is bounded by the line it is on. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explain.h"
#include "util/err.h"

/* A line longer than this is scanned in pieces of this size (a log without newlines). */
#define CHUNK 4096

struct line {
	const char *s;    /* original text */
	size_t len;
	char low[CHUNK + 1]; /* ASCII-lowercased copy, NUL-terminated */
	size_t offset;    /* in the whole text */
	bool has_cuda;    /* "cuda" appears: short strings and numbers count only then */
};

/* ---- bounded helpers ---- */

static long find_ci(const struct line *l, const char *needle)
{
	char low[256];
	size_t n = strlen(needle);
	const char *at;

	if (n == 0 || n > l->len || n >= sizeof(low))
		return -1;
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)tolower((unsigned char)needle[i]);
	at = strstr(l->low, low);
	return at ? (long)(at - l->low) : -1;
}

static bool is_ident(int c)
{
	return isalnum(c) || c == '_';
}

static void keep_line(struct explain_match *m, const struct line *l)
{
	size_t a = 0, b = l->len, n;

	while (a < b && isspace((unsigned char)l->s[a]))
		a++;
	while (b > a && isspace((unsigned char)l->s[b - 1]))
		b--;
	n = b - a < EXPLAIN_LINE_MAX - 1 ? b - a : EXPLAIN_LINE_MAX - 1;
	for (size_t i = 0; i < m->n_lines; i++)
		if (strncmp(m->lines[i], l->s + a, n) == 0 && m->lines[i][n] == '\0')
			return;
	if (m->n_lines == EXPLAIN_MAX_LINES)
		return;
	memcpy(m->lines[m->n_lines], l->s + a, n);
	/* pasted text may hold control bytes; evidence is printed, so keep it printable */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)m->lines[m->n_lines][i] < 0x20)
			m->lines[m->n_lines][i] = ' ';
	m->lines[m->n_lines][n] = '\0';
	m->n_lines++;
}

/* The match for finding, created at the first hit. NULL on OOM. */
static struct explain_match *hit(struct explain_result *r, const char *finding, enum explain_via via,
				 const struct line *l)
{
	struct explain_match *m;

	for (size_t i = 0; i < r->n; i++) {
		if (strcmp(r->m[i].finding, finding) == 0) {
			if (r->m[i].last_offset != l->offset)
				r->m[i].count++;
			r->m[i].last_offset = l->offset;
			keep_line(&r->m[i], l);
			return &r->m[i];
		}
	}
	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 8;
		struct explain_match *nm = realloc(r->m, ncap * sizeof(*nm));

		if (!nm)
			return NULL;
		r->m = nm;
		r->cap = ncap;
	}
	m = &r->m[r->n++];
	memset(m, 0, sizeof(*m));
	m->finding = finding;
	m->via = via;
	m->offset = l->offset;
	m->last_offset = l->offset;
	m->count = 1;
	m->code_seen = -1;
	keep_line(m, l);
	return m;
}

static const char *error_finding(const struct kb_error *e)
{
	return e->finding ? e->finding : "cuda-error";
}

/* ---- nvcc archs ---- */

const char *explain_nvcc_arch_finding(struct kb_arch a)
{
	const struct kb_toolkit *first, *last, *newest = kb_toolkit_newest_known();
	struct kb_arch plain = { a.num, 0 };

	if (kb_arch_toolkit_range(a, &first, &last) == CD_OK)
		return last ? "arch-dropped-by-toolkit" : "toolkit-cannot-target-gpu";
	/* an 'a'/'f' variant the tables lack: judge by its plain arch */
	if (a.suffix && kb_arch_toolkit_range(plain, &first, &last) == CD_OK)
		return last ? "arch-dropped-by-toolkit" : "toolkit-cannot-target-gpu";
	/* older than every arch the oldest toolkit knows: removed long ago (Fermi) */
	if (newest && newest->n_archs && a.num < kb_toolkit_at(0)->archs[0].num)
		return "arch-dropped-by-toolkit";
	return "toolkit-cannot-target-gpu";
}

/* Reads "compute_120a" / "sm_86" at p (bounded by end). */
static bool read_arch(const char *p, const char *end, struct kb_arch *a)
{
	char tok[24];
	size_t n = 0;

	while (p < end && n + 1 < sizeof(tok) && is_ident((unsigned char)*p))
		tok[n++] = *p++;
	tok[n] = '\0';
	return n > 0 && kb_arch_parse(tok, a) == CD_OK;
}

/* ---- extractors for kb/messages.tsv rows ---- */

static void copy_name(struct explain_match *m, const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= sizeof(m->gpu_name))
		n = sizeof(m->gpu_name) - 1;
	memcpy(m->gpu_name, s, n);
	m->gpu_name[n] = '\0';
}

/* "NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible ..." and, on the
 * next lines, "The current PyTorch install supports CUDA capabilities sm_37 sm_50 ..." */
static void extract_torch_cc(struct explain_match *m, const struct line *l, const char *text,
			     size_t len)
{
	long at = find_ci(l, " with cuda capability sm_");
	const char *p, *end;

	if (at >= 0) {
		const char *start = l->s;
		long colon = -1;

		for (long i = 0; i < at; i++)
			if (l->s[i] == ':' && i + 1 < at && l->s[i + 1] == ' ')
				colon = i + 2;
		if (colon >= 0)
			start = l->s + colon;
		copy_name(m, start, (size_t)(l->s + at - start));
		m->has_arch = read_arch(l->s + at + 22, l->s + l->len, &m->arch);
	}
	/* the supported list follows within a few lines */
	p = l->s;
	end = text + len;
	if ((size_t)(end - p) > 1024)
		end = p + 1024;
	for (const char *q = p; q + 30 < end; q++) {
		if (strncmp(q, "supports CUDA capabilities ", 27) != 0)
			continue;
		q += 27;
		while (q < end && *q != '\n' && m->n_supported < 24) {
			struct kb_arch a;

			while (q < end && *q == ' ')
				q++;
			if (!read_arch(q, end, &a))
				break;
			m->supported_ptx[m->n_supported] = end - q > 8 && strncmp(q, "compute_", 8) == 0;
			m->supported[m->n_supported++] = a;
			while (q < end && is_ident((unsigned char)*q))
				q++;
		}
		break;
	}
}

/* "Found GPU0 GeForce 820M which is of cuda capability 2.1." */
static void extract_torch_cc_old(struct explain_match *m, const char *text, size_t len, size_t from)
{
	size_t end = from + 2048 < len ? from + 2048 : len;

	for (size_t i = from > 512 ? from - 512 : 0; i + 30 < end; i++) {
		if (strncmp(text + i, " which is of cuda capability ", 29) != 0)
			continue;
		{
			size_t s = i, j = i + 29;
			char cc[8];
			size_t n = 0;

			while (s > 0 && text[s - 1] != '\n' && i - s < 80)
				s--;
			while (s < i && isspace((unsigned char)text[s]))
				s++;
			if (i - s > 5 && strncmp(text + s, "Found GPU", 9) == 0) {
				s += 9;
				while (s < i && isdigit((unsigned char)text[s]))
					s++;
			}
			copy_name(m, text + s, i - s);
			while (j < end && n + 1 < sizeof(cc) && (isdigit((unsigned char)text[j]) ||
								 text[j] == '.'))
				cc[n++] = text[j++];
			if (n && cc[n - 1] == '.')
				n--;
			cc[n] = '\0';
			m->has_arch = kb_arch_parse(cc, &m->arch) == CD_OK;
		}
		return;
	}
}

/* "NVRM: Xid (PCI:0000:06:00): 79, pid=..." */
static void extract_xid(struct explain_match *m, const struct line *l)
{
	long at = find_ci(l, "xid (");
	size_t i;
	int v = 0, digits = 0;

	if (at < 0)
		return;
	for (i = (size_t)at; i < l->len && l->s[i] != ')'; i++)
		;
	if (i + 2 >= l->len || l->s[i + 1] != ':')
		return;
	for (i += 2; i < l->len && l->s[i] == ' '; i++)
		;
	while (i < l->len && isdigit((unsigned char)l->s[i]) && digits < 4) {
		v = v * 10 + (l->s[i++] - '0');
		digits++;
	}
	if (!digits)
		return;
	for (size_t k = 0; k < m->n_xids; k++)
		if (m->xids[k] == v)
			return;
	if (m->n_xids < sizeof(m->xids) / sizeof(m->xids[0]))
		m->xids[m->n_xids++] = v;
}

/* the first absolute path to a shared library or CUDA binary on the line */
static void extract_path(struct explain_match *m, const struct line *l)
{
	if (m->path[0])
		return;
	for (size_t i = 0; i < l->len; i++) {
		size_t j = i, n;

		if (l->s[i] != '/' || (i > 0 && !isspace((unsigned char)l->s[i - 1]) &&
				       l->s[i - 1] != '"' && l->s[i - 1] != '\'' && l->s[i - 1] != '('))
			continue;
		while (j < l->len && !isspace((unsigned char)l->s[j]) && l->s[j] != ':' &&
		       l->s[j] != '"' && l->s[j] != '\'' && l->s[j] != ',' && l->s[j] != ')')
			j++;
		n = j - i;
		if (n < 5 || n >= sizeof(m->path))
			continue;
		if (strstr(l->low + i, ".so") && (size_t)(strstr(l->low + i, ".so") - (l->low + i)) < n) {
			memcpy(m->path, l->s + i, n);
			m->path[n] = '\0';
			return;
		}
	}
}

/* ---- the three ways a catalogue code shows up ---- */

/* "e == cudaSuccess || e == cudaErrorCudartUnloading": a name compared against, not raised */
static bool after_comparison(const struct line *l, size_t start)
{
	size_t i = start;

	while (i > 0 && l->s[i - 1] == ' ')
		i--;
	return i >= 2 && l->s[i - 1] == '=' && (l->s[i - 2] == '=' || l->s[i - 2] == '!');
}

static int match_names(struct explain_result *r, const struct line *l, bool *found)
{
	for (size_t i = 0; i < l->len;) {
		char tok[64];
		size_t n = 0, start = i;
		const struct kb_error *e = NULL;
		struct explain_match *m;

		if (!is_ident((unsigned char)l->s[i]) || (i > 0 && is_ident((unsigned char)l->s[i - 1]))) {
			i++;
			continue;
		}
		while (i < l->len && is_ident((unsigned char)l->s[i])) {
			if (n + 1 < sizeof(tok))
				tok[n++] = l->s[i];
			i++;
		}
		tok[n] = '\0';
		if (i - start >= sizeof(tok) || n < 9 || after_comparison(l, start))
			continue;
		if (strncmp(tok, "cudaError", 9) == 0 || strncmp(tok, "CUDA_ERROR_", 11) == 0) {
			e = kb_error_by_name(tok);
		} else if (strncmp(tok, "ERROR_", 6) == 0 && l->has_cuda) {
			/* Julia's CUDAdrv prints "ERROR_INVALID_DEVICE" */
			char full[72] = "CUDA_";

			strcat(full, tok);
			e = kb_error_by_name(full);
		}
		if (!e || e->code == 0)
			continue;
		m = hit(r, error_finding(e), VIA_NAME, l);
		if (!m)
			return CD_ENOMEM;
		if (!m->error)
			m->error = e;
		*found = true;
	}
	return CD_OK;
}

/* Strings the runtime prints; short ones count only on a line that mentions CUDA. */
static int match_strings(struct explain_result *r, const struct line *l, bool *found,
			 const struct kb_error **which)
{
	for (size_t i = 0; i < kb_error_count(); i++) {
		const struct kb_error *e = kb_error_at(i);
		size_t n = strlen(e->string);
		struct explain_match *m;
		long at;

		if (e->code == 0 || strcmp(e->string_source, "header-doc") == 0 || n < 8)
			continue;
		if (n < 30 && !l->has_cuda)
			continue;
		at = find_ci(l, e->string);
		if (at < 0)
			continue;
		/* a runtime and a driver code often share a string: one hit is enough */
		if (*which && strcmp((*which)->string, e->string) == 0)
			continue;
		m = hit(r, error_finding(e), VIA_STRING, l);
		if (!m)
			return CD_ENOMEM;
		if (!m->error)
			m->error = e;
		*which = e;
		*found = true;
	}
	return CD_OK;
}

/* "CUDA error 222", "error = 48", "error #35", "code=802(", "returned 35", "(35 vs. 0)",
 * "CUDA failure 35", "Error 804:", "error (10)". Returns the number or -1. */
static int number_after(const struct line *l, size_t i)
{
	int v = 0, digits = 0;

	while (i < l->len && (l->s[i] == ' ' || l->s[i] == '=' || l->s[i] == '#' || l->s[i] == '(' ||
			      l->s[i] == ':'))
		i++;
	while (i < l->len && isdigit((unsigned char)l->s[i]) && digits < 6) {
		v = v * 10 + (l->s[i++] - '0');
		digits++;
	}
	/* "ERROR 06-26 23:10" is a date, "error 1.5" a version: not codes */
	if (!digits || (i < l->len && (isdigit((unsigned char)l->s[i]) || l->s[i] == '.' ||
				       l->s[i] == '-' || l->s[i] == '/' ||
				       isalpha((unsigned char)l->s[i]))))
		return -1;
	return v;
}

static int numbers_on_line(const struct line *l, int *out, int max)
{
	static const char *const keys[] = { "error", "failure", "code=", "code #", "returned" };
	int n = 0;

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		const char *key = keys[k];
		size_t klen = strlen(key);

		for (size_t i = 0; i + klen <= l->len && n < max; i++) {
			int v;

			if (strncmp(l->low + i, key, klen) != 0)
				continue;
			if (i > 0 && isalpha((unsigned char)l->low[i - 1]) && k < 2 &&
			    !(i >= 4 && strncmp(l->low + i - 4, "cuda", 4) == 0))
				continue; /* "cudaError..." is a name, "xerror" is not ours */
			/* "error code 35" */
			if (k == 0 && strncmp(l->low + i + klen, " code ", 6) == 0)
				v = number_after(l, i + klen + 6);
			else
				v = number_after(l, i + klen);
			if (v >= 0)
				out[n++] = v;
		}
	}
	/* "(35 vs. 0)" from glog's CHECK_EQ on cudaSuccess */
	for (size_t i = 0; i + 8 < l->len && n < max; i++) {
		if (l->s[i] == '(' && isdigit((unsigned char)l->s[i + 1])) {
			size_t j = i + 1;
			int v = 0;

			while (j < l->len && isdigit((unsigned char)l->s[j]) && v < 100000)
				v = v * 10 + (l->s[j++] - '0');
			if (l->len - j >= 8 && strncmp(l->s + j, " vs. 0)", 7) == 0)
				out[n++] = v;
		}
	}
	return n;
}

static int match_numbers(struct explain_result *r, const struct line *l, bool *found)
{
	int nums[8];
	int n;

	if (!l->has_cuda)
		return CD_OK;
	n = numbers_on_line(l, nums, 8);
	for (int i = 0; i < n; i++) {
		const struct kb_error *e = kb_error_by_code(KB_API_RUNTIME, nums[i]);
		struct explain_match *m;

		if (!e)
			e = kb_error_by_code(KB_API_DRIVER, nums[i]);
		if (!e || e->code == 0)
			continue;
		m = hit(r, error_finding(e), VIA_NUMBER, l);
		if (!m)
			return CD_ENOMEM;
		if (!m->error)
			m->error = e;
		*found = true;
	}
	return CD_OK;
}

/* A number printed beside a recognised string but meaning something else there: the
 * pre-10.1 runtime numbering (48 for 209, 7 for 701). Kept as evidence. */
static void note_old_number(struct explain_result *r, const struct line *l, const struct kb_error *e)
{
	int nums[8];
	int n = numbers_on_line(l, nums, 8);

	for (size_t i = 0; i < r->n; i++) {
		if (r->m[i].error != e)
			continue;
		for (int k = 0; k < n; k++)
			if (nums[k] != e->code && r->m[i].code_seen < 0)
				r->m[i].code_seen = nums[k];
	}
}

/* ---- kb/messages.tsv ---- */

static int match_messages(struct explain_result *r, const struct line *l, const char *text,
			  size_t len)
{
	for (size_t i = 0; i < kb_message_count(); i++) {
		const struct kb_message *msg = kb_message_at(i);
		const char *finding = msg->finding;
		struct explain_match *m;
		bool all = true;
		struct kb_arch a;
		bool have_a = false;

		for (size_t k = 0; k < msg->n_parts && all; k++)
			all = find_ci(l, msg->parts[k]) >= 0;
		if (!all)
			continue;
		if (strcmp(msg->extract, "nvcc_arch") == 0) {
			long at = find_ci(l, "architecture '");

			if (at < 0)
				at = find_ci(l, "value '");
			if (at >= 0) {
				const char *q = memchr(l->s + at, '\'', l->len - (size_t)at);

				have_a = q && read_arch(q + 1, l->s + l->len, &a);
			}
			if (have_a)
				finding = explain_nvcc_arch_finding(a);
		}
		m = hit(r, finding, VIA_MESSAGE, l);
		if (!m)
			return CD_ENOMEM;
		if (!m->message)
			m->message = msg;
		if (have_a && !m->has_arch) {
			m->arch = a;
			m->has_arch = true;
		}
		if (strcmp(msg->extract, "torch_cc") == 0 && !m->has_arch)
			extract_torch_cc(m, l, text, len);
		else if (strcmp(msg->extract, "torch_cc_old") == 0 && !m->has_arch)
			extract_torch_cc_old(m, text, len, l->offset);
		else if (strcmp(msg->extract, "xid") == 0)
			extract_xid(m, l);
		else if (strcmp(msg->extract, "oom") == 0 && !m->has_oom)
			m->has_oom = oom_parse(text + l->offset, len - l->offset, &m->oom) == CD_OK;
	}
	return CD_OK;
}

static int scan_line(struct explain_result *r, struct line *l, const char *text, size_t len)
{
	const struct kb_error *by_string = NULL;
	bool found = false;
	int rc;

	/* a NUL byte in pasted text must not end the searches early */
	for (size_t i = 0; i < l->len; i++)
		l->low[i] = l->s[i] ? (char)tolower((unsigned char)l->s[i]) : ' ';
	l->low[l->len] = '\0';
	l->has_cuda = strstr(l->low, "cuda") != NULL;
	if ((rc = match_messages(r, l, text, len)) != CD_OK)
		return rc;
	if ((rc = match_names(r, l, &found)) != CD_OK)
		return rc;
	if ((rc = match_strings(r, l, &found, &by_string)) != CD_OK)
		return rc;
	if (by_string)
		note_old_number(r, l, by_string);
	else if (!found && (rc = match_numbers(r, l, &found)) != CD_OK)
		return rc;
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->m[i].finding, "no-kernel-image") == 0 && r->m[i].offset <= l->offset)
			extract_path(&r->m[i], l);
	return CD_OK;
}

/* ---- after the scan ---- */

static void drop(struct explain_result *r, size_t i)
{
	memmove(&r->m[i], &r->m[i + 1], (r->n - i - 1) * sizeof(r->m[0]));
	r->n--;
}

static bool present(const struct explain_result *r, const char *prefix)
{
	for (size_t i = 0; i < r->n; i++)
		if (strncmp(r->m[i].finding, prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

/* A PyTorch OOM message becomes oom-capacity / -other-process / -fragmentation. The
 * generic out-of-memory is dropped when a classified one exists. */
static void settle_oom(struct explain_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct explain_match *m = &r->m[i];

		if (strcmp(m->finding, "out-of-memory") != 0 || !m->has_oom)
			continue;
		if (oom_classify(&m->oom.n) != OOM_CLASS_UNKNOWN)
			m->finding = oom_class_finding(oom_classify(&m->oom.n));
	}
	if (present(r, "oom-"))
		for (size_t i = r->n; i-- > 0;)
			if (strcmp(r->m[i].finding, "out-of-memory") == 0)
				drop(r, i);
}

int explain_text(const char *text, size_t len, struct explain_result *out, char *err)
{
	struct line *l;
	size_t pos = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = kb_load(err)) != CD_OK)
		return rc;
	if (!text)
		return CD_OK;
	l = malloc(sizeof(*l));
	if (!l)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;

		/* one physical line, in chunks of at most CHUNK bytes */
		for (size_t s = pos; s < end || s == pos; s += CHUNK) {
			l->s = text + s;
			l->len = end - s < CHUNK ? end - s : CHUNK;
			l->offset = s;
			if (l->len && l->s[l->len - 1] == '\r')
				l->len--;
			if ((rc = scan_line(out, l, text, len)) != CD_OK) {
				free(l);
				explain_result_free(out);
				return cd_fail(err, rc, "out of memory");
			}
			if (end - s <= CHUNK)
				break;
		}
		pos = end + 1;
	}
	free(l);
	settle_oom(out);
	return CD_OK;
}

void explain_result_free(struct explain_result *r)
{
	free(r->m);
	memset(r, 0, sizeof(*r));
}
