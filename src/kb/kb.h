/* The knowledge base: the kb tables (GPUs, toolkits, driver branches, PTX ISA,
 * arch families, archs, CUDA errors) embedded at build time, parsed once on first use.
 * Every accessor loads lazily; if loading fails they return 0 / NULL and kb_load()
 * says why. Pointers stay valid for the life of the process. Nothing here prints. */
#ifndef CUDOCTOR_KB_H
#define CUDOCTOR_KB_H

#include <stdbool.h>
#include <stddef.h>

#include "kb/arch_name.h"
#include "kb/embedded.h"
#include "util/version.h"

/* Parses every table. CD_OK, or CD_EFORMAT / CD_ENOMEM with "file:line: why" in err.
 * Repeated calls return the first result. */
int kb_load(char *err);
/* Same, from given blobs (tests feed malformed tables). Replaces what was loaded. */
int kb_load_blobs(const struct kb_blob *blobs, size_t n, char *err);

/* ---- GPUs (gpus.tsv) ---- */
#define KB_MAX_ALIASES 8
#define KB_MAX_MEMORY 4
struct kb_gpu {
	const char *name;            /* as nvidia-smi / cuDeviceGetName print it */
	const char *aliases[KB_MAX_ALIASES];
	size_t n_aliases;
	int cc_major, cc_minor;
	int arch;                    /* 10*major + minor */
	const char *architecture;    /* "Hopper" */
	int year;                    /* 0 when unknown */
	const char *memory;          /* as the table writes it: "141GB HBM3e" */
	double memory_gb[KB_MAX_MEMORY]; /* nominal sizes of the variants; none when unknown */
	size_t n_memory_gb;
	const char *segment, *driver_support, *notes, *source;
	bool uncertain;
};
size_t kb_gpu_count(void);
const struct kb_gpu *kb_gpu_at(size_t i);
/* Exact name as the driver reports it (ASCII case and repeated blanks ignored). NULL if none. */
const struct kb_gpu *kb_gpu_by_name(const char *driver_name);
/* All rows matching a product name, alias or part of one, best match tier only
 * (exact name > exact alias > name without vendor words > its last words > contiguous
 * words > words in order > words in order, the last one the start of a word). Words are runs of letters or
 * of digits, case ignored: "rtx4090" is "RTX 4090". Fills out (up to max) and returns how
 * many matched in total. */
size_t kb_gpu_search(const char *query, const struct kb_gpu **out, size_t max);
/* The rows nearest a name that matched none (within two edits of a name or alias, one for
 * short names): "RTX 4909" -> RTX 4090. Fills out (up to max), returns how many in total. */
size_t kb_gpu_suggest(const char *query, const struct kb_gpu **out, size_t max);
/* The usage error for a name no GPU matches, the one text of --gpu and `kb gpu`: the near
 * misses ("did you mean"), else where to look. Returns CD_EUSAGE with err filled. */
int kb_gpu_no_match(const char *query, char *err);

/* What --gpu SPEC names: sm_89, 8.9, 89, sm_90a, sm_100f, or a product name or
 * unambiguous part of one ("RTX 4060 Ti", H200). */
struct gpu_spec {
	struct kb_arch arch;         /* what to build for / judge against */
	int cc_major, cc_minor;
	const struct kb_gpu *gpu;    /* the named product, or NULL for a CC/arch spec */
	char label[96];              /* "sm_89" or "NVIDIA GeForce RTX 4060 Ti (sm_89)" */
};
/* CD_OK; CD_EUSAGE (err lists the candidates, says "did you mean", or says the CC is
 * unknown). */
int kb_parse_gpu_spec(const char *spec, struct gpu_spec *out, char *err);
/* kb_parse_gpu_spec into specs[*n], then ++*n: one --gpu of a command that takes several
 * (gencode, plan). CD_OK; CD_EUSAGE for a spec the tables do not know or more than max. */
int kb_gpu_spec_add(const char *spec, struct gpu_spec *specs, size_t max, size_t *n, char *err);

