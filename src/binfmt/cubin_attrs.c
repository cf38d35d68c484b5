/* Kernel resources from a cubin's attribute records and per-kernel sections. Kernels are
 * keyed by their .text section: .nv.info.<k>, .nv.shared.<k> and .nv.constantN.<k> name it
 * in sh_info, the module-wide .nv.info names a kernel by its symbol. */
#include "binfmt/cubin_attrs.h"

#include <stdlib.h>
#include <string.h>

#include "binfmt/cubin.h"
#include "binfmt/elf.h"
#include "util/err.h"
#include "util/safetext.h"
#include "util/sort.h"
#include "util/str.h"

/* sm_90+ cubins start each .nv.shared.<kernel> with a window the toolchain reserves (its
 * size in the .nv.reservedSmem.cap symbol; 1 KiB where the symbol is absent, as sm_90
 * cubins of CUDA 13.0 have it); ptxas's "bytes smem" leaves it out. */
#define RESERVED_WINDOW_DEFAULT 1024

enum { EIFMT_NVAL = 1, EIFMT_BVAL = 2, EIFMT_HVAL = 3, EIFMT_SVAL = 4 };

struct rec {
	uint8_t fmt, attr;
	uint16_t hval;             /* BVAL/HVAL value */
	const unsigned char *p;    /* SVAL payload */
	size_t len;
};

/* The record at *pos of an attribute stream; advances *pos; *more is false at the end. */
static int next_rec(const unsigned char *b, size_t len, size_t *pos, struct rec *r, const char *sec, bool *more,
		    char *err)
{
	size_t i = *pos;

	*more = false;
	if (i >= len)
		return CD_OK;
	if (len - i < 4)
		return cd_fail(err, CD_EFORMAT, "%s: record at offset %zu is truncated", sec, i);
	r->fmt = b[i];
	r->attr = b[i + 1];
	r->hval = rd16(b + i + 2);
	r->p = NULL;
	r->len = 0;
	switch (r->fmt) {
	case EIFMT_NVAL:
	case EIFMT_HVAL: *pos = i + 4; break;
	case EIFMT_BVAL: r->hval = b[i + 2]; *pos = i + 4; break;
	case EIFMT_SVAL:
		if (!in_bounds(i + 4, r->hval, len))
			return cd_fail(err, CD_EFORMAT, "%s: record at offset %zu (%u bytes) runs past the section",
				       sec, i, r->hval);
		r->p = b + i + 4;
		r->len = r->hval;
		*pos = i + 4 + r->hval;
		break;
	default:
		return cd_fail(err, CD_EFORMAT, "%s: unknown record format %u at offset %zu", sec, r->fmt, i);
	}
	*more = true;
	return CD_OK;
}

/* Kernel i of out: its symbol and its .text section. The map is kept twice, by symbol (the
 * order kernels are collected in) and by section, so each record's look-up is a binary
 * search: a linear one per record made a cubin with many kernels and records quadratic. */
struct kmap {
	size_t sym;      /* symbol index */
	size_t text;     /* its .text section */
	size_t k;        /* index into out->k */
};

static int by_text_order(const void *a, const void *b)
{
	const struct kmap *x = a, *y = b;
	if (x->text != y->text)
		return x->text < y->text ? -1 : 1;
	return (x->k > y->k) - (x->k < y->k);
}

/* The first entry of m[0..n) whose key (its .text section, or its symbol) is not below key,
 * m sorted by that key: a binary search. */
