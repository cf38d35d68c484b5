/* Keeps the pages of a streamed member that arch reads: fatbin containers are found by their
 * magic as the bytes pass and followed header to header through fatbin.c's own walker
 * (run on the kept copy), so what dc_scan later walks or validates there is what it would
 * find in the whole member; images are skipped unless small. HIP offload bundles are kept
 * from their magic for their entry table (or a compressed bundle's first bytes) and where
 * they end, where the walk looks for the next. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include "binfmt/sparse.h"

#include <stdlib.h>
#include <string.h>

#include "binfmt/bytes.h"
#include "binfmt/devcode.h"
#include "binfmt/elf.h"
#include "binfmt/fatbin.h"
#include "binfmt/hipfb.h"
#include "binfmt/pe.h"
#include "util/err.h"

#define HEAD ((size_t)64 << 10)        /* ELF/PE headers, program headers, PE section table */
#define TAIL ((size_t)1 << 20)         /* ELF section names and table at a library's end */
#define TABLE_MAX ((size_t)16 << 20)   /* an ELF section table kept as it passes */
#define HEADER_MAX ((size_t)1 << 20)   /* of one fatbin entry's header (strings inside it) */
#define CUBIN_HEAD 4096                /* of an uncompressed cubin: its ELF header */
#define CUBIN_TAIL ((size_t)64 << 10)  /* and its section names and table */
#define MAX_CURSORS 65536
#define NEEDLE_FIRST 64                /* occurrences of a mark always kept */
#define NEEDLE_AFTER 48                /* bytes kept behind a mark (a release "13.0.88") */
#define SECTION_NAMES_AROUND 2048      /* kept around the name .nv_fatbin */
#define HIP_KEEP ((size_t)64 << 10)    /* from a bundle's magic: its entry table, or what a compressed
					  bundle's table inflates from (devcode_hip.c's first read) */

struct sparse_cursor {
	struct fatbin_container c; /* over map, once its header is there */
	size_t at;                 /* the container's header */
	bool open;
};

int sparse_init(struct sparse_keep *k, unsigned char *map, size_t size, const char *const *needles)
{
	memset(k, 0, sizeof(*k));
	k->map = map;
	k->size = size;
	size_t n = 0;
	for (; needles && n < SPARSE_NEEDLES - 1 && needles[n]; n++) {
		k->needle[n] = needles[n];
		k->needle_after[n] = NEEDLE_AFTER;
	}
	/* An ELF library's section names: its section table, at the end, says where they are,
	 * and they are often far from it (patchelf appends its dynamic tables after them). A
	 * library with device code names .nv_fatbin there, and few other places do (cubins have
	 * no such section). */
	k->needle[n] = ".nv_fatbin";
	k->needle_before[n] = k->needle_after[n] = SECTION_NAMES_AROUND;
	if (!(k->kept = calloc(size / SPARSE_PAGE / 64 + 1, sizeof(uint64_t))))
		return CD_ENOMEM;
	return CD_OK;
}

void sparse_free(struct sparse_keep *k)
{
	free(k->kept);
	free(k->want);
	free(k->cur);
	memset(k, 0, sizeof(*k));
}

bool sparse_page_kept(const struct sparse_keep *k, size_t page)
{
	return page <= k->size / SPARSE_PAGE && (k->kept[page / 64] >> (page % 64) & 1);
}

int sparse_want(struct sparse_keep *k, size_t off, size_t len)
{
	if (off >= k->size || len == 0)
		return CD_OK;
	if (len > k->size - off)
		len = k->size - off;
	size_t start = off / SPARSE_PAGE * SPARSE_PAGE, end = (off + len + SPARSE_PAGE - 1) / SPARSE_PAGE * SPARSE_PAGE;
	if (end > k->size)
		end = k->size;
	struct sparse_range *last = k->n_want ? &k->want[k->n_want - 1] : NULL;
	if (last && start >= last->start && start <= last->end) {
		if (end > last->end)
			last->end = end;
		return CD_OK;
	}
	if (k->n_want == k->cap_want) {
		size_t cap = k->cap_want ? k->cap_want * 2 : 64;
		struct sparse_range *w = realloc(k->want, cap * sizeof(*w));
		if (!w)
			return CD_ENOMEM;
		k->want = w;
		k->cap_want = cap;
	}
	k->want[k->n_want++] = (struct sparse_range){start, end};
	return CD_OK;
}

