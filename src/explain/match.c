/* The explain matcher's rules for one line: the automaton's hits on it read as context
 * (CUDA, GPU, region, platform), framework messages made whole, catalogue strings (the
 * longest wins), then names and numbers (codes.c); each recognised error folded into one match
 * per finding, with the first and last line and a count. The text is untrusted: every scan is
 * bounded by the line it is on. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "explain/scan.h"
#include "explain/textfacts.h"
#include "util/err.h"
#include "util/safetext.h"
#include "util/sort.h"

bool explain_is_ident(int c)
{
	return isalnum(c) || c == '_';
}

static void trim_copy(char *dst, size_t cap, const struct line *l)
{
	size_t a = 0, b = l->len;

	while (a < b && isspace((unsigned char)l->s[a]))
		a++;
	while (b > a && isspace((unsigned char)l->s[b - 1]))
		b--;
	/* pasted text is anyone's bytes (CJK, tqdm's bars, a cut character, escape sequences):
	 * evidence is printed and put in JSON, so it is safe text, cut between characters */
	safe_text(dst, cap, l->s + a, b - a, SAFE_TEXT_KEEP_NEWLINES);
}

/* a matched line, once, among the few kept */
void explain_add_line(struct explain_match *m, const char *t)
{
	for (size_t i = 0; i < m->n_lines; i++)
		if (strcmp(m->lines[i], t) == 0)
			return;
	if (m->n_lines < EXPLAIN_MAX_LINES)
		memcpy(m->lines[m->n_lines++], t, EXPLAIN_LINE_MAX);
}

static void keep_line(struct explain_match *m, const struct line *l)
{
	char t[EXPLAIN_LINE_MAX];

	trim_copy(t, sizeof(t), l);
	memcpy(m->last, t, sizeof(t));
	explain_add_line(m, t);
}

