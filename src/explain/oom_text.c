/* Reading PyTorch's CUDA OOM message, TensorFlow's/XLA's allocator summary and XLA's buffer
 * assignment into numbers. The message is untrusted pasted text:
 * every read is bounded by the window. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "explain/oom_text.h"
#include "util/err.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MIB (1024.0 * 1024.0)
/* the whole message is well under this; a log may put it on one long line */
#define WINDOW 6144

/* Bounded substring search; returns the offset of needle in s[0..len) or -1. */
static long find(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	if (n == 0 || n > len)
		return -1;
	for (size_t i = 0; i + n <= len; i++)
		if (s[i] == needle[0] && memcmp(s + i, needle, n) == 0)
			return (long)i;
	return -1;
}

int oom_parse_size(const char *s, size_t len, double *bytes, size_t *used)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = { { "bytes", 1 }, { "KiB", 1024.0 }, { "MiB", MIB }, { "GiB", GIB },
		      { "TiB", GIB * 1024.0 }, { "B", 1 } };
	size_t i = 0, digits = 0;
	double v = 0, frac = 0.1;

	while (i < len && isdigit((unsigned char)s[i]) && digits < 15) {
		v = v * 10 + (s[i++] - '0');
		digits++;
	}
	if (!digits)
		return CD_EFORMAT;
	if (i < len && s[i] == '.') {
		i++;
		while (i < len && isdigit((unsigned char)s[i]) && frac > 1e-9) {
			v += (s[i++] - '0') * frac;
			frac /= 10;
		}
		while (i < len && isdigit((unsigned char)s[i]))
			i++;
	}
	if (i < len && s[i] == ' ')
		i++;
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		size_t n = strlen(units[u].unit);

		if (i + n <= len && memcmp(s + i, units[u].unit, n) == 0) {
			/* no GPU has an exbibyte: such a number is a garbled text, and it would not
			 * fit the byte counts the evidence prints */
			if (v * units[u].scale >= 1152921504606846976.0)
				return CD_EFORMAT;
			*bytes = v * units[u].scale;
			*used = i + n;
			return CD_OK;
		}
	}
	return CD_EFORMAT;
}

/* The size right after `before` (searching from s), e.g. before = "Tried to allocate ". */
static bool size_after(const char *s, size_t len, const char *before, double *out, size_t *end)
{
	long at = find(s, len, before);
	size_t used, start;

	if (at < 0)
		return false;
	start = (size_t)at + strlen(before);
	if (oom_parse_size(s + start, len - start, out, &used) != CD_OK)
		return false;
	if (end)
		*end = start + used;
	return true;
}

static int read_int(const char *s, size_t len, size_t *i)
{
	int v = 0, digits = 0;

	while (*i < len && isdigit((unsigned char)s[*i]) && digits < 9) {
		v = v * 10 + (s[(*i)++] - '0');
		digits++;
	}
	return digits ? v : -1;
}

/* "Process 1234 has 23.63 GiB memory in use." — every one, summed; largest kept. */
static void read_processes(const char *s, size_t len, struct oom_message *m, double *sum,
			   double *sizes, int max)
{
	size_t i = 0;

	*sum = 0;
	while (i < len) {
		long at = find(s + i, len - i, "Process ");
		size_t p, used;
		double v;

		if (at < 0)
			break;
		p = i + (size_t)at + 8;
		i = p;
		if (read_int(s, len, &p) < 0 || p + 5 > len || memcmp(s + p, " has ", 5) != 0)
			continue;
		p += 5;
		if (oom_parse_size(s + p, len - p, &v, &used) != CD_OK)
			continue;
		if (len - p - used < 14 || memcmp(s + p + used, " memory in use", 14) != 0)
			continue;
		if (m->n_processes < max)
			sizes[m->n_processes] = v;
		m->n_processes++;
		*sum += v;
		i = p + used;
	}
}

/* Of the listed processes, the one whose size is PyTorch's own reservation plus a context is
 * this one (a container's PID namespace prints it as "Process N"); every other one, and all
 * of them when the message also says what "this process" has, is held by others. */