void sparse_pass(struct sparse_keep *k, bool first)
{
	k->first = first;
	k->pos = 0;
	k->n_cur = 0;
	k->carry_len = 0;
	k->last_container = 0;
	k->steps = k->size / 16 + 65536;
	for (size_t i = 0; i < SPARSE_NEEDLES; i++)
		k->needle_kept[i] = k->needle_last[i] = 0;
	if (first && k->size > TAIL)
		(void)sparse_want(k, k->size - TAIL, TAIL); /* a failure only costs a later pass */
	else if (first)
		(void)sparse_want(k, 0, k->size);
}

/* Page p, inside the chunk that holds [base, top) of the member. */
static void copy_page(struct sparse_keep *k, const unsigned char *chunk, size_t base, size_t top, size_t p)
{
	size_t start = p * SPARSE_PAGE, end = start + SPARSE_PAGE < k->size ? start + SPARSE_PAGE : k->size;
	if (start < base || sparse_page_kept(k, p))
		return;
	memcpy(k->map + start, chunk + (start - base), (end < top ? end : top) - start);
	if (end <= top) {
		k->kept[p / 64] |= (uint64_t)1 << (p % 64);
		k->n_kept++;
	}
}

/* The pages of [off, off + len): copied from the chunk where it holds them, wanted where they
 * are still to come (pages already passed are not there to copy: a later pass fetches them). */
static int take(struct sparse_keep *k, const unsigned char *chunk, size_t base, size_t top, size_t off, size_t len)
{
	if (off >= k->size || len == 0)
		return CD_OK;
	if (len > k->size - off)
		len = k->size - off;
	size_t last = (off + len - 1) / SPARSE_PAGE;
	for (size_t p = off / SPARSE_PAGE; p <= last; p++) {
		if (p * SPARSE_PAGE >= top)
			return sparse_want(k, p * SPARSE_PAGE, (last + 1 - p) * SPARSE_PAGE);
		copy_page(k, chunk, base, top, p);
	}
	return CD_OK;
}

static void copy_wanted(struct sparse_keep *k, const unsigned char *chunk, size_t base, size_t top)
{
	size_t n = 0;
	for (size_t i = 0; i < k->n_want; i++) {
		struct sparse_range w = k->want[i];
		size_t from = w.start > base ? w.start : base, to = w.end < top ? w.end : top;
		for (size_t p = from / SPARSE_PAGE; from < to && p * SPARSE_PAGE < to; p++)
			copy_page(k, chunk, base, top, p);
		if (w.end > top)
			k->want[n++] = w;
	}
	k->n_want = n;
}

