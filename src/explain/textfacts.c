/* The text's facts of its machine (facts/textfacts.h), one extractor per fact: each reads a
 * line the automaton flagged with one of its anchors, and the rest come from the matches
 * (the driver's CUDA of "found version 11040", the GPUs and archs the errors name) and from
 * the context's markers (Windows, WSL2, ROCm). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/scan.h"
#include "explain/textfacts.h"
#include "kb/kb.h"

static const char *const anchors[] = {
	"driver version", "cuda version", "cuda used to build pytorch", "+cu", "torch==", "torch version",
	"00000000:", "gpu 0: ", "gpu 1: ",
};

const char *const *explain_fact_anchors(size_t *n)
{
	*n = sizeof(anchors) / sizeof(anchors[0]);
	return anchors;
}

/* The version after low[at]: blanks, ':' or '=' skipped, then digits and dots ("535.104.05",
 * "12.4"); its length, 0 when none starts there. */
static size_t version_at(const struct line *l, size_t at, size_t *start)
{
	size_t i = at, n;

	while (i < l->len && (l->low[i] == ' ' || l->low[i] == ':' || l->low[i] == '=' || l->low[i] == '\t'))
		i++;
	*start = i;
	for (n = 0; i + n < l->len && (isdigit((unsigned char)l->low[i + n]) || l->low[i + n] == '.'); n++)
		;
	return n && isdigit((unsigned char)l->low[i]) ? n : 0;
}

/* "12.4" as CUDA's integer (12040), 0 when it is no CUDA version */
static int cuda_int(const char *s, size_t n)
{
	int major = 0, minor = 0;
	char buf[16];

	snprintf(buf, sizeof(buf), "%.*s", (int)(n < 15 ? n : 15), s);
	if (sscanf(buf, "%d.%d", &major, &minor) != 2 || major < 1 || major > 40 || minor < 0 || minor > 9)
		return 0;
	return major * 1000 + minor * 10;
}

/* the value after needle on the line, when the line has it: its start and length */
static size_t value_after(const struct line *l, const char *needle, size_t *start)
{
	const char *p = strstr(l->low, needle);

	return p ? version_at(l, (size_t)(p - l->low) + strlen(needle), start) : 0;
}

/* "Driver Version: 535.104.05" (nvidia-smi, collect_env's "Nvidia driver version"); beside it
 * on nvidia-smi's header, "CUDA Version: 12.4" is the driver's CUDA */
static void driver_version(struct text_facts *t, const struct line *l)
{
	size_t at, n = value_after(l, "driver version", &at);

	if (n && n < sizeof(t->driver_version) && atoi(l->low + at) >= 100 && !t->driver_version[0])
		snprintf(t->driver_version, sizeof(t->driver_version), "%.*s", (int)n, l->s + at);
	if (n && (n = value_after(l, "cuda version", &at)) && !t->driver_cuda)
		t->driver_cuda = cuda_int(l->low + at, n);
}

/* torch's build: "2.1.0+cu118" beside "torch", "torch==2.1.0", "PyTorch version: 2.1.0",
 * "CUDA used to build PyTorch: 11.8" */
static void torch_build(struct text_facts *t, const struct line *l)
{
	const char *p = strstr(l->low, "+cu");
	size_t at, n;

	if (!strstr(l->low, "torch"))
		return;
	if (p && isdigit((unsigned char)p[3]) && isdigit((unsigned char)p[4]) && isdigit((unsigned char)p[5]) &&
	    !t->torch_cuda) {
		int d = (p[3] - '0') * 100 + (p[4] - '0') * 10 + (p[5] - '0');
		const char *v = p;

		/* cu118: 11.8; cu128: 12.8; cu92: too old to matter */
		t->torch_cuda = (d / 10) * 1000 + (d % 10) * 10;
		while (v > l->low && (isdigit((unsigned char)v[-1]) || v[-1] == '.'))
			v--;
		if (v < p && !t->torch_version[0] && (size_t)(p - v) < sizeof(t->torch_version))
			snprintf(t->torch_version, sizeof(t->torch_version), "%.*s", (int)(p - v), v);
	}
	if (!t->torch_version[0] && ((n = value_after(l, "torch==", &at)) || (n = value_after(l, "torch version", &at))) &&
	    n < sizeof(t->torch_version))
		snprintf(t->torch_version, sizeof(t->torch_version), "%.*s", (int)n, l->low + at);
	if (!t->torch_cuda && (n = value_after(l, "cuda used to build pytorch", &at)))
		t->torch_cuda = cuda_int(l->low + at, n);
}

static void add_gpu(struct text_facts *t, const char *name);

/* A GPU name the kb knows, from s[0..n) with its blanks trimmed. */
static void gpu_name_at(struct text_facts *t, const char *s, size_t n)
{
	char name[96];

	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (!n || n >= sizeof(name))
		return;
	memcpy(name, s, n);
	name[n] = '\0';
	if (kb_gpu_by_name(name))
		add_gpu(t, name);
}

