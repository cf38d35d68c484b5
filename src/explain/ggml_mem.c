/* Reading llama.cpp's memory lines (ggml_mem.h). Each reader looks for its words on the line and
 * reads the number after them; a line that does not have them is left alone. */
#include "explain/ggml_mem.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MIB (1024.0 * 1024.0)

static const char *const anchors[] = {
	"buffer size =",  /* llm_load_tensors: CUDA0 buffer size = 3946.35 MiB; ... KV buffer size = */
	"mib free",       /* using device CUDA0 (NAME) - 7546 MiB free; CUDA0: NAME (7805 MiB, 7546 MiB free) */
	", vram: ",       /* Device 0: NAME, compute capability 6.1, VMM: yes, VRAM: 11172 MiB */
	": n_ctx ",       /* llama_context: n_ctx         = 8192 */
	"--ctx-size ",    /* Ollama's runner command line */
	"memory.available=", /* Ollama's plan: msg="offload to cuda" ... */
};

size_t ggml_mem_anchor_count(void)
{
	return sizeof(anchors) / sizeof(anchors[0]);
}

const char *ggml_mem_anchor(size_t i)
{
	return i < ggml_mem_anchor_count() ? anchors[i] : NULL;
}

void ggml_mem_init(struct ggml_mem *g)
{
	memset(g, 0, sizeof(*g));
}

/* offset of needle in s (ASCII case ignored), or -1 */
static long find(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; n && i + n <= len; i++)
		if (strncasecmp(s + i, needle, n) == 0)
			return (long)i;
	return -1;
}

/* a decimal number at s[*at] (spaces before it skipped); advances *at. false when none. */
static bool number_at(const char *s, size_t len, size_t *at, double *v)
{
	char buf[32];
	size_t k = 0, i = *at;

	while (i < len && s[i] == ' ')
		i++;
	while (i < len && k + 1 < sizeof(buf) && (isdigit((unsigned char)s[i]) || s[i] == '.'))
		buf[k++] = s[i++];
	buf[k] = '\0';
	if (!k || !isdigit((unsigned char)buf[0]))
		return false;
	*v = strtod(buf, NULL);
	*at = i;
	return true;
}

/* "N MiB" at s[at] (spaces skipped): N; -1 when the unit is not MiB */
static double mib_at(const char *s, size_t len, size_t at)
{
	double v;

	if (!number_at(s, len, &at, &v))
		return -1;
	while (at < len && s[at] == ' ')
		at++;
	return at + 3 <= len && strncasecmp(s + at, "MiB", 3) == 0 ? v : -1;
}

/* the device index of "CUDA<d>" at or after from, before until; -1 when none ("CUDA_Host" is not one) */
static int cuda_device(const char *s, size_t from, size_t until)
{
	for (size_t i = from; i + 5 <= until; i++) {
		if (strncasecmp(s + i, "CUDA", 4) == 0 && isdigit((unsigned char)s[i + 4]) &&
		    (i == 0 || !isalnum((unsigned char)s[i - 1]))) {
			int d = 0;

			/* the line is not NUL-terminated: the digits are read up to until */
			for (size_t k = i + 4; k < until && isdigit((unsigned char)s[k]) && d < GGML_MEM_DEVICES; k++)
				d = d * 10 + (s[k] - '0');
			return d < GGML_MEM_DEVICES ? d : -1;
		}
	}
	return -1;
}

static void read_buffer(struct ggml_mem *g, const char *s, size_t len, long at)
{
	int d = cuda_device(s, 0, (size_t)at);
	double v = mib_at(s, len, (size_t)at + strlen("buffer size ="));

	/* "CUDA_Host" and "CPU" buffers are the host's */
	if (d >= 0 && v >= 0)
		g->buffers[d] += v;
}

static void read_free(struct ggml_mem *g, const char *s, size_t len, long at)
{
	long dash = find(s, len, "using device CUDA");
	size_t k = (size_t)at;
	int d;

	/* the number is the one before " MiB free" */
	while (k > 0 && s[k - 1] == ' ')
		k--;
	while (k > 0 && (isdigit((unsigned char)s[k - 1]) || s[k - 1] == '.'))
		k--;
	if (dash >= 0) {
		/* a new load on this device: the buffers counted so far were an earlier one's */
		if ((d = cuda_device(s, (size_t)dash, (size_t)at)) >= 0 && mib_at(s, len, k) >= 0) {
			g->free_load[d] = mib_at(s, len, k);
			g->buffers[d] = 0;
		}
		return;
	}
	/* "CUDA0: NAME (7805 MiB, 7546 MiB free)": the total is the first number in the parentheses */
	if ((d = cuda_device(s, 0, (size_t)at)) >= 0) {
		long open = find(s, (size_t)at, " (");
		size_t p;

		while (open >= 0 && find(s + open + 2, (size_t)at - (size_t)open - 2, " (") >= 0)
			open += 2 + find(s + open + 2, (size_t)at - (size_t)open - 2, " (");
		if (open >= 0 && (p = (size_t)open + 2) < len && mib_at(s, len, p) > 0)
			g->vram[d] = mib_at(s, len, p);
		if (mib_at(s, len, k) >= 0)
			g->free_load[d] = mib_at(s, len, k);
	}
}