/* Follows one container as far as the bytes have come; *done once it ended or failed. */
static int advance(struct sparse_keep *k, struct sparse_cursor *cu, const unsigned char *chunk, size_t base, size_t top,
		   bool *done)
{
	int rc;
	*done = false;
	for (;;) {
		if (!cu->open) {
			if (cu->at >= top)
				return CD_OK;
			if ((rc = take(k, chunk, base, top, cu->at, FATBIN_HEADER_SIZE)) || cu->at + FATBIN_HEADER_SIZE > top)
				return rc;
			if (fatbin_container_open(&cu->c, k->map, k->size, cu->at, NULL) != CD_OK)
				break;
			cu->open = true;
		}
		size_t x = cu->c.next;
		if (x == cu->c.end) {
			/* a fatbin section's walk reads on behind a container; one that ends off the
			 * 8-byte grid the magic search covers is followed here */
			if ((rc = take(k, chunk, base, top, x, FATBIN_HEADER_SIZE)))
				return rc;
			if (x % 8 == 0 || x + FATBIN_HEADER_SIZE > top || !fatbin_is_container_at(k->map, k->size, x))
				break;
			cu->at = x;
			cu->open = false;
			continue;
		}
		if (x >= top)
			return CD_OK;
		if ((rc = take(k, chunk, base, top, x, FATBIN_ENTRY_MIN_HEADER)) || x + FATBIN_ENTRY_MIN_HEADER > top)
			return rc;
		size_t hs = rd32(k->map + x + 4) < HEADER_MAX ? rd32(k->map + x + 4) : HEADER_MAX;
		if ((rc = take(k, chunk, base, top, x, hs)) || x + hs > top)
			return rc;
		struct fatbin_entry e;
		if (k->steps == 0 || fatbin_next_entry(&cu->c, &e, NULL) != 1)
			break;
		k->steps--;
		size_t po = (size_t)(e.payload - k->map);
		/* images that may be stubs are decompressed when judged: kept whole */
		if (fatbin_entry_image_size(&e) <= DC_STUB_MAX_BYTES && e.payload_len <= DC_STUB_STORED_MAX)
			rc = take(k, chunk, base, top, po, e.payload_len);
		else if (e.kind == FATBIN_KIND_ELF && fatbin_entry_compression(&e) == FATBIN_RAW &&
			 !(rc = take(k, chunk, base, top, po, CUBIN_HEAD)))
			rc = e.payload_len > CUBIN_TAIL ? take(k, chunk, base, top, po + e.payload_len - CUBIN_TAIL, CUBIN_TAIL)
							: take(k, chunk, base, top, po, e.payload_len);
		if (rc)
			return rc;
	}
	*done = true;
	return CD_OK;
}

static int add_cursor(struct sparse_keep *k, size_t at)
{
	if (k->n_cur >= MAX_CURSORS)
		return CD_OK;
	if (k->n_cur == k->cap_cur) {
		size_t cap = k->cap_cur ? k->cap_cur * 2 : 64;
		struct sparse_cursor *c = realloc(k->cur, cap * sizeof(*c));
		if (!c)
			return CD_ENOMEM;
		k->cur = c;
		k->cap_cur = cap;
	}
	memset(&k->cur[k->n_cur], 0, sizeof(k->cur[0]));
	k->cur[k->n_cur++].at = at;
	return CD_OK;
}

/* The mark at [p, p + nlen) (p may lie in the carried end of the previous chunk), after the
 * container magic at magic - 1 (0: none yet). */
static int keep_mark(struct sparse_keep *k, const unsigned char *chunk, size_t base, size_t top, size_t n, size_t p,
		     size_t magic)
{
	size_t len = strlen(k->needle[n]) + k->needle_after[n];
	if (k->needle_kept[n] >= NEEDLE_FIRST && magic <= k->needle_last[n])
		return CD_OK;
	k->needle_kept[n]++;
	k->needle_last[n] = p + 1;
	if (k->needle_before[n]) { /* what came before it is there only if in this chunk */
		size_t from = p > k->needle_before[n] ? p - k->needle_before[n] : 0;
		int rc = from < base ? CD_OK : take(k, chunk, base, top, from, p - from);
		if (rc == CD_OK && from < base && p > base)
			rc = take(k, chunk, base, top, base, p - base);
		if (rc)
			return rc;
	}
	if (p < base) { /* those bytes have passed: copied as they are, the page not counted kept */
		memcpy(k->map + p, k->carry + k->carry_len - (base - p), base - p);
		len -= base - p;
		p = base;
	}
	return take(k, chunk, base, top, p, len);
}