static size_t lower_bound(const struct kmap *m, size_t n, size_t key, bool text)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((text ? m[mid].text : m[mid].sym) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first kernel (in symbol order) whose code is section text; tm sorted by by_text_order. */
static struct cubin_kernel_res *by_text(struct cubin_resources *out, const struct kmap *tm, size_t text)
{
	size_t i = lower_bound(tm, out->n, text, true);
	return i < out->n && tm[i].text == text ? &out->k[tm[i].k] : NULL;
}

/* m is in symbol order (ascending). */
static struct cubin_kernel_res *by_sym(struct cubin_resources *out, const struct kmap *m, size_t sym)
{
	size_t i = lower_bound(m, out->n, sym, false);
	return i < out->n && m[i].sym == sym ? &out->k[m[i].k] : NULL;
}

static void read_dims(const struct rec *r, unsigned d[3])
{
	for (size_t i = 0; i < 3; i++)
		d[i] = r->len >= 4 * (i + 1) ? rd32(r->p + 4 * i) : (i ? 1 : 0);
}

/* The module-wide .nv.info: {symbol, value} pairs for registers and stack sizes. */
static int read_module_info(const unsigned char *b, size_t len, struct cubin_resources *out, const struct kmap *m,
			    char *err)
{
	size_t pos = 0;
	struct rec r;
	bool more;
	int rc;

	while ((rc = next_rec(b, len, &pos, &r, ".nv.info", &more, err)) == CD_OK && more) {
		struct cubin_kernel_res *k;
		uint32_t v;

		if (r.fmt != EIFMT_SVAL || r.len < 8)
			continue;
		k = by_sym(out, m, rd32(r.p));
		v = rd32(r.p + 4);
		if (!k)
			continue; /* a device function, not an entry */
		switch (r.attr) {
		case EIATTR_REGCOUNT: k->registers = v; k->has_registers = true; break;
		case EIATTR_FRAME_SIZE: k->frame_bytes = v; break;
		case EIATTR_MIN_STACK_SIZE: k->min_stack_bytes = v; break;
		case EIATTR_CRS_STACK_SIZE: k->crs_stack_bytes = v; break;
		}
	}
	return rc;
}

static int read_kernel_info(const unsigned char *b, size_t len, struct cubin_kernel_res *k, const char *sec,
			    char *err)
{
	size_t pos = 0;
	struct rec r;
	bool more;
	int rc;

	while ((rc = next_rec(b, len, &pos, &r, sec, &more, err)) == CD_OK && more) {
		switch (r.attr) {
		case EIATTR_MAX_THREADS:
			if (r.fmt == EIFMT_SVAL)
				read_dims(&r, k->max_threads);
			break;
		case EIATTR_REQNTID:
			if (r.fmt == EIFMT_SVAL)
				read_dims(&r, k->reqntid);
			break;
		case EIATTR_MAXREG_COUNT:
			if (r.fmt == EIFMT_HVAL || r.fmt == EIFMT_BVAL)
				k->maxreg = r.hval == 0xff ? 0 : r.hval;
			break;
		case EIATTR_CRS_STACK_SIZE:
			if (r.fmt == EIFMT_SVAL && r.len >= 4)
				k->crs_stack_bytes = rd32(r.p + r.len - 4);
			break;
		}
	}
	return rc;
}

/* ".nv.constant3" -> 3 with *kernel false; ".nv.constant0.k" -> 0 with *kernel true; -1 otherwise. */
static int constant_bank(const char *name, bool *kernel)
{
	const char *p = name + strlen(".nv.constant");
	int bank = 0;

	if (strncmp(name, ".nv.constant", strlen(".nv.constant")) != 0 || *p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9' && bank < 1000)
		bank = bank * 10 + (*p++ - '0');
	if (*p && *p != '.')
		return -1;
	*kernel = *p == '.';
	return bank;
}

/* The kernels of the first symbol table, in its order. Their names together may take no more
 * than the cubin's size (and 64 KiB): crafted symbols can all name one long string. */
static int collect_kernels(const struct elf_file *e, struct cubin_resources *out, struct kmap **map, char *err)
{
	struct elf_section s;
	size_t budget = e->size + 65536;
	int rc;

	*map = NULL;
	for (size_t i = 1; i < e->shnum; i++) {
		if ((rc = elf_section_at(e, i, &s, err)) != CD_OK)
			return rc;
		if (s.type != ELF_SHT_SYMTAB)
			continue;
		size_t n = elf_symbol_count(e, &s), cap = 0;

		for (size_t k = 0; k < n; k++) {
			struct elf_symbol sym;

			if (elf_symbol_at(e, &s, k, &sym, NULL) != CD_OK || sym.type != ELF_STT_FUNC ||
			    !(sym.other & CUBIN_STO_ENTRY) || !sym.name[0])
				continue;
			if (out->n == cap) {
				size_t nc = cap ? cap * 2 : 8;
				struct cubin_kernel_res *nk = realloc(out->k, nc * sizeof(*nk));
				struct kmap *nm;

				if (!nk)
					return cd_fail(err, CD_ENOMEM, "out of memory");
				out->k = nk;
				nm = realloc(*map, nc * sizeof(*nm));
				if (!nm)
					return cd_fail(err, CD_ENOMEM, "out of memory");
				*map = nm;
				cap = nc;
			}
			size_t len = strnlen(sym.name, budget + 1);
			if (len > budget)
				return cd_fail(err, CD_EFORMAT, "kernel names take more bytes than the cubin (%zu) holds",
					       e->size);
			budget -= len;
			memset(&out->k[out->n], 0, sizeof(out->k[0]));
			/* printed and put in JSON: made safe text when it is not already */
			out->k[out->n].name = safe_text_is_clean(sym.name, len, 0) ? cd_strndup(sym.name, len)
										   : safe_text_dup(sym.name, len, (size_t)-1, 0);
			if (!out->k[out->n].name)
				return cd_fail(err, CD_ENOMEM, "out of memory");
			(*map)[out->n].sym = k;
			(*map)[out->n].text = sym.shndx;
			(*map)[out->n].k = out->n;
			out->n++;
		}
		return CD_OK;
	}
	return CD_OK;
}

/* The reserved shared window of this cubin: 0 unless it has .nv.shared.reserved.* */
static uint64_t reserved_window(const struct elf_file *e, bool has_reserved)
{
	struct elf_section s;

	if (!has_reserved)
		return 0;
	for (size_t i = 1; i < e->shnum; i++) {
		if (elf_section_at(e, i, &s, NULL) != CD_OK || s.type != ELF_SHT_SYMTAB)
			continue;
		size_t n = elf_symbol_count(e, &s);

		for (size_t k = 0; k < n; k++) {
			struct elf_symbol sym;

			if (elf_symbol_at(e, &s, k, &sym, NULL) == CD_OK && strcmp(sym.name, ".nv.reservedSmem.cap") == 0)
				return sym.value;
		}
		break;
	}
	return RESERVED_WINDOW_DEFAULT;
}

int cubin_resources_read(const unsigned char *data, size_t size, struct cubin_resources *out, char *err)
{
	struct cubin_info ci;
	struct elf_file e;
	struct elf_section s;
	struct kmap *map = NULL, *tmap = NULL;
	uint64_t *shared = NULL, window;
	bool has_reserved = false;
	int rc;

	memset(out, 0, sizeof(*out));
	TRY(cubin_read(data, size, &ci, err));
	out->sm = ci.sm;
	TRY(elf_open(&e, data, size, err));
	TRY(collect_kernels(&e, out, &map, err));
	shared = calloc(out->n ? out->n : 1, sizeof(*shared));
	tmap = malloc((out->n ? out->n : 1) * sizeof(*tmap));
	if (!shared || !tmap) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	if (out->n)
		memcpy(tmap, map, out->n * sizeof(*tmap));
	cd_qsort(tmap, out->n, sizeof(*tmap), by_text_order);
	for (size_t i = 1; i < e.shnum; i++) {
		struct cubin_kernel_res *k;
		const unsigned char *b;
		size_t len;
		bool kernel;
		int bank;

		TRY(elf_section_at(&e, i, &s, err));
		if (s.type != ELF_SHT_NOBITS && !in_bounds(s.offset, s.size, size)) {
			rc = cd_fail(err, CD_EFORMAT, "section %zu (%.64s) at 0x%llx runs past the file", i, s.name,
				     (unsigned long long)s.offset);
			goto out;
		}
		if (strcmp(s.name, ".nv.info") == 0) {
			b = elf_section_bytes(&e, &s, &len);
			if (b)
				TRY(read_module_info(b, len, out, map, err));
		} else if (strncmp(s.name, ".nv.info.", 9) == 0) {
			b = elf_section_bytes(&e, &s, &len);
			if (b && (k = by_text(out, tmap, s.info)) != NULL)
				TRY(read_kernel_info(b, len, k, s.name, err));
		} else if (strncmp(s.name, ".nv.shared.reserved.", 20) == 0) {
			has_reserved = true;
		} else if (strncmp(s.name, ".nv.shared.", 11) == 0) {
			if ((k = by_text(out, tmap, s.info)) != NULL)
				shared[k - out->k] += s.size;
		} else if ((bank = constant_bank(s.name, &kernel)) >= 0) {
			if (!kernel)
				out->module_const += s.size;
			else if ((k = by_text(out, tmap, s.info)) != NULL) {
				if (bank == 0)
					k->param_bytes += s.size;
				else
					k->kernel_const += s.size;
			}
		}
	}
	window = reserved_window(&e, has_reserved);
	for (size_t i = 0; i < out->n; i++) {
		uint64_t w = shared[i] >= window ? window : 0;

		out->k[i].reserved_shared = w;
		out->k[i].static_shared = shared[i] - w;
	}
	rc = CD_OK;
out:
	free(shared);
	free(map);
	free(tmap);
	if (rc != CD_OK)
		cubin_resources_free(out);
	return rc;
}

void cubin_resources_free(struct cubin_resources *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->k[i].name);
	free(r->k);
	memset(r, 0, sizeof(*r));
}

unsigned cubin_kernel_bound(const struct cubin_kernel_res *k)
{
	const unsigned *d = k->reqntid[0] ? k->reqntid : k->max_threads;
	uint64_t t = (uint64_t)d[0] * (d[1] ? d[1] : 1) * (d[2] ? d[2] : 1);

	if (!d[0])
		return 0;
	return t > 0xffffffffu ? 0xffffffffu : (unsigned)t;
}
