/* Lookups over the loaded kb tables: toolkits, driver branches, PTX ISA,
 * families, archs and the error catalogue. */
#include <string.h>

#include "kb/kb_internal.h"
#include "util/err.h"

/* ---- generic accessors ---- */

#define ACCESSORS(kind, type, arr, cnt)                                   \
	size_t kb_##kind##_count(void)                                    \
	{                                                                 \
		const struct kb_db *d = kb_db();                          \
		return d ? d->cnt : 0;                                    \
	}                                                                 \
	const type *kb_##kind##_at(size_t i)                              \
	{                                                                 \
		const struct kb_db *d = kb_db();                          \
		return d && i < d->cnt ? &d->arr[i] : NULL;               \
	}

ACCESSORS(gpu, struct kb_gpu, gpus, n_gpus)
ACCESSORS(toolkit, struct kb_toolkit, toolkits, n_toolkits)
ACCESSORS(driver, struct kb_driver_branch, drivers, n_drivers)
ACCESSORS(ptx_isa, struct kb_ptx_isa, ptx, n_ptx)
ACCESSORS(family, struct kb_family, families, n_families)
ACCESSORS(arch, struct kb_arch_info, archs, n_archs)
ACCESSORS(error, struct kb_error, errors, n_errors)
ACCESSORS(wording, struct kb_wording, wordings, n_wordings)
ACCESSORS(message, struct kb_message, messages, n_messages)
ACCESSORS(finding, struct kb_finding, findings, n_findings)
ACCESSORS(xid, struct kb_xid, xids, n_xids)
ACCESSORS(xid_bucket, struct kb_xid_bucket, xid_buckets, n_xid_buckets)
ACCESSORS(source, struct kb_source, sources, n_sources)

/* ---- toolkits ---- */

const struct kb_toolkit *kb_toolkit_find(const struct version *v)
{
	for (size_t i = 0; i < kb_toolkit_count(); i++) {
		const struct kb_toolkit *t = kb_toolkit_at(i);

		if (t->release.major == v->major && t->release.minor == v->minor)
			return t;
	}
	return NULL;
}

const struct kb_toolkit *kb_toolkit_newest_known(void)
{
	for (size_t i = kb_toolkit_count(); i-- > 0;)
		if (kb_toolkit_at(i)->archs_known)
			return kb_toolkit_at(i);
	return NULL;
}

const struct kb_toolkit *kb_toolkit_first_zstd(void)
{
	for (size_t i = 0; i < kb_toolkit_count(); i++) {
		const struct kb_toolkit *t = kb_toolkit_at(i);

		if (t->zstd != KB_ZSTD_NO && t->has_min_driver)
			return t;
	}
	return NULL;
}

bool kb_toolkit_accepts(const struct kb_toolkit *t, struct kb_arch a)
{
	if (!t || !t->archs_known)
		return false;
	for (size_t i = 0; i < t->n_archs; i++)
		if (kb_arch_eq(t->archs[i], a))
			return true;
	return false;
}

int kb_arch_toolkit_range(struct kb_arch a, const struct kb_toolkit **first,
			  const struct kb_toolkit **last)
{
	const struct kb_toolkit *newest = kb_toolkit_newest_known();

	*first = *last = NULL;
	for (size_t i = 0; i < kb_toolkit_count(); i++) {
		const struct kb_toolkit *t = kb_toolkit_at(i);

		if (!kb_toolkit_accepts(t, a))
			continue;
		if (!*first)
			*first = t;
		*last = t;
	}
	if (!*first)
		return CD_ENOTFOUND;
	if (*last == newest)
		*last = NULL;
	return CD_OK;
}

/* ---- driver branches ---- */

int kb_driver_branch_of(const struct version *driver, const struct kb_driver_branch **out,
			bool *exact)
{
	const struct kb_driver_branch *best = NULL;

	*out = NULL;
	if (exact)
		*exact = false;
	for (size_t i = 0; i < kb_driver_count(); i++) {
		const struct kb_driver_branch *b = kb_driver_at(i);

		if (b->branch <= driver->major)
			best = b;
	}
	if (!best)
		return CD_ENOTFOUND;
	*out = best;
	/* Windows numbers run a few past the branch (R570 -> 572.61, R580 -> 581.x); a gap of
	 * five or more means the driver's own branch is not in the table. */
	if (exact)
		*exact = driver->major - best->branch < 5;
	return CD_OK;
}