/* ---- toolkits (toolkits.tsv) ---- */
enum kb_zstd { KB_ZSTD_NO, KB_ZSTD_OPTIONAL, KB_ZSTD_DEFAULT };
struct kb_toolkit {
	struct version release;      /* 12.8 */
	const char *release_text, *ga_date;
	struct version min_driver;   /* Linux, at GA (Table 3); valid when has_min_driver */
	bool has_min_driver;
	struct version min_driver_update; /* Linux, last update release */
	bool has_min_driver_update;
	const char *min_driver_text, *min_driver_update_text; /* as written: "580.65.06", "?" */
	const char *min_windows_driver;   /* text; "?" when unknown */
	struct kb_arch *archs;       /* targets nvcc accepts; valid when archs_known */
	size_t n_archs;
	bool archs_known;
	struct kb_arch *deprecated;  /* accepted with a deprecation warning */
	size_t n_deprecated;
	struct kb_arch *removed;     /* removed by this release */
	size_t n_removed;
	int ptx_major, ptx_minor;    /* PTX ISA it emits */
	struct kb_arch default_arch; /* what nvcc builds without -arch */
	enum kb_zstd zstd;           /* default fatbin compression uses zstd? */
	struct version minor_compat_floor; /* oldest driver that runs this family's apps */
	bool has_minor_compat;
	const char *minor_compat_floor_text;
	bool uncertain;
	const char *notes, *source;
};
size_t kb_toolkit_count(void);
const struct kb_toolkit *kb_toolkit_at(size_t i);   /* ordered oldest first */
/* By major.minor ("12.8.1" finds 12.8). NULL when not in the table. */
const struct kb_toolkit *kb_toolkit_find(const struct version *v);
const struct kb_toolkit *kb_toolkit_newest_known(void); /* newest with a known arch list */
/* The first toolkit that can write zstd-compressed fatbins (12.4): its minimum driver is
 * the oldest that loads them. NULL when the table names none. */
const struct kb_toolkit *kb_toolkit_first_zstd(void);
bool kb_toolkit_accepts(const struct kb_toolkit *t, struct kb_arch a);
/* Oldest and newest toolkits that accept a; *last is NULL when the newest toolkit
 * with a known arch list still accepts it. CD_ENOTFOUND when none does. */
int kb_arch_toolkit_range(struct kb_arch a, const struct kb_toolkit **first,
			  const struct kb_toolkit **last);

/* ---- driver branches (drivers.tsv) ---- */
struct kb_driver_branch {
	int branch;                  /* 580 */
	struct version first_version;/* first release seen: 580.65.06 */
	const char *first_version_text;
	struct version cuda;         /* what nvidia-smi prints as "CUDA Version" */
	const char *versions_seen, *can_run, *notes, *source;
	bool uncertain;
};
size_t kb_driver_count(void);
const struct kb_driver_branch *kb_driver_at(size_t i); /* ordered by branch */
/* The branch a driver version belongs to (Linux or Windows numbering): the listed
 * branch with the highest number <= the version's major. *exact is false when the
 * driver's own branch is not listed (its CUDA version is then at least the row's).
 * CD_ENOTFOUND for drivers older than the first listed branch. */
int kb_driver_branch_of(const struct version *driver, const struct kb_driver_branch **out,
			bool *exact);
/* The oldest branch whose CUDA version is >= cuda (which driver would run CUDA X.Y).
 * NULL when no listed branch does. */
const struct kb_driver_branch *kb_driver_branch_for_cuda(const struct version *cuda);

/* ---- PTX ISA (ptx_isa.tsv) ---- */
struct kb_ptx_isa {
	int major, minor;
	struct version cuda;         /* release that introduced it */
	struct version min_driver;   /* oldest Linux driver that JITs it; valid if has_min_driver */
	bool has_min_driver;
	const char *min_driver_text;
	bool uncertain;
	const char *notes, *source;
};
size_t kb_ptx_isa_count(void);
const struct kb_ptx_isa *kb_ptx_isa_at(size_t i);
const struct kb_ptx_isa *kb_ptx_isa_find(int major, int minor);
/* The newest PTX ISA a driver of CUDA version cuda can JIT. NULL if older than the table. */
const struct kb_ptx_isa *kb_ptx_isa_max_for_cuda(const struct version *cuda);

/* ---- arch families for 'f' targets (arch_families.tsv) ---- */
#define KB_MAX_FAMILY 8
struct kb_family {
	int arch;                    /* 100 for sm_100f */
	int members[KB_MAX_FAMILY];  /* device archs it runs on: 100, 103 */
	size_t n_members;
	struct version first_toolkit;
	bool uncertain;
	const char *notes, *source;
};
size_t kb_family_count(void);
const struct kb_family *kb_family_at(size_t i);
const struct kb_family *kb_family_find(int arch);
/* Whether sm_<family_arch>f code runs on a device of arch device_arch. False when
 * the family is not in the table (an f label on a pre-10 arch is not a family). */
bool kb_family_contains(int family_arch, int device_arch);

/* ---- archs (archs.tsv): each target with its architecture and toolkit range ---- */
struct kb_arch_info {
	struct kb_arch arch;
	const char *architecture;    /* "Ampere" */
	struct version first_toolkit;
	struct version last_toolkit; /* valid when has_last */
	bool has_last;
	bool uncertain;
	const char *notes, *source;
};
size_t kb_arch_count(void);
const struct kb_arch_info *kb_arch_at(size_t i);
const struct kb_arch_info *kb_arch_find(struct kb_arch a);

/* ---- the CUDA error catalogue (errors.tsv) ---- */
/* The CUDA runtime and driver (errors.tsv) and the libraries whose status codes
 * lib_errors.tsv lists. */