static void read_vram(struct ggml_mem *g, const char *s, size_t len, long at)
{
	long dev = find(s, (size_t)at, "Device ");
	double v = mib_at(s, len, (size_t)at + strlen(", vram: "));
	size_t p;
	double d;

	if (dev < 0 || v <= 0)
		return;
	p = (size_t)dev + strlen("Device ");
	if (number_at(s, len, &p, &d) && d < GGML_MEM_DEVICES && p < len && s[p] == ':')
		g->vram[(int)d] = v;
}

static void read_ctx(struct ggml_mem *g, const char *s, size_t len, long at, size_t skip)
{
	size_t p = (size_t)at + skip;
	double v;

	while (p < len && (s[p] == ' ' || s[p] == '='))
		p++;
	if (number_at(s, len, &p, &v) && v > 0 && v < 1e9)
		g->n_ctx = (long)v;
}

/* "KEY=N" (an integer) after at; -1 when absent */
static int int_after(const char *s, size_t len, const char *key)
{
	long at = find(s, len, key);
	size_t p;
	double v;

	if (at < 0)
		return -1;
	p = (size_t)at + strlen(key);
	return number_at(s, len, &p, &v) && v < 1e6 ? (int)v : -1;
}

/* "N GiB" or "N MiB" at p (a quote or bracket before it skipped), in GiB; -1 when not a size */
static double gib_at(const char *s, size_t len, size_t *p)
{
	double v;

	while (*p < len && (s[*p] == '"' || s[*p] == '[' || s[*p] == ' '))
		(*p)++;
	if (!number_at(s, len, p, &v))
		return -1;
	while (*p < len && s[*p] == ' ')
		(*p)++;
	if (*p + 3 > len)
		return -1;
	if (strncasecmp(s + *p, "GiB", 3) == 0) {
		*p += 3;
		return v;
	}
	if (strncasecmp(s + *p, "MiB", 3) == 0) {
		*p += 3;
		return v / 1024;
	}
	return -1;
}

static void read_plan(struct ggml_mem *g, const char *s, size_t len, long at)
{
	size_t p = (size_t)at + strlen("memory.available=");
	long full = find(s, len, "memory.required.full=");
	int k;

	for (int d = 0; d < GGML_MEM_DEVICES; d++) {
		double v = gib_at(s, len, &p);

		if (v < 0)
			break;
		g->avail_gib[d] = v;
	}
	if (full >= 0) {
		p = (size_t)full + strlen("memory.required.full=");
		g->required_full_gib = gib_at(s, len, &p);
	}
	if ((k = int_after(s, len, "layers.model=")) >= 0)
		g->layers_model = k;
	if ((k = int_after(s, len, "layers.offload=")) >= 0)
		g->layers_offload = k;
}

bool ggml_mem_plan(const struct ggml_mem *g, char *out, size_t n)
{
	if (g->avail_gib[0] <= 0 || g->required_full_gib <= 0)
		return false;
	snprintf(out, n, "Ollama planned %d of %d layers on the GPU: it estimated %.1f GiB for all of them, %.1f GiB "
		 "available on the first GPU%s", g->layers_offload, g->layers_model, g->required_full_gib, g->avail_gib[0],
		 g->layers_offload >= g->layers_model && g->layers_model > 0
		 ? ": by its estimate the model fit, so the memory ran short beyond it (the context's "
		   "compute buffers, or memory taken since)"
		 : "");
	return true;
}

void ggml_mem_line(struct ggml_mem *g, const char *s, size_t len)
{
	long at;

	if ((at = find(s, len, "memory.available=")) >= 0)
		read_plan(g, s, len, at);
	else if ((at = find(s, len, "buffer size =")) >= 0)
		read_buffer(g, s, len, at);
	else if ((at = find(s, len, "MiB free")) >= 0)
		read_free(g, s, len, at);
	else if ((at = find(s, len, ", VRAM: ")) >= 0)
		read_vram(g, s, len, at);
	else if ((at = find(s, len, ": n_ctx ")) >= 0)
		read_ctx(g, s, len, at, strlen(": n_ctx "));
	else if ((at = find(s, len, "--ctx-size ")) >= 0)
		read_ctx(g, s, len, at, strlen("--ctx-size "));
}

bool ggml_mem_oom(const struct ggml_mem *g, const char *s, size_t len, struct oom_message *out)
{
	long at = find(s, len, "allocating ");
	size_t p;
	double req, dev;
	int d;

	memset(out, 0, sizeof(*out));
	out->gpu = -1;
	if (at < 0 || (req = mib_at(s, len, (size_t)at + strlen("allocating "))) < 0)
		return false;
	out->n.form = OOM_FORM_GGML;
	out->n.requested = req * MIB;
	out->n.have = OOM_HAVE_REQUESTED;
	if ((at = find(s, len, "on device ")) < 0)
		return true;
	p = (size_t)at + strlen("on device ");
	if (!number_at(s, len, &p, &dev) || dev >= GGML_MEM_DEVICES)
		return true;
	d = (int)dev;
	out->gpu = d;
	if (g->vram[d] > 0) {
		out->n.total = g->vram[d] * MIB;
		out->n.have |= OOM_HAVE_TOTAL;
	}
	/* what this run put on the device before: the model, the KV cache, earlier compute buffers */
	if (g->buffers[d] > 0) {
		out->n.this_process = g->buffers[d] * MIB;
		out->n.have |= OOM_HAVE_THIS_PROCESS;
	}
	if (g->free_load[d] > 0) {
		double f = g->free_load[d] - g->buffers[d];

		out->n.free_bytes = (f > 0 ? f : 0) * MIB;
		out->n.have |= OOM_HAVE_FREE;
	}
	return true;
}