static void others_from_list(struct oom_message *m, const double *sizes, int n, double sum)
{
	double own = -1, want, slack;

	if (m->n.have & OOM_HAVE_THIS_PROCESS) {
		m->n.others = sum;
		m->n.have |= OOM_HAVE_OTHERS;
		return;
	}
	if (!(m->n.have & OOM_HAVE_ALLOCATED)) {
		m->n.others = sum;
		m->n.have |= OOM_HAVE_OTHERS;
		return;
	}
	want = m->n.allocated + ((m->n.have & OOM_HAVE_RESERVED_UNALLOC) ? m->n.reserved_unalloc : 0);
	slack = want / 10 > 1.5 * GIB ? want / 10 : 1.5 * GIB; /* the CUDA context and libraries */
	for (int i = 0; i < n; i++)
		if (sizes[i] >= want * 0.95 && sizes[i] <= want + slack && (own < 0 || sizes[i] < own))
			own = sizes[i];
	m->n.others = own < 0 ? sum : sum - own;
	m->n.have |= OOM_HAVE_OTHERS;
}

/* "Label : 20.00 MiB", the colon possibly on the next line, as cudaMallocAsync's message
 * prints them */
static bool labelled_size(const char *s, size_t len, const char *label, double *out)
{
	long at = find(s, len, label);
	size_t p, used;

	if (at < 0)
		return false;
	p = (size_t)at + strlen(label);
	while (p < len && (s[p] == ' ' || s[p] == '\t' || s[p] == '\r' || s[p] == '\n'))
		p++;
	if (p >= len || s[p] != ':')
		return false;
	p++;
	while (p < len && (s[p] == ' ' || s[p] == '\t'))
		p++;
	return oom_parse_size(s + p, len - p, out, &used) == CD_OK;
}

/* "Allocation on device 0 would exceed allowed memory. (out of memory)\n Currently allocated :
 * 15.16 GiB\n Requested : 512.00 KiB\n Device limit : 15.99 GiB\n Free (according to CUDA): 0 bytes":
 * the cudaMallocAsync backend, which keeps no cache of its own (U = 0) */
static void parse_async(const char *s, size_t len, struct oom_message *m)
{
	size_t p = 0;
	double v;

	if (len > 20 && memcmp(s, "Allocation on device ", 21) == 0) {
		p = 21;
		m->gpu = read_int(s, len, &p);
	}
	if (labelled_size(s, len, "Currently allocated", &v)) {
		m->n.allocated = v;
		m->n.reserved_unalloc = 0;
		m->n.have |= OOM_HAVE_ALLOCATED | OOM_HAVE_RESERVED_UNALLOC;
	}
	if (labelled_size(s, len, "Requested", &v)) {
		m->n.requested = v;
		m->n.have |= OOM_HAVE_REQUESTED;
	}
	if (labelled_size(s, len, "Device limit", &v)) {
		m->n.total = v;
		m->n.have |= OOM_HAVE_TOTAL;
	}
	if (labelled_size(s, len, "Free (according to CUDA)", &v)) {
		m->n.free_bytes = v;
		m->n.have |= OOM_HAVE_FREE;
	}
}

static void parse_current(const char *s, size_t len, struct oom_message *m)
{
	size_t end = 0;
	long at;
	double v, sum;
	double sizes[32];

	at = find(s, len, " has a total capac"); /* "capacity", and 2.1's "capacty" */
	if (at >= 0) {
		size_t p = (size_t)at, used;
		long of;

		/* "GPU 0 has a total capacity of X of which Y is free" */
		if (p >= 2 && isdigit((unsigned char)s[p - 1])) {
			size_t q = p;

			while (q > 0 && isdigit((unsigned char)s[q - 1]))
				q--;
			if (q >= 4 && memcmp(s + q - 4, "GPU ", 4) == 0) {
				size_t r = q;

				m->gpu = read_int(s, len, &r);
			}
		}
		of = find(s + p, len - p, " of ");
		if (of >= 0 && of < 40) {
			p += (size_t)of + 4;
			if (oom_parse_size(s + p, len - p, &v, &used) == CD_OK) {
				m->n.total = v;
				m->n.have |= OOM_HAVE_TOTAL;
				p += used;
				if (len - p > 10 && memcmp(s + p, " of which ", 10) == 0 &&
				    oom_parse_size(s + p + 10, len - p - 10, &v, &used) == CD_OK) {
					m->n.free_bytes = v;
					m->n.have |= OOM_HAVE_FREE;
				}
			}
		}
	}
	if (size_after(s, len, "this process has ", &v, NULL)) {
		m->n.this_process = v;
		m->n.have |= OOM_HAVE_THIS_PROCESS;
	}
	if (size_after(s, len, "Of the allocated memory ", &v, &end)) {
		m->n.allocated = v;
		m->n.have |= OOM_HAVE_ALLOCATED;
		/* "and X is reserved by PyTorch but unallocated" (private-pool text may sit between) */
		at = find(s + end, len - end, " is reserved by PyTorch but unallocated");
		if (at >= 0 && at < 300) {
			size_t stop = end + (size_t)at, and_at = 0, used;
			bool found = false;

			for (size_t q = end; q + 4 <= stop; q++)
				if (memcmp(s + q, "and ", 4) == 0) {
					and_at = q + 4;
					found = true;
				}
			if (found && oom_parse_size(s + and_at, stop - and_at, &v, &used) == CD_OK) {
				m->n.reserved_unalloc = v;
				m->n.have |= OOM_HAVE_RESERVED_UNALLOC;
			}
		}
	}
	read_processes(s, len, m, &sum, sizes, 32);
	if (m->n_processes > 0)
		others_from_list(m, sizes, m->n_processes < 32 ? m->n_processes : 32, sum);
}