/* The GPUs a pasted listing names: nvidia-smi's table row ("|   0  NVIDIA GeForce RTX 3090
 * Off |   00000000:01:00.0 Off |"), `nvidia-smi -L` and collect_env ("GPU 0: NVIDIA ..."). */
static void gpu_names(struct text_facts *t, const struct line *l)
{
	const char *p = strstr(l->low, "gpu ");
	size_t i = 0, start, end;

	if (p && (p[4] == '0' || p[4] == '1') && p[5] == ':' && p[6] == ' ') {
		const char *u = strstr(p, " (uuid");

		start = (size_t)(p - l->low) + 7;
		end = u ? (size_t)(u - l->low) : l->len;
		gpu_name_at(t, l->s + start, end - start);
		return;
	}
	if (!strstr(l->low, "00000000:"))
		return;
	while (i < l->len && (l->s[i] == ' ' || l->s[i] == '|'))
		i++;
	if (i == l->len || !isdigit((unsigned char)l->s[i]))
		return;
	while (i < l->len && isdigit((unsigned char)l->s[i]))
		i++;
	start = i;
	/* the name ends where the Persistence-M column's two blanks start */
	for (end = start; end < l->len && l->s[end] != '|'; end++)
		if (end > start + 2 && l->s[end] == ' ' && l->s[end + 1] == ' ' && l->s[end - 1] != ' ')
			break;
	gpu_name_at(t, l->s + start, end - start);
}

void explain_text_facts_line(struct text_facts *t, const struct line *l)
{
	gpu_names(t, l);
	driver_version(t, l);
	torch_build(t, l);
}

static void add_gpu(struct text_facts *t, const char *name)
{
	for (size_t i = 0; i < t->n_gpus; i++)
		if (strcmp(t->gpus[i], name) == 0)
			return;
	if (t->n_gpus < TEXT_GPUS_MAX)
		snprintf(t->gpus[t->n_gpus++], sizeof(t->gpus[0]), "%s", name);
}

static void add_cc(struct text_facts *t, struct kb_arch a)
{
	for (size_t i = 0; i < t->n_ccs; i++)
		if (t->ccs[i].num == a.num)
			return;
	if (t->n_ccs < TEXT_GPUS_MAX)
		t->ccs[t->n_ccs++] = a;
}

void explain_text_facts_settle(struct text_facts *t, const struct explain_result *r, bool windows, bool linux_seen,
			       bool wsl, bool rocm)
{
	const struct text_platform *p = &r->platform;

	for (size_t i = 0; i < r->n; i++) {
		const struct explain_match *m = &r->m[i];

		if (m->driver_cuda > 0 && !t->driver_cuda)
			t->driver_cuda = m->driver_cuda;
		if (m->gpu_name[0])
			add_gpu(t, m->gpu_name);
		/* an arch nvcc was asked for is the build's, not a GPU's */
		if (m->has_arch && !(m->message && strcmp(m->message->extract, "nvcc_arch") == 0))
			add_cc(t, m->arch);
	}
	/* the platform reader's (text_platform.h) aspects, so that one reading decides them */
	wsl |= p->os == TP_WSL2 || p->os == TP_WSL1;
	t->os = windows && !wsl ? TEXT_OS_WINDOWS : linux_seen || wsl ? TEXT_OS_LINUX : TEXT_OS_UNKNOWN;
	t->wsl = wsl;
	t->container = p->container;
	t->jetson = p->jetson;
	t->rocm = rocm || p->vendor == TP_AMD;
}

void explain_match_facts(const struct explain_match *m, struct text_error *e)
{
	memset(e, 0, sizeof(*e));
	e->id = m->finding;
	e->message_key = m->message ? m->message->key : NULL;
	e->code = m->error ? m->error->code : -1;
	memcpy(e->library, m->library, sizeof(e->library));
	e->torch_dll = m->torch_dll;
	snprintf(e->built_with, sizeof(e->built_with), "%s", m->versions[1]);
	e->has_arch = m->has_arch;
	e->arch = m->arch;
	e->driver_cuda = m->driver_cuda;
	memcpy(e->path, m->path, sizeof(e->path));
	e->has_oom = m->has_oom;
	if (m->has_oom)
		e->oom = m->oom.n;
	if (m->has_tgi) {
		e->tgi_prefill = m->tgi.prefill_next;
		e->tgi_total = m->tgi.total_next;
	}
	e->has_vram_wait = m->has_vram_wait;
	e->vram_wait_s = m->vram_wait_s;
	e->windows = m->windows;
	e->pip = explain_pip_command(m->windows, m->embedded_python);
	e->python = explain_python_command(m->embedded_python);
}