/* The last container magic before p (+1; 0 none): of this chunk's cursors from *c on (in
 * file order), else the one before the chunk. */
static size_t magic_before(const struct sparse_keep *k, size_t *c, size_t p)
{
	while (*c < k->n_cur && k->cur[*c].at < p)
		++*c;
	return *c > k->chunk_cur ? k->cur[*c - 1].at + 1 : k->last_container;
}

/* The marks in the chunk and those spanning its start, in file order. */
static int find_marks(struct sparse_keep *k, const unsigned char *chunk, size_t base, size_t top, size_t n)
{
	const char *needle = k->needle[n];
	size_t nlen = strlen(needle), len = top - base, c = k->chunk_cur;
	unsigned char seam[2 * sizeof(k->carry)];
	int rc;
	if (k->carry_len && nlen <= sizeof(k->carry)) {
		size_t more = len < nlen - 1 ? len : nlen - 1;
		memcpy(seam, k->carry, k->carry_len);
		memcpy(seam + k->carry_len, chunk, more);
		for (const unsigned char *p = seam; (p = memmem(p, (size_t)(seam + k->carry_len + more - p), needle, nlen));
		     p++) {
			size_t at = base - k->carry_len + (size_t)(p - seam);
			if ((size_t)(p - seam) < k->carry_len &&
			    (rc = keep_mark(k, chunk, base, top, n, at, k->last_container)))
				return rc;
		}
	}
	for (const unsigned char *p = chunk; (p = memmem(p, (size_t)(chunk + len - p), needle, nlen)); p++) {
		size_t at = base + (size_t)(p - chunk);
		if ((rc = keep_mark(k, chunk, base, top, n, at, magic_before(k, &c, at))))
			return rc;
	}
	return CD_OK;
}

/* Container magics in the chunk, at the 8-byte aligned offsets fatbin_scan looks at, each
 * followed by a cursor; marks after them. */
static int find_containers(struct sparse_keep *k, const unsigned char *chunk, size_t base, size_t top)
{
	static const unsigned char magic[4] = {0x50, 0xED, 0x55, 0xBA};
	size_t len = top - base;
	int rc;
	for (const unsigned char *p = chunk; (p = memmem(p, (size_t)(chunk + len - p), magic, 4)); p++) {
		size_t off = base + (size_t)(p - chunk), i = (size_t)(p - chunk);
		if (off % 8)
			continue;
		/* a header cut by the chunk's end is tried once the rest arrives */
		if (i + FATBIN_HEADER_SIZE <= len && !fatbin_is_container_at(chunk, len, i))
			continue;
		if ((rc = add_cursor(k, off)))
			return rc;
	}
	return CD_OK;
}

/* Offload bundles in the chunk: each kept from its magic, and the page where it ends (where
 * the walk steps over the padding to the next). */
static int find_bundles(struct sparse_keep *k, const unsigned char *chunk, size_t base, size_t top)
{
	static const char *const magics[] = {HIPFB_MAGIC, HIPFB_CCOB_MAGIC};
	size_t len = top - base;
	int rc;
	for (size_t m = 0; m < 2; m++) {
		size_t mlen = strlen(magics[m]);
		for (const unsigned char *p = chunk; (p = memmem(p, (size_t)(chunk + len - p), magics[m], mlen)); p++) {
			size_t off = base + (size_t)(p - chunk), avail = (size_t)(chunk + len - p);
			uint64_t end = 0;
			k->seen_magic = true;
			if ((rc = take(k, chunk, base, top, off, HIP_KEEP)))
				return rc;
			if (m == 0) {
				struct hipfb_bundle b;
				struct hipfb_entry e;
				if (hipfb_open(&b, p, avail, NULL) == CD_OK) {
					while (k->steps && hipfb_next(&b, &e, NULL) == 1)
						k->steps--;
					end = b.read == b.count ? b.extent : 0;
				}
			} else {
				struct hipfb_ccob h;
				if (hipfb_ccob_header(p, avail, &h, NULL) == CD_OK)
					end = h.total_size;
			}
			if (end > HIP_KEEP && end < k->size - off && (rc = take(k, chunk, base, top, off + (size_t)end, SPARSE_PAGE)))
				return rc;
		}
	}
	return CD_OK;
}