/* "(GPU 0; 7.79 GiB total capacity; 6.50 GiB already allocated; 5.31 MiB free;
 *   6.54 GiB reserved in total by PyTorch)" — or "... cached)" before 1.5 */
static void parse_legacy(const char *s, size_t len, struct oom_message *m)
{
	long at = find(s, len, "(GPU ");
	size_t p, used;
	double v, reserved = -1;

	if (at < 0 || at > 200)
		return;
	m->legacy = true;
	p = (size_t)at + 5;
	m->gpu = read_int(s, len, &p);
	while (p < len && s[p] != ')') {
		while (p < len && (s[p] == ';' || s[p] == ' '))
			p++;
		if (oom_parse_size(s + p, len - p, &v, &used) != CD_OK) {
			while (p < len && s[p] != ';' && s[p] != ')')
				p++;
			continue;
		}
		p += used;
		if (len - p >= 15 && memcmp(s + p, " total capacity", 15) == 0) {
			m->n.total = v;
			m->n.have |= OOM_HAVE_TOTAL;
		} else if (len - p >= 18 && memcmp(s + p, " already allocated", 18) == 0) {
			m->n.allocated = v;
			m->n.have |= OOM_HAVE_ALLOCATED;
		} else if (len - p >= 5 && memcmp(s + p, " free", 5) == 0) {
			m->n.free_bytes = v;
			m->n.have |= OOM_HAVE_FREE;
		} else if (len - p >= 9 && (memcmp(s + p, " reserved", 9) == 0 ||
					    memcmp(s + p, " cached", 7) == 0)) {
			reserved = v;
		}
		while (p < len && s[p] != ';' && s[p] != ')')
			p++;
	}
	if (reserved >= 0 && (m->n.have & OOM_HAVE_ALLOCATED) && reserved >= m->n.allocated) {
		m->n.reserved_unalloc = reserved - m->n.allocated;
		m->n.have |= OOM_HAVE_RESERVED_UNALLOC;
	}
}

/* "Label:   7903297947" (bytes), as the BFC allocator's Stats print them */
static bool labelled_bytes(const char *s, size_t len, const char *label, double *out)
{
	long at = find(s, len, label);
	size_t p;
	int digits = 0;
	double v = 0;

	if (at < 0)
		return false;
	p = (size_t)at + strlen(label);
	while (p < len && (s[p] == ' ' || s[p] == '\t'))
		p++;
	while (p < len && isdigit((unsigned char)s[p]) && digits < 19) {
		v = v * 10 + (s[p++] - '0');
		digits++;
	}
	if (!digits || (p < len && isdigit((unsigned char)s[p])))
		return false;
	*out = v;
	return true;
}

/* TensorFlow's/XLA's BFC allocator: "Allocator (GPU_0_bfc) ran out of memory trying to allocate
 * 1.00GiB", and its summary "Sum Total of in-use chunks: 7.34GiB ... Stats: Limit: N InUse: N
 * ... LargestFreeBlock: N". The pool is the limit; what is not in use is free in it. */
