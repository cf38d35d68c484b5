/* Arch verdicts, the one implementation arch and explain share: each registered container
 * of a file judged on each GPU by kb/compat.c, summed into one verdict per GPU with its
 * reason, and the findings (no-kernel-image, ptx-too-new, ...) a verdict calls for. */
#ifndef CUDOCTOR_RULES_ARCH_H
#define CUDOCTOR_RULES_ARCH_H

#include <stdbool.h>
#include <stddef.h>

#include "binfmt/devcode.h"
#include "kb/compat.h"
#include "facts/driver.h"
#include "report/report.h"

struct runtime_need;

#define ARCH_MAX_GPUS 32

/* What a file is judged on: a view of a GPU here (arch_gpu_of: its subject, compute
 * capability and CUDA ordinal from its gpu_info), or a GPU named by --gpu. */
struct arch_gpu {
	char name[160];       /* "GPU 0 (NVIDIA H200)" (gpu_subject) or "--gpu sm_90" */
	unsigned cc;          /* 10*major+minor; 0 for an AMD GPU */
	int ordinal;          /* CUDA ordinal of a GPU here; -1 for a named one */
	bool amd;             /* an AMD GPU, judged on HIP code objects by its processor */
	char gfx[32];         /* AMD: its processor, "gfx1100" */
	enum hipfb_feature xnack, sramecc; /* AMD: the settings it runs with; ANY when not known */
};

/* The view of GPU g (one CUDA sees, compute capability known). */
void arch_gpu_of(const struct gpu_info *g, struct arch_gpu *out);

struct arch_driver {
	bool known;
	char source[64];      /* "installed driver", "--driver" */
	char version[32];     /* driver version if known ("580.159.04"), else "" */
	int cuda;             /* CUDA version as cuDriverGetVersion encodes it (13000); 0 unknown */
	unsigned ptx_isa_max; /* COMPAT_ISA; 0 unknown */
	int zstd_ok;          /* 1, 0, -1 unknown */
};

/* What a file is judged against: GPUs, driver, and the driver's JIT switches. */
struct arch_target {
	struct arch_gpu gpus[ARCH_MAX_GPUS];
	size_t n_gpus;
	struct arch_driver driver;
	bool force_jit, disable_jit;  /* CUDA_FORCE_PTX_JIT / CUDA_DISABLE_PTX_JIT */
	char hsa_override[32];        /* HSA_OVERRIDE_GFX_VERSION as set ("11.0.0"), else "" */
	char hsa_override_gfx[32];    /* the processor it names ("gfx1100"), else "" */
	enum hipfb_feature hsa_xnack; /* HSA_XNACK=1 / 0; ANY when unset */
};

/* One scanned file. */
struct arch_file {
	const char *path;             /* "ARCHIVE!MEMBER" for a member of a zip archive */
	const char *member;           /* that member's name inside the archive, else NULL */
	const unsigned char *data;
	size_t size;
	struct dc_inventory inv;
	const struct runtime_need *need; /* the runtime it needs, read with inv; NULL: read when judged */
};

/* A file that links c10 or libtorch (a PyTorch extension): sets the catalogue's torch and
 * torch_ext flags and torch_archs for GPU cc and t's GPUs (rebuilt with TORCH_CUDA_ARCH_LIST,
 * not fixed by another torch wheel) and says so. */
struct finding_vars;
bool arch_torch_extension_vars(const struct arch_file *f, unsigned cc, const struct arch_target *t,
			       struct finding_vars *v);

/* The verdict of one file on one GPU. */
struct arch_verdict {
	enum compat_verdict verdict;  /* VERDICT_NONE: no container with kernels to judge */
	bool pooled;                  /* judged on the images outside the registered containers */
	size_t judged, jit, failing;  /* containers judged, JIT-compiled, without a usable image */
	size_t stubs;                 /* kernel-less containers left out */
	size_t zstd_unloadable;       /* containers whose chosen image is Zstandard the driver cannot read */
	long chosen_image;            /* an image index the driver would use, -1 none */
	char image[32];               /* its arch name ("sm_90") when the verdict runs something, else "" */
	long failing_container;       /* a container that fails, -1 none */
	unsigned newest_ptx_isa;      /* of the PTX the ISA check excluded */
	bool other_vendor;            /* the file's device code is only for the other vendor's GPUs */
	bool features_only;           /* AMD: a failing bundle has code of the GPU's processor whose
					 xnack/sramecc setting differs from the GPU's */
	char reason[1024];            /* the verdict as one sentence */
};

/* An empty target: no GPU, driver unknown; the JIT switches from the environment. */
void arch_target_init(struct arch_target *t);
/* Completes d's ptx_isa_max and zstd_ok from its cuda (and version) through kb. */
void arch_driver_complete(struct arch_driver *d);
/* Adds what the driver facts say (probe/gpu_caps.h): the driver when t has none, the GPUs
 * CUDA sees when t names none. */