/* An ELF file's section table and dynamic section (its NEEDED entries), whose places the
 * headers at its start give. */
static int keep_elf_tables(struct sparse_keep *k, const unsigned char *chunk, size_t base, size_t top)
{
	struct elf_file e;
	uint64_t off, len;
	int rc = CD_OK;
	if (!elf_has_magic(k->map, k->size) || elf_open(&e, k->map, k->size, NULL) != CD_OK)
		return CD_OK;
	if (e.shnum && e.shnum * e.shentsize <= TABLE_MAX)
		rc = take(k, chunk, base, top, e.shoff, e.shnum * e.shentsize);
	if (rc == CD_OK && elf_dynamic_segment(&e, &off, &len) && len <= TABLE_MAX)
		rc = take(k, chunk, base, top, (size_t)off, (size_t)len);
	return rc;
}

/* A PE image's import tables, whose places its headers give, with what follows them (where
 * linkers put the DLL names). */
#define IMPORTS_AROUND ((size_t)64 << 10)
static int keep_pe_imports(struct sparse_keep *k, const unsigned char *chunk, size_t base, size_t top)
{
	struct pe_file pe;
	size_t off;
	int rc = CD_OK;
	if (!pe_has_magic(k->map, k->size) || pe_open(&pe, k->map, k->size, NULL) != CD_OK)
		return CD_OK;
	if (pe.import_rva && pe_rva_to_offset(&pe, pe.import_rva, 1, &off))
		rc = take(k, chunk, base, top, off, IMPORTS_AROUND);
	if (rc == CD_OK && pe.delay_rva && pe_rva_to_offset(&pe, pe.delay_rva, 1, &off))
		rc = take(k, chunk, base, top, off, IMPORTS_AROUND);
	return rc;
}

int sparse_feed(struct sparse_keep *k, const unsigned char *chunk, size_t len)
{
	size_t base = k->pos, top;
	int rc = CD_OK;
	if (base >= k->size)
		return CD_OK;
	if (len > k->size - base)
		len = k->size - base;
	top = base + len;
	copy_wanted(k, chunk, base, top);
	if (k->first && base == 0 &&
	    ((rc = take(k, chunk, base, top, 0, HEAD)) || (rc = keep_elf_tables(k, chunk, base, top)) ||
	     (rc = keep_pe_imports(k, chunk, base, top))))
		return rc;
	if (k->first) {
		/* a mark is kept when a container magic came between it and the last one kept */
		k->chunk_cur = k->n_cur;
		if ((rc = find_containers(k, chunk, base, top)) || (rc = find_bundles(k, chunk, base, top)))
			return rc;
		for (size_t n = 0; n < SPARSE_NEEDLES && k->needle[n]; n++)
			if ((rc = find_marks(k, chunk, base, top, n)))
				return rc;
		k->seen_magic |= k->n_cur > k->chunk_cur;
		if (k->n_cur > k->chunk_cur)
			k->last_container = k->cur[k->n_cur - 1].at + 1;
		size_t keep = 0;
		for (size_t c = 0; c < k->n_cur; c++) {
			bool done;
			if ((rc = advance(k, &k->cur[c], chunk, base, top, &done)))
				return rc;
			if (!done)
				k->cur[keep++] = k->cur[c];
		}
		k->n_cur = keep;
		k->carry_len = len < sizeof(k->carry) ? len : sizeof(k->carry);
		memcpy(k->carry, chunk + len - k->carry_len, k->carry_len);
	}
	k->pos = top;
	return CD_OK;
}