static void parse_bfc(const char *s, size_t len, struct oom_message *m)
{
	double v, limit = -1, inuse = -1;

	m->n.form = OOM_FORM_BFC;
	if (size_after(s, len, "ran out of memory trying to allocate ", &v, NULL)) {
		m->n.requested = v;
		m->n.have |= OOM_HAVE_REQUESTED;
	}
	if (labelled_bytes(s, len, "Limit:", &v) || labelled_bytes(s, len, "memory_limit_:", &v))
		limit = v;
	if (labelled_bytes(s, len, "InUse:", &v) || size_after(s, len, "Sum Total of in-use chunks: ", &v, NULL))
		inuse = v;
	if (limit > 0) {
		m->n.total = limit;
		m->n.have |= OOM_HAVE_TOTAL;
	}
	if (inuse >= 0) {
		m->n.allocated = inuse;
		m->n.reserved_unalloc = 0;
		m->n.have |= OOM_HAVE_ALLOCATED | OOM_HAVE_RESERVED_UNALLOC;
	}
	if (limit > 0 && inuse >= 0 && inuse <= limit) {
		m->n.free_bytes = limit - inuse;
		m->n.have |= OOM_HAVE_FREE;
	}
	if (labelled_bytes(s, len, "LargestFreeBlock:", &v)) {
		m->n.largest_free = v;
		m->n.have |= OOM_HAVE_LARGEST_FREE;
	}
}

/* XLA: "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes." (PJRT:
 * "Out of memory allocating 20029400304 bytes.") and its
 * BufferAssignment stats ("total allocation:   12.00MiB"): what the compiled program needs */
static void parse_xla(const char *s, size_t len, struct oom_message *m)
{
	double v;
	long at;

	m->n.form = OOM_FORM_XLA;
	if (size_after(s, len, "Out of memory while trying to allocate ", &v, NULL) ||
	    size_after(s, len, "Out of memory allocating ", &v, NULL)) {
		m->n.requested = v;
		m->n.have |= OOM_HAVE_REQUESTED;
	}
	at = find(s, len, "total allocation:");
	if (at >= 0) {
		size_t p = (size_t)at + 17, used;

		while (p < len && s[p] == ' ')
			p++;
		if (oom_parse_size(s + p, len - p, &v, &used) == CD_OK) {
			m->n.program = v;
			m->n.have |= OOM_HAVE_PROGRAM;
		}
	}
}

/* A plain count of bytes at s[*i] ("22635544576"); *i moves past it. */
static bool bytes_at(const char *s, size_t len, size_t *i, double *out)
{
	double v = 0;
	size_t digits = 0;

	while (*i < len && isdigit((unsigned char)s[*i]) && digits < 18) {
		v = v * 10 + (s[(*i)++] - '0');
		digits++;
	}
	*out = v;
	return digits > 0;
}

/* XLA's and TensorFlow's cudaMallocAsync allocator: "cuMemAllocAsync failed to allocate
 * 1225195446464 bytes: ... CUDA_ERROR_OUT_OF_MEMORY" and "Reported by CUDA: Free memory/Total
 * memory: 22635544576/85095874560": the GPU's own numbers, as PyTorch's message gives them */
static void parse_cumem_async(const char *s, size_t len, struct oom_message *m)
{
	const char *key = "Free memory/Total memory: ";
	double v, free_b, total;
	size_t p;
	long at;

	m->n.form = OOM_FORM_TORCH;
	if (size_after(s, len, "failed to allocate ", &v, NULL)) {
		m->n.requested = v;
		m->n.have |= OOM_HAVE_REQUESTED;
	}
	if ((at = find(s, len, key)) < 0)
		return;
	p = (size_t)at + strlen(key);
	if (!bytes_at(s, len, &p, &free_b) || p >= len || s[p++] != '/' || !bytes_at(s, len, &p, &total) ||
	    total <= 0 || free_b > total)
		return;
	m->n.free_bytes = free_b;
	m->n.total = total;
	m->n.have |= OOM_HAVE_FREE | OOM_HAVE_TOTAL;
}

/* The first of TensorFlow's/XLA's forms in text, or -1: the allocator's failure, its summary,
 * XLA's buffer assignment */
