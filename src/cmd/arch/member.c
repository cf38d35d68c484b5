/* A library or program inside a zip archive, judged from a stream of its bytes: kept sparsely
 * (binfmt/sparse.c) in an anonymous mapping of its size whose untouched pages read as zeros and
 * cost no memory, and the pages the readers turn out to touch beyond those fetched by another
 * pass, so memory follows the member's headers rather than its size. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "binfmt/elf.h"
#include "binfmt/elf_needed.h"
#include "binfmt/pe.h"
#include "binfmt/sparse.h"
#include "cmd/arch/arch.h"
#include "os/map.h"
#include "rules/driver_need.h"
#include "util/err.h"

#define CHUNK ((size_t)4 << 20) /* the stream's buffer */
#define MAX_PASSES 3

static int one_pass(const struct zip_archive *z, const struct zip_member *m, struct sparse_keep *k, bool first,
		    unsigned char *buf, const struct arch_member_release *rel, char *err)
{
	struct zip_stream s;
	size_t got = 0;
	int rc;

	sparse_pass(k, first);
	if ((rc = zip_stream_open(&s, z, m, ZIP_MEMBER_MAX, err)))
		return rc;
	do {
		if ((rc = zip_stream_read(&s, buf, CHUNK, &got, err)))
			break;
		if (got && (rc = sparse_feed(k, buf, got))) {
			rc = cd_fail(err, rc, "out of memory");
			break;
		}
		if (rel && rel->fn)
			rel->fn(zip_stream_upto(&s), rel->ctx);
		/* a later pass ends at its last wanted page: the first checked size and CRC-32 */
		if (!first && k->n_want == 0)
			break;
	} while (got && !s.ended);
	zip_stream_close(&s);
	return rc;
}

/* What judging the member reads besides the containers and marks the first pass kept: its
 * headers, section names and tables, the runtime it links, the ELF headers of uncompressed
 * cubins (--cuobjdump). Run on the sparse copy, it faults in the pages it reads. */
static void read_as_judged(const unsigned char *d, size_t n, unsigned opts)
{
	struct dc_inventory inv;
	char err[CD_ERRMSG];
	const char *names[64];

	dc_init(&inv);
	(void)dc_scan(&inv, d, n, opts & DC_READ_ELF, err);
	dc_free(&inv);
	if (pe_has_magic(d, n)) {
		struct pe_file pe;
		if (pe_open(&pe, d, n, err) == CD_OK)
			(void)pe_imports(&pe, names, 64);
	} else {
		struct elf_file e;
		if (elf_open(&e, d, n, err) == CD_OK)
			(void)elf_needed(&e, names, 64);
	}
}

/* Pages read_as_judged faulted in that the passes did not keep: wanted by the next pass.
 * *missing counts them. */
static int want_touched(struct sparse_keep *k, size_t *missing, char *err)
{
	size_t page = os_page_size(), n = (k->size + page - 1) / page;
	unsigned char *vec = malloc(n ? n : 1);
	int rc = CD_OK, e;

	*missing = 0;
	if (!vec)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if ((e = os_pages_resident(k->map, k->size, vec)) != 0) {
		/* the caller reads the member whole */
		rc = e == -ENOSYS ? CD_EUNSUPPORTED
				  : cd_fail(err, CD_EIO, "cannot tell which pages of the member were read");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (!(vec[i] & 1))
			continue;
		for (size_t p = i * page / SPARSE_PAGE; p * SPARSE_PAGE < (i + 1) * page && p * SPARSE_PAGE < k->size; p++)
			if (!sparse_page_kept(k, p)) {
				++*missing;
				if ((rc = sparse_want(k, p * SPARSE_PAGE, SPARSE_PAGE)))
					goto out;
			}
	}
out:
	free(vec);
	return rc;
}

int arch_member_stream(const struct zip_archive *z, const struct zip_member *m, unsigned opts,
		       const struct arch_member_release *rel, struct arch_member *out, char *err)
{
	static const char *const marks[] = {RUNTIME_RELEASE_MARK, RUNTIME_STATIC_MARK, NULL};
	struct sparse_keep k;
	unsigned char *buf = NULL;
	size_t missing = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&k, 0, sizeof(k));
	if (m->size == 0 || m->size > ZIP_MEMBER_MAX)
		return CD_EUNSUPPORTED; /* nothing to keep, or refused as zip_member_read refuses it */
	out->size = (size_t)m->size;
	void *map;
	if (os_zero_map(out->size, &map) != 0)
		return cd_fail(err, CD_ENOMEM, "out of address space for a member of %zu bytes", out->size);
	out->map = map;
	if (!(buf = malloc(CHUNK)) || sparse_init(&k, out->map, out->size, marks) != CD_OK) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	for (unsigned pass = 0; pass < MAX_PASSES; pass++) {
		if ((rc = one_pass(z, m, &k, pass == 0, buf, rel, err)))
			goto out;
		out->passes++;
		/* no container magic anywhere: no reader finds device code, whatever else it reads */
		if (!k.seen_magic)
			goto out;
		read_as_judged(out->map, out->size, opts);
		if ((rc = want_touched(&k, &missing, err)) || missing == 0)
			goto out;
	}
	rc = CD_EUNSUPPORTED; /* still reading more than was kept: the caller reads it whole */
out:
	out->kept = k.n_kept * (size_t)SPARSE_PAGE;
	sparse_free(&k);
	free(buf);
	if (rc)
		arch_member_free(out);
	return rc;
}

void arch_member_free(struct arch_member *am)
{
	os_zero_unmap(am->map, am->size);
	memset(am, 0, sizeof(*am));
}