void arch_target_add_probe(struct arch_target *t, const struct gpu_probe *p);

/* arch_target.c: what arch and explain judge against, read from their options. */
/* --gpu SPEC through kb (sm_89, 8.9, 89, sm_90a, "RTX 4060 Ti", H200) -> cc,
 * and a label naming the product when SPEC named one. */
int arch_parse_gpu_spec(const char *spec, unsigned *cc, char *label, size_t label_cap, char *err);
/* --driver VERSION: a driver ("550.54.14") or a CUDA version ("12.4"). */
int arch_driver_from_text(const char *text, struct arch_driver *d, char *err);
/* One --gpu SPEC (repeatable) or --driver VER onto t: how arch and explain both read them. */
int arch_target_gpu_option(struct arch_target *t, const char *spec, char *err);
int arch_target_driver_option(struct arch_target *t, const char *text, char *err);
/* After arch_target_add_probe left t without a GPU: the sentence that says why, from the
 * driver facts p (libcuda missing, cuInit failed, or no device visible). */
void arch_target_none_why(const struct gpu_probe *p, char *why, size_t why_cap);

/* rules/arch_amd.c: AMD GPUs. --gpu SPEC naming one (gfx1100, gfx90a:xnack+, "RX 7900 XTX",
 * 780M, MI300X) into g, label naming the product; CD_ENOTFOUND when SPEC names no AMD GPU. */
int arch_amd_gpu_spec(const char *spec, struct arch_gpu *g, char *label, size_t label_cap, char *err);
/* The view of AMD GPU g (index i of the KFD topology's GPUs): its processor, SRAM ECC as its
 * products ship it, XNACK decided when judged. */
struct amd_gpu;
void arch_amd_gpu_of(const struct amd_gpu *g, size_t i, struct arch_gpu *out);
/* HSA_OVERRIDE_GFX_VERSION ("11.0.0", "9.0.10") as the processor it names ("gfx1100",
 * "gfx90a"); false when it is not major.minor.stepping. */
bool arch_amd_override_gfx(const char *value, char *gfx, size_t cap);
/* The verdict of f's HIP code objects on AMD GPU g (the override's target when t has one). */
int arch_amd_judge(const struct arch_file *f, const struct arch_target *t, const struct arch_gpu *g,
		   struct arch_verdict *v);
/* The verdict of f on an NVIDIA GPU when its device code is only AMD's (v->other_vendor), else
 * v as it was. CD_OK or CD_ENOMEM. */
int arch_amd_other_vendor(const struct arch_file *f, struct arch_verdict *v);
/* The findings the verdict of f on g calls for (an AMD GPU, or code of the other vendor).
 * CD_OK or CD_ENOMEM. */
int arch_amd_findings(struct report *r, const struct arch_file *f, const struct arch_target *t,
		      const struct arch_gpu *g, const struct arch_verdict *v);
/* "gfx1030, gfx1100, gfx11-generic": the distinct targets of f's code objects (one bundle's
 * when bundle >= 0); malloc'ed, NULL when out of memory. */
char *arch_amd_carries(const struct dc_inventory *inv, long bundle);
/* The values and row of rocm-gfx-target-missing for f's verdict v on AMD GPU g (what the file
 * carries, what the GPU runs, the build to install, what HSA_OVERRIDE_GFX_VERSION would do), as
 * arch_amd_findings gives them, for another command's finding of that id (explain's).
 * CD_ENOTFOUND when v is no missing target on an AMD GPU; CD_ENOMEM. */
struct finding_vars;
int arch_amd_missing_vars(const struct arch_file *f, const struct arch_target *t, const struct arch_gpu *g,
			  const struct arch_verdict *v, struct finding_vars *fv, const char **row);

/* The header facts of image im as compat.c reads them. */
void arch_compat_image(const struct dc_image *im, struct compat_image *out);

/* Verdicts of f on every GPU of t, into out[0 .. t->n_gpus). CD_OK or CD_ENOMEM. */
int arch_judge(const struct arch_file *f, const struct arch_target *t, struct arch_verdict *out, char *err);
/* The findings verdict v of f on GPU g calls for. CD_OK or CD_ENOMEM. */
int arch_findings(struct report *r, const struct arch_file *f, const struct arch_target *t,
		  const struct arch_gpu *g, const struct arch_verdict *v);

/* "sm_50, sm_60, ..., compute_90": the archs in f's registered containers, SASS then PTX;
 * malloc'ed, NULL when out of memory. */
char *arch_carries(const struct dc_inventory *inv);

/* Oldest driver that reads Zstandard images; oldest driver whose JIT takes PTX ISA isa
 * (NULL when the table has none). Both from kb. */
const char *arch_zstd_min_driver(void);
const char *arch_ptx_isa_min_driver(unsigned isa);

#endif