static long pool_form_at(const char *text, size_t len, bool *xla)
{
	long bfc = find(text, len, "ran out of memory trying to allocate ");
	long sum = find(text, len, "Sum Total of in-use chunks");
	long x = find(text, len, "Out of memory while trying to allocate ");

	if (x < 0) /* PJRT's wording of the same failure */
		x = find(text, len, "Out of memory allocating ");

	if (bfc < 0 || (sum >= 0 && sum < bfc))
		bfc = sum;
	*xla = x >= 0 && (bfc < 0 || x < bfc);
	return *xla ? x : bfc;
}

int oom_parse(const char *text, size_t len, struct oom_message *out)
{
	const char *key = "CUDA out of memory";
	const char *s;
	size_t wlen, used;
	long at, stop, async;
	double v;

	memset(out, 0, sizeof(*out));
	out->gpu = -1;
	if (!text)
		return CD_ENOTFOUND;
	at = find(text, len, key);
	async = find(text, len, "Allocation on device ");
	if (async >= 0 && (at < 0 || async < at) &&
	    find(text + async, len - (size_t)async < 200 ? len - (size_t)async : 200, " would exceed allowed memory") >= 0) {
		s = text + async;
		wlen = len - (size_t)async < WINDOW ? len - (size_t)async : WINDOW;
		out->offset = (size_t)async;
		out->length = wlen;
		parse_async(s, wlen, out);
		return CD_OK;
	}
	if (at < 0 && (async = find(text, len, "cuMemAllocAsync failed to allocate ")) >= 0) {
		wlen = len - (size_t)async < WINDOW ? len - (size_t)async : WINDOW;
		out->offset = (size_t)async;
		out->length = wlen;
		parse_cumem_async(text + async, wlen, out);
		return CD_OK;
	}
	if (at < 0) {
		bool xla;
		long pool = pool_form_at(text, len, &xla);

		if (pool < 0)
			return CD_ENOTFOUND;
		wlen = len - (size_t)pool < WINDOW ? len - (size_t)pool : WINDOW;
		out->offset = (size_t)pool;
		out->length = wlen;
		if (xla)
			parse_xla(text + pool, wlen, out);
		else
			parse_bfc(text + pool, wlen, out);
		return CD_OK;
	}
	out->offset = (size_t)at;
	s = text + at;
	wlen = len - (size_t)at < WINDOW ? len - (size_t)at : WINDOW;
	/* the message ends at the next blank line or the next OOM */
	stop = find(s + 1, wlen - 1, key);
	if (stop >= 0)
		wlen = (size_t)stop + 1;
	stop = find(s, wlen, "\n\n");
	if (stop >= 0)
		wlen = (size_t)stop;
	out->length = wlen;
	if (size_after(s, wlen, "Tried to allocate ", &v, &used)) {
		out->n.requested = v;
		out->n.have |= OOM_HAVE_REQUESTED;
	}
	if (find(s, wlen, " total capacity;") >= 0)
		parse_legacy(s, wlen, out);
	else
		parse_current(s, wlen, out);
	out->suggests_expandable = find(s, wlen, "expandable_segments") >= 0;
	return CD_OK;
}

void oom_merge(struct oom_message *into, const struct oom_message *from)
{
	static const struct {
		unsigned bit;
		size_t off;
	} fields[] = {
		{ OOM_HAVE_REQUESTED, offsetof(struct oom_numbers, requested) },
		{ OOM_HAVE_TOTAL, offsetof(struct oom_numbers, total) },
		{ OOM_HAVE_FREE, offsetof(struct oom_numbers, free_bytes) },
		{ OOM_HAVE_ALLOCATED, offsetof(struct oom_numbers, allocated) },
		{ OOM_HAVE_RESERVED_UNALLOC, offsetof(struct oom_numbers, reserved_unalloc) },
		{ OOM_HAVE_THIS_PROCESS, offsetof(struct oom_numbers, this_process) },
		{ OOM_HAVE_OTHERS, offsetof(struct oom_numbers, others) },
		{ OOM_HAVE_LARGEST_FREE, offsetof(struct oom_numbers, largest_free) },
		{ OOM_HAVE_PROGRAM, offsetof(struct oom_numbers, program) },
	};

	if (into->n.form != from->n.form)
		return;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if ((from->n.have & fields[i].bit) && !(into->n.have & fields[i].bit)) {
			memcpy((char *)&into->n + fields[i].off, (const char *)&from->n + fields[i].off, sizeof(double));
			into->n.have |= fields[i].bit;
		}
}
