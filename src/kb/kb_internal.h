/* The parsed knowledge base, shared by the loader and the lookups in src/kb/. */
#ifndef CUDOCTOR_KB_INTERNAL_H
#define CUDOCTOR_KB_INTERNAL_H

#include "kb/kb.h"
#include "kb/tsv.h"

enum { KB_T_GPUS, KB_T_TOOLKITS, KB_T_DRIVERS, KB_T_PTX, KB_T_FAMILIES, KB_T_ARCHS,
       KB_T_ERRORS, KB_T_LIB_ERRORS, KB_T_WORDINGS, KB_T_MESSAGES, KB_T_FINDINGS,
       KB_T_XID_BUCKETS, KB_T_XID, KB_T_SOURCES, KB_T_COUNT }; /* buckets before the Xids that name them */

struct kb_db {
	bool tried;
	int status;
	char err[256];
	struct tsv_table tables[KB_T_COUNT];
	struct kb_gpu *gpus;
	size_t n_gpus;
	struct kb_toolkit *toolkits;
	size_t n_toolkits;
	struct kb_driver_branch *drivers;
	size_t n_drivers;
	struct kb_ptx_isa *ptx;
	size_t n_ptx;
	struct kb_family *families;
	size_t n_families;
	struct kb_arch_info *archs;
	size_t n_archs;
	struct kb_error *errors;     /* errors.tsv's rows, then lib_errors.tsv's */
	size_t n_errors;
	struct kb_wording *wordings;
	size_t n_wordings;
	struct kb_message *messages;
	size_t n_messages;
	struct kb_finding *findings;
	size_t n_findings;
	struct kb_xid_bucket *xid_buckets;
	size_t n_xid_buckets;
	struct kb_xid *xids;
	size_t n_xids;
	struct kb_source *sources;
	size_t n_sources;
};

/* The loaded base, or NULL when loading failed. */
const struct kb_db *kb_db(void);

#endif