const struct kb_driver_branch *kb_driver_branch_for_cuda(const struct version *cuda)
{
	for (size_t i = 0; i < kb_driver_count(); i++) {
		const struct kb_driver_branch *b = kb_driver_at(i);

		if (b->cuda.major > cuda->major ||
		    (b->cuda.major == cuda->major && b->cuda.minor >= cuda->minor))
			return b;
	}
	return NULL;
}

/* ---- PTX ISA ---- */

const struct kb_ptx_isa *kb_ptx_isa_find(int major, int minor)
{
	for (size_t i = 0; i < kb_ptx_isa_count(); i++) {
		const struct kb_ptx_isa *p = kb_ptx_isa_at(i);

		if (p->major == major && p->minor == minor)
			return p;
	}
	return NULL;
}

const struct kb_ptx_isa *kb_ptx_isa_max_for_cuda(const struct version *cuda)
{
	const struct kb_ptx_isa *best = NULL;

	for (size_t i = 0; i < kb_ptx_isa_count(); i++) {
		const struct kb_ptx_isa *p = kb_ptx_isa_at(i);

		if (p->cuda.major < cuda->major ||
		    (p->cuda.major == cuda->major && p->cuda.minor <= cuda->minor))
			best = p;
	}
	return best;
}

/* ---- families ---- */

const struct kb_family *kb_family_find(int arch)
{
	for (size_t i = 0; i < kb_family_count(); i++)
		if (kb_family_at(i)->arch == arch)
			return kb_family_at(i);
	return NULL;
}

bool kb_family_contains(int family_arch, int device_arch)
{
	const struct kb_family *f = kb_family_find(family_arch);

	if (!f)
		return false;
	for (size_t i = 0; i < f->n_members; i++)
		if (f->members[i] == device_arch)
			return true;
	return false;
}

/* ---- archs ---- */

const struct kb_arch_info *kb_arch_find(struct kb_arch a)
{
	for (size_t i = 0; i < kb_arch_count(); i++)
		if (kb_arch_eq(kb_arch_at(i)->arch, a))
			return kb_arch_at(i);
	return NULL;
}

/* ---- errors ---- */

const struct kb_error *kb_error_by_name(const char *name)
{
	for (size_t i = 0; name && i < kb_error_count(); i++)
		if (strcmp(kb_error_at(i)->name, name) == 0)
			return kb_error_at(i);
	return NULL;
}

const struct kb_error *kb_error_by_code(enum kb_api api, int code)
{
	for (size_t i = 0; i < kb_error_count(); i++) {
		const struct kb_error *e = kb_error_at(i);

		if (e->api == api && e->code == code)
			return e;
	}
	return NULL;
}

static const char *const api_names[KB_API_COUNT] = {
	"runtime", "driver", "cublas", "cudnn", "cufft", "curand", "cusolver", "cusparse", "nvrtc", "nvjitlink", "nccl",
};

const char *kb_api_name(enum kb_api api)
{
	return (unsigned)api < KB_API_COUNT ? api_names[api] : "?";
}

int kb_api_parse(const char *s, enum kb_api *out)
{
	for (int i = 0; i < KB_API_COUNT; i++)
		if (strcmp(s, api_names[i]) == 0) {
			*out = (enum kb_api)i;
			return CD_OK;
		}
	return CD_ENOTFOUND;
}

const struct kb_finding *kb_finding_find(const char *finding)
{
	for (size_t i = 0; finding && i < kb_finding_count(); i++)
		if (strcmp(kb_finding_at(i)->finding, finding) == 0)
			return kb_finding_at(i);
	return NULL;
}

const struct kb_xid *kb_xid_find(int xid)
{
	for (size_t i = 0; i < kb_xid_count(); i++)
		if (kb_xid_at(i)->xid == xid)
			return kb_xid_at(i);
	return NULL;
}

const struct kb_xid_bucket *kb_xid_bucket_find(const char *bucket)
{
	for (size_t i = 0; bucket && i < kb_xid_bucket_count(); i++)
		if (strcmp(kb_xid_bucket_at(i)->bucket, bucket) == 0)
			return kb_xid_bucket_at(i);
	return NULL;
}

const struct kb_source *kb_source_find(const char *key)
{
	for (size_t i = 0; key && i < kb_source_count(); i++)
		if (strcmp(kb_source_at(i)->key, key) == 0)
			return kb_source_at(i);
	return NULL;
}