enum kb_api { KB_API_RUNTIME, KB_API_DRIVER, KB_API_CUBLAS, KB_API_CUDNN, KB_API_CUFFT, KB_API_CURAND,
	      KB_API_CUSOLVER, KB_API_CUSPARSE, KB_API_NVRTC, KB_API_NVJITLINK, KB_API_NCCL, KB_API_COUNT };
struct kb_error {
	enum kb_api api;
	int code;
	const char *name;            /* cudaErrorNoKernelImageForDevice / CUDA_ERROR_NO_BINARY_FOR_GPU */
	const char *string;          /* what cudaGetErrorString prints */
	const char *string_source;   /* cudart | cudart-same-number | header-doc | library-doc (the
				      * library's documented meaning, not text it prints) */
	const char *finding;         /* finding id, or NULL when no specific one */
	const char *source;
};
size_t kb_error_count(void);
const struct kb_error *kb_error_at(size_t i);
const struct kb_error *kb_error_by_name(const char *name);      /* exact name */
const struct kb_error *kb_error_by_code(enum kb_api api, int code);
const char *kb_api_name(enum kb_api api);                      /* "runtime" "driver" "cublas" ... */
/* "cublas" -> KB_API_CUBLAS; CD_OK or CD_ENOTFOUND. */
int kb_api_parse(const char *s, enum kb_api *out);

/* ---- wordings of a code in other CUDA releases (error_wordings.tsv) ---- */
struct kb_wording {
	const struct kb_error *error; /* the code whose text this was */
	const char *string;           /* what cudaGetErrorString printed then */
	const char *releases;         /* "9.0-10.2" */
	const char *source;
};
size_t kb_wording_count(void);
const struct kb_wording *kb_wording_at(size_t i);

/* ---- framework and tool messages explain recognises (messages.tsv) ---- */
#define KB_MAX_PARTS 3
struct kb_message {
	const char *key;             /* "torch-arch-incompatible" */
	const char *parts[KB_MAX_PARTS]; /* substrings that must all be on one line (ASCII case ignored) */
	size_t n_parts;
	const char *finding;
	const char *extract;         /* none, torch_cc, torch_cc_old, nvcc_arch, xid, oom, oom_stats
				      * (a summary whose numbers add to the OOM's), loader,
				      * driver_found, lib_versions, gpu_cc; fallback: a message that
				      * gives way to any other error in the text; vllm_budget,
				      * host_mem (Ollama's system memory), ggml_oom (llama.cpp's
				      * cudaMalloc, judged by its log's memory lines) */
	const char *source;          /* the public issue the text was seen in, or a source key */
};
size_t kb_message_count(void);
const struct kb_message *kb_message_at(size_t i);

/* ---- the catalogue of findings: each id's title, why and fix (findings.tsv; the templates
 * rules/catalogue.h fills) ---- */
#define KB_MAX_FIX 16
struct kb_finding {
	const char *finding;         /* the id, or "id/variant": a case of the id with its own text */
	const char *severity;        /* ok info warn error */
	const char *layer;           /* which layer of the stack / programming model */
	const char *title, *why;
	const char *fix[KB_MAX_FIX]; /* commands or steps */
	size_t n_fix;
	const char *checks;          /* live checks, space-separated: driver gpus binary nvcc ... */
	const char *source;
};
size_t kb_finding_count(void);
const struct kb_finding *kb_finding_at(size_t i);
const struct kb_finding *kb_finding_find(const char *finding);

/* ---- Xid numbers (xid.tsv) ---- */
struct kb_xid {
	int xid;
	const char *name, *meaning, *kind; /* kind: application, driver, hardware */
	bool uncertain;
	const char *bucket;                /* the catalogue's immediate action: IGNORE, RESTART_APP, RESET_GPU, ... */
	const char *action;                /* what to do, from NVIDIA's catalogue */
	const char *source;
};
size_t kb_xid_count(void);
const struct kb_xid *kb_xid_at(size_t i);
const struct kb_xid *kb_xid_find(int xid);

/* The catalogue's immediate-action buckets (xid_buckets.tsv): what each says about the GPU */
struct kb_xid_bucket {
	const char *bucket;   /* IGNORE, RESTART_APP, RESET_GPU, ... as the catalogue spells it */
	const char *severity; /* info, warn or error: the grade check and doctor give its Xids */
	const char *means;    /* what the bucket says about the GPU, in words */
	const char *source;
};
size_t kb_xid_bucket_count(void);
const struct kb_xid_bucket *kb_xid_bucket_at(size_t i);
const struct kb_xid_bucket *kb_xid_bucket_find(const char *bucket);

/* ---- source keys (sources.tsv) ---- */
struct kb_source {
	const char *key, *what;
};
size_t kb_source_count(void);
const struct kb_source *kb_source_at(size_t i);
const struct kb_source *kb_source_find(const char *key);

#endif