struct explain_match *explain_hit(struct explain_result *r, const char *finding, enum explain_via via,
				 const struct line *l)
{
	struct explain_match *m;

	for (size_t i = 0; i < r->n; i++) {
		if (strcmp(r->m[i].finding, finding) == 0) {
			if (r->m[i].last_offset != l->offset)
				r->m[i].count++;
			r->m[i].last_offset = l->offset;
			r->m[i].last_line = l->no;
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
	m->offset = m->last_offset = l->offset;
	m->line = m->last_line = l->no;
	m->count = 1;
	m->code_seen = -1;
	m->region = l->region;
	keep_line(m, l);
	return m;
}

const char *explain_error_finding(const struct kb_error *e)
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

/* ---- context ---- */

/* isspace in the C locale (explain never sets another), without the table lookup */
static bool c_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* "cuda" counts unless it is part of a path or a file name ("/usr/local/cuda-12.4/bin",
 * "ggml-cuda.cu" beside a path): the word a path holds says nothing about an error */
static bool cuda_outside_path(const struct line *l, size_t at)
{
	/* out from the word both ways to a blank; a separator on the way ends it at once
	 * ("torch/cuda/__init__.py" is decided one byte before) */
	for (size_t a = at; a > 0 && !c_space(l->s[a - 1]); a--)
		if (l->s[a - 1] == '/' || l->s[a - 1] == '\\')
			return false;
	for (size_t b = at; b < l->len && !c_space(l->s[b]); b++)
		if (l->s[b] == '/' || l->s[b] == '\\')
			return false;
	return true;
}

/* ---- pending extractions: an OOM message's numbers follow it ---- */

static int pend_start(struct explain_scan *sc, size_t match, const struct line *l)
{
	struct pending *p;

	if (sc->n_pend == MAX_PENDING)
		return CD_OK;
	p = &sc->pend[sc->n_pend];
	p->buf = malloc(OOM_WINDOW);
	if (!p->buf)
		return CD_ENOMEM;
	p->match = match;
	p->len = l->len < OOM_WINDOW ? l->len : OOM_WINDOW;
	memcpy(p->buf, l->s, p->len);
	p->lines = 1;
	sc->n_pend++;
	return CD_OK;
}

void explain_pend_close(struct explain_scan *sc, size_t i)
{
	struct pending *p = &sc->pend[i];
	struct explain_match *m = &sc->r.m[p->match];

	struct oom_message o;

	if (oom_parse(p->buf, p->len, &o) == CD_OK) {
		if (!m->has_oom)
			m->oom = o;
		else
			oom_merge(&m->oom, &o);
		m->has_oom = true;
	}
	free(p->buf);
	sc->pend[i] = sc->pend[--sc->n_pend];
}

/* every line (matched or not) goes to the open windows */
void explain_pend_feed(struct explain_scan *sc, const char *s, size_t len)
{
	for (size_t i = sc->n_pend; i-- > 0;) {
		struct pending *p = &sc->pend[i];
		size_t room = OOM_WINDOW - p->len;

		if (room > 1) {
			p->buf[p->len++] = '\n';
			room--;
			if (len < room)
				room = len;
			memcpy(p->buf + p->len, s, room);
			p->len += room;
		}
		if (++p->lines > 40 || p->len >= OOM_WINDOW || len == 0)
			explain_pend_close(sc, i);
	}
}

/* ---- messages ---- */

static struct explain_match *last_with(struct explain_result *r, const char *extract, size_t line, size_t within)
{
	for (size_t i = r->n; i-- > 0;) {
		struct explain_match *m = &r->m[i];

		if (m->message && strcmp(m->message->extract, extract) == 0 && m->last_line + within >= line)
			return m;
	}
	return NULL;
}

/* The architecture nvcc quotes ("Unsupported gpu architecture 'compute_120'", "invalid value
 * 'sm_89'"): 1 with *a set, 0 when the line quotes none, -1 when the quoted name is no
 * architecture */
static int nvcc_arch_value(const struct line *l, struct kb_arch *a)
{
	long at = line_find(l, "architecture '");
	const char *q;

	if (at < 0)
		at = line_find(l, "value '");
	if (at < 0)
		return 0;
	q = memchr(l->s + at, '\'', l->len - (size_t)at);
	if (!q)
		return 0;
	return ex_arch_at(q + 1, l->s + l->len, a) ? 1 : -1;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* What a whole message's row says to read from its line into m. CD_OK or CD_ENOMEM. */
static int extract_message(struct explain_scan *sc, struct explain_match *m, const char *x, const struct line *l)
{
	struct explain_result *r = &sc->r;

	if (strcmp(x, "torch_cc") == 0)
		ex_torch_cc(m, l);
	else if (strcmp(x, "xid") == 0)
		ex_xid(m, l);
	else if (strcmp(x, "driver_found") == 0)
		ex_driver_found(m, l);
	else if (strcmp(x, "lib_versions") == 0)
		ex_lib_versions(m, l);
	else if (strcmp(x, "gpu_cc") == 0)
		ex_gpu_cc(m, l);
	else if (strcmp(x, "vllm_budget") == 0)
		ex_vllm_budget(m, l);
	else if (strcmp(x, "host_mem") == 0)
		ex_host_mem(m, l);
	else if (strcmp(x, "ollama_vram") == 0)
		ex_ollama_vram(m, l);
	else if (strcmp(x, "tgi") == 0 && !m->has_tgi)
		m->has_tgi = tgi_mem_oom(&sc->tgi, l->s, l->len, &m->tgi);
	else if (strcmp(x, "ggml_oom") == 0 && !m->has_oom) {
		/* llama.cpp's failed cudaMalloc, judged by what its log said of the device */
		if (ggml_mem_oom(&sc->ggml, l->s, l->len, &m->oom)) {
			m->has_oom = true;
			m->ggml_ctx = sc->ggml.n_ctx;
			ggml_mem_plan(&sc->ggml, m->ggml_plan, sizeof(m->ggml_plan));
		}
	}
	/* oom_stats: an allocator's summary, whose numbers add to its failure line's */
	else if ((strcmp(x, "oom") == 0 && !m->has_oom) || strcmp(x, "oom_stats") == 0) {
		bool open = false;

		for (size_t k = 0; k < sc->n_pend; k++)
			open |= sc->pend[k].match == (size_t)(m - r->m);
		if (!open && pend_start(sc, (size_t)(m - r->m), l) != CD_OK)
			return CD_ENOMEM;
	}
	return CD_OK;
}

static bool whole(const struct explain_scan *sc, size_t msg)
{
	return sc->msg_seen[msg] == (1u << kb_message_at(msg)->n_parts) - 1;
}

/* The messages this line's hits touched, each once, in the table's order as a walk over every
 * message would take them (a log's lines would each pay for the whole table): their count. */
static size_t message_candidates(const struct explain_scan *sc, size_t *cand)
{
	size_t n_cand = 0, n_uniq = 0;

	for (size_t h = 0; h < sc->n_hits && n_cand < LINE_HITS; h++)
		if (pat_set.pats[sc->hits[h].pat].kind == PK_PART)
			cand[n_cand++] = pat_set.pats[sc->hits[h].pat].msg;
	cd_qsort(cand, n_cand, sizeof(cand[0]), cmp_size);
	for (size_t c = 0; c < n_cand; c++)
		if (n_uniq == 0 || cand[n_uniq - 1] != cand[c])
			cand[n_uniq++] = cand[c];
	return n_uniq;
}

static int match_messages(struct explain_scan *sc, const struct line *l, bool *found)
{
	struct explain_result *r = &sc->r;
	size_t cand[LINE_HITS], n_cand = message_candidates(sc, cand);
	bool retried = false;

	/* nvcc refusing a name that is no architecture ('compute_N', 'compute_', 'compute_No CUDA
	 * devices found.': a build script whose GPU detection failed, a docker build without a GPU)
	 * is the build's own mistake: no toolkit knows such a name, and the words inside the quotes
	 * are the build's argument, not a message of the stack */
	for (size_t c = 0; c < n_cand; c++) {
		struct kb_arch a;

		if (strcmp(kb_message_at(cand[c])->extract, "nvcc_arch") == 0 && whole(sc, cand[c]) &&
		    nvcc_arch_value(l, &a) < 0) {
			*found = true;
			return CD_OK;
		}
	}
	/* an allocator that says its failed attempt is not a failure (TensorFlow's BFC retries after
	 * freeing) makes the line's out-of-memory message no finding */
	for (size_t c = 0; c < n_cand; c++)
		retried |= strcmp(kb_message_at(cand[c])->extract, "retried") == 0 && whole(sc, cand[c]);
	for (size_t c = 0; c < n_cand; c++) {
		const struct kb_message *msg = kb_message_at(cand[c]);
		const char *finding = msg->finding, *x = msg->extract;
		struct explain_match *m;
		struct kb_arch a;
		bool have_a = false;
		char lib[96] = "";

		if (!whole(sc, cand[c]) || strcmp(x, "retried") == 0 || (retried && strcmp(x, "oom") == 0))
			continue;
		if (strcmp(x, "nvcc_arch") == 0) {
			have_a = nvcc_arch_value(l, &a) > 0;
			if (have_a)
				finding = explain_nvcc_arch_finding(a);
		} else if (strcmp(x, "loader") == 0) {
			finding = ex_loader(l, finding, lib, sizeof(lib));
			if (!finding)
				continue;
		}
		m = explain_hit(r, finding, VIA_MESSAGE, l);
		if (!m)
			return CD_ENOMEM;
		if (strcmp(x, "fallback") != 0)
			*found = true;
		if (!m->message)
			m->message = msg;
		if (have_a && !m->has_arch) {
			m->arch = a;
			m->has_arch = true;
		}
		if (lib[0] && !m->library[0]) {
			memcpy(m->library, lib, sizeof(m->library));
			m->torch_dll = ex_torch_dll(l, lib);
		}
		if (extract_message(sc, m, x, l) != CD_OK)
			return CD_ENOMEM;
	}
	return CD_OK;
}

/* ---- invalid argument at a launch ---- */

#define LAUNCH_LINES 3 /* a launch this many lines above an invalid argument is its cause */

/* cudaErrorInvalidValue / CUDA_ERROR_INVALID_VALUE, with no diagnosis of its own yet */
bool explain_is_invalid_value(const struct explain_match *m)
{
	return m->error && m->error->code == 1 &&
	       (m->error->api == KB_API_RUNTIME || m->error->api == KB_API_DRIVER) &&
	       strcmp(m->finding, "cuda-error") == 0;
}

/* CUDA 13 returns invalid argument, not invalid configuration (9), for a block beyond the
 * GPU's limits (<<<1, 2048>>>): the launch's limits explain it */
void explain_tie_to_launch(struct explain_match *m)
{
	m->finding = "launch-out-of-resources";
	m->invalid_value_launch = true;
}

/* ---- one line ---- */

static bool inside(uint32_t s1, uint32_t e1, uint32_t s2, uint32_t e2)
{
	return s2 <= s1 && e1 <= e2 && (e2 - s2) > (e1 - s1);
}

/* a framework message the kb names for the same text speaks for it, even when the two are
 * the same length (the stream-capture errors: the catalogue has no diagnosis, messages do) */
static bool covers(uint32_t s1, uint32_t e1, uint32_t s2, uint32_t e2)
{
	return s2 <= s1 && e1 <= e2;
}

/* A message part inside a longer part of another message that is whole on the line is that
 * message's: "gpu_host_bfc) ran out of memory" is the host pool's failure, not the GPU pool's
 * "_bfc) ran out of memory". So is one inside a whole catalogue string: the head of a wrapped
 * message ("no kernel image is available") stands for the message only where it was cut. */
static void shadow_parts(struct explain_scan *sc)
{
	for (size_t h = 0; h < sc->n_hits; h++) {
		const struct pat *p = &pat_set.pats[sc->hits[h].pat];
		uint32_t e1 = sc->hits[h].end, s1 = e1 - pat_set.ac.len[sc->hits[h].pat];

		if (p->kind != PK_PART)
			continue;
		for (size_t k = 0; k < sc->n_hits; k++) {
			const struct pat *q = &pat_set.pats[sc->hits[k].pat];
			uint32_t e2 = sc->hits[k].end, s2 = e2 - pat_set.ac.len[sc->hits[k].pat];

			bool whole = (q->kind == PK_PART && q->msg != p->msg &&
				      sc->msg_seen[q->msg] == (1u << kb_message_at(q->msg)->n_parts) - 1) ||
				     /* a catalogue string that always counts (long, with a diagnosis) */
				     (q->kind == PK_ERROR && pat_set.ac.len[sc->hits[k].pat] >= 30 && q->error->finding);

			if (k != h && whole && inside(s1, e1, s2, e2)) {
				sc->msg_seen[p->msg] &= (unsigned char)~(1u << p->part);
				break;
			}
		}
	}
}

/* dst[0..n) = s lowercased (ASCII), NUL bytes as spaces, then a NUL: eight bytes at a time,
 * as every line with a hit is copied so */
static void fold_line(char *dst, const char *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u, low7 = 0x7F7F7F7F7F7F7F7Fu;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w, h, upper, zero;

		memcpy(&w, s + i, 8);
		h = w & low7;
		/* per byte, high bit: ASCII, at least 'A' and at most 'Z' (no carries: h < 0x80) */
		upper = ~w & ((h + ones * (0x80 - 'A')) ^ (h + ones * (0x7F - 'Z'))) & high;
		zero = ~((h + low7) | w) & high;
		w |= (upper | zero) >> 2; /* 0x20: 'A' to 'a', NUL to ' ' */
		memcpy(dst + i, &w, 8);
	}
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		dst[i] = c >= 'A' && c <= 'Z' ? (char)(c + 'a' - 'A') : c ? (char)c : ' ';
	}
	dst[n] = '\0';
}

/* What the hits of a line say besides errors, noted on the way to its rules. */
struct line_kinds {
	bool parts, names, numkeys, nccl, runtime_version, ggml, tgi, facts;
	uint32_t cuda_at[ERA_CUDA_MAX];
	size_t n_cuda;
};

/* One hit read as context: CUDA and GPU words, regions, platform markers, a launch, the
 * readers' anchors; a message part marked seen. */
static void note_hit(struct explain_scan *sc, struct line *l, size_t h, struct line_kinds *k)
{
	const struct pat *p = &pat_set.pats[sc->hits[h].pat];
	uint32_t start = sc->hits[h].end - pat_set.ac.len[sc->hits[h].pat];

	switch (p->kind) {
	/* one "cuda" outside a path settles the line, one GPU word the context */
	case PK_CUDA:
		if (!l->has_cuda && cuda_outside_path(l, start))
			l->has_cuda = true;
		if (k->n_cuda < ERA_CUDA_MAX)
			k->cuda_at[k->n_cuda] = start;
		k->n_cuda++;
		break;
	case PK_RUNTIME_VERSION: k->runtime_version = true; break;
	case PK_GPU:
		if (sc->ctx_until != l->no + CTX_LINES && cuda_outside_path(l, start))
			sc->ctx_until = l->no + CTX_LINES;
		break;
	case PK_PART: sc->msg_seen[p->msg] |= (unsigned char)(1u << p->part); break;
	case PK_NCCL:
		if (!k->nccl)
			memset(sc->nccl_hit, 0, nccl_log_anchor_count());
		k->nccl = true;
		sc->nccl_hit[p->msg] = true;
		break;
	case PK_WSL: sc->wsl = true; break;
	case PK_TORCH: sc->r.torch = true; break;
	case PK_REGION:
		sc->region = (enum explain_region)p->msg;
		sc->region_line = l->no;
		break;
	case PK_WINDOWS: sc->windows = true; break;
	case PK_LINUX: sc->linux_seen = true; break;
	case PK_EMBEDDED: sc->embedded = sc->windows = true; break;
	case PK_ROCM: sc->rocm = true; break;
	case PK_HINT: premise_hit(&sc->premise, (unsigned)p->msg, l->s, l->low, l->len, l->no); break;
	case PK_PLATFORM: text_platform_hit(&sc->r.platform, p->msg, l->low, l->len, sc->hits[h].end); break;
	case PK_GGML: k->ggml = true; break;
	case PK_TGI: k->tgi = true; break;
	case PK_FACT: k->facts = true; break;
	case PK_LAUNCH:
		/* PyTorch's advice "CUDA_LAUNCH_BLOCKING=1" is not a launch */
		if (!(sc->hits[h].end + 9 <= l->len && strncmp(l->low + sc->hits[h].end, "_blocking", 9) == 0) &&
		    sc->launch_line != l->no) {
			sc->launch_line = l->no;
			sc->launch_block = ex_block_threads(l);
		}
		break;
	default:
		break;
	}
}

/* Catalogue strings: the longest wins (717's "operation not supported on global/shared address
 * space" holds 801's "operation not supported"). The last recognised into *by_string. */
static int match_strings(struct explain_scan *sc, const struct line *l, bool in_ctx, bool parts, bool *found,
			 const struct kb_error **by_string)
{
	for (size_t h = 0; h < sc->n_hits; h++) {
		const struct pat *p = &pat_set.pats[sc->hits[h].pat];
		uint32_t e1 = sc->hits[h].end, s1 = e1 - pat_set.ac.len[sc->hits[h].pat];
		bool shadowed = false;
		size_t n = pat_set.ac.len[sc->hits[h].pat];
		struct explain_match *m;

		if (p->kind != PK_ERROR)
			continue;
		/* short strings count only in a CUDA context; a code without a diagnosis only on a
		 * line that says CUDA */
		if ((n < 30 && !l->has_cuda && !(in_ctx && n > 20 && p->error->finding)) ||
		    (!p->error->finding && !l->has_cuda))
			continue;
		for (size_t k = 0; k < sc->n_hits && !shadowed; k++) {
			const struct pat *q = &pat_set.pats[sc->hits[k].pat];
			uint32_t e2 = sc->hits[k].end, s2 = e2 - pat_set.ac.len[sc->hits[k].pat];
			bool whole_msg = q->kind == PK_PART && parts && whole(sc, q->msg);

			shadowed = k != h && ((q->kind == PK_ERROR && inside(s1, e1, s2, e2)) ||
					      (whole_msg && covers(s1, e1, s2, e2)));
		}
		if (shadowed)
			continue;
		m = explain_hit(&sc->r, explain_error_finding(p->error), VIA_STRING, l);
		if (!m)
			return CD_ENOMEM;
		if (!m->error)
			m->error = p->error;
		*by_string = p->error;
		*found = true;
	}
	return CD_OK;
}

/* What this line adds to earlier matches: PyTorch's arch list, an old GPU's capability, a
 * launch above an invalid argument, a path or block near its error. */
static void add_to_earlier(struct explain_scan *sc, const struct line *l)
{
	struct explain_result *r = &sc->r;

	for (size_t h = 0; h < sc->n_hits; h++) {
		const struct pat *p = &pat_set.pats[sc->hits[h].pat];
		struct explain_match *m;

		if (p->kind == PK_SUPPORTS && (m = last_with(r, "torch_cc", l->no, 10)))
			ex_supported(m, l);
		else if (p->kind == PK_CC_OLD && (m = last_with(r, "torch_cc_old", l->no, 10)))
			ex_cc_old(m, l);
	}
	/* (the line numbers first: on most lines no match is that near) */
	for (size_t i = 0; i < r->n; i++) {
		if (r->m[i].last_line + 5 < l->no)
			continue;
		if (r->m[i].last_line == l->no && explain_is_invalid_value(&r->m[i]) && sc->launch_line &&
		    sc->launch_line + LAUNCH_LINES >= l->no) {
			explain_tie_to_launch(&r->m[i]);
			if (!r->m[i].block_threads)
				r->m[i].block_threads = sc->launch_block;
		}
		if (!r->m[i].path[0] && strcmp(r->m[i].finding, "no-kernel-image") == 0)
			ex_path(&r->m[i], l);
		if (r->m[i].last_line + 3 >= l->no && strcmp(r->m[i].finding, "launch-out-of-resources") == 0)
			ex_block(&r->m[i], l);
	}
}

int explain_line_rules(struct explain_scan *sc)
{
	struct line *l = &sc->l;
	const struct kb_error *by_string = NULL;
	struct line_kinds k = { 0 };
	struct era_hints hints;
	bool found = false, in_ctx;
	int rc;

	fold_line(l->low, l->s, l->len);
	l->has_cuda = false;
	in_ctx = l->no <= sc->ctx_until;
	for (size_t h = 0; h < sc->n_hits; h++) {
		enum pat_kind kind = pat_set.pats[sc->hits[h].pat].kind;

		k.parts |= kind == PK_PART;
		k.names |= kind == PK_NAME;
		k.numkeys |= kind == PK_NUMKEY;
	}
	if (k.parts)
		memset(sc->msg_seen, 0, kb_message_count());
	for (size_t h = 0; h < sc->n_hits; h++)
		note_hit(sc, l, h, &k);
	if (l->has_cuda)
		sc->ctx_until = l->no + CTX_LINES;
	l->region = explain_region_at(sc->region, sc->region_line, l->no);
	hints = (struct era_hints){ sc->n_hits < LINE_HITS && k.n_cuda <= ERA_CUDA_MAX, k.runtime_version, k.cuda_at,
				    k.n_cuda };
	eras_line(&sc->era, l->low, l->len, l->no, &hints);
	if (k.ggml)
		ggml_mem_line(&sc->ggml, l->s, l->len);
	if (k.tgi)
		tgi_mem_line(&sc->tgi, l->s, l->len);
	if (k.facts)
		explain_text_facts_line(&sc->r.facts, l);
	if (k.nccl && (rc = nccl_log_line_hits(&sc->nccl, l->s, l->len, sc->nccl_hit, NULL)) != CD_OK)
		return rc;
	/* the automaton's "nccl" anchor is the search, unless the line had more hits than kept */
	k.nccl = k.nccl && (sc->n_hits < LINE_HITS ? sc->nccl_hit[nccl_log_anchor_count() - 1]
						 : strstr(l->low, "nccl") != NULL);
	if (k.parts)
		shadow_parts(sc);
	if (k.parts && (rc = match_messages(sc, l, &found)) != CD_OK)
		return rc;
	if (k.names && (rc = explain_match_names(&sc->r, l, &found)) != CD_OK)
		return rc;
	if ((rc = match_strings(sc, l, in_ctx, k.parts, &found, &by_string)) != CD_OK)
		return rc;
	if (by_string && k.numkeys)
		explain_note_old_number(&sc->r, l, by_string);
	else if (!found && k.numkeys && !k.nccl && (l->has_cuda || in_ctx) &&
		 explain_numbers_readable(l->region, l->low) &&
		 (rc = explain_match_numbers(&sc->r, l, !l->has_cuda)) != CD_OK)
		return rc;
	add_to_earlier(sc, l);
	return CD_OK;
}
