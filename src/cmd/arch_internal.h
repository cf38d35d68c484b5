/* Shared between the files of `cudoctor arch`: options, GPUs and driver facts to judge
 * against, and the per-file steps (listing, verdicts, inputs). */
#ifndef CUDOCTOR_CMD_ARCH_INTERNAL_H
#define CUDOCTOR_CMD_ARCH_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "binfmt/devcode.h"
#include "kb/compat.h"
#include "report/report.h"

struct arch_gpu {
	char name[160];       /* "GPU 0 (NVIDIA H200)" or "--gpu sm_90" */
	unsigned cc;          /* 10*major+minor */
};

struct arch_driver {
	bool known;
	char source[64];      /* "installed driver", "--driver" */
	char version[32];     /* driver version if known ("580.159.04"), else "" */
	int cuda;             /* CUDA version as cuDriverGetVersion encodes it (13000); 0 unknown */
	unsigned ptx_isa_max; /* COMPAT_ISA; 0 unknown */
	int zstd_ok;          /* 1, 0, -1 unknown */
};

struct arch_opts {
	bool recursive, kernels, cuobjdump, verbose, quiet;
	bool json;            /* --json: build the images arrays (skipped otherwise: memory) */
	bool force_jit, disable_jit;
	char note[256];       /* said once in the report (e.g. no Ollama folder) */
	struct arch_gpu gpus[32];
	size_t n_gpus;
	struct arch_driver driver;
	const struct compat_family_member *family;
	size_t n_family;
};

/* One input file, once scanned. */
struct arch_file {
	const char *path;        /* as given or found */
	const unsigned char *data;
	size_t size;
	struct dc_inventory inv;
	bool explicit_input;     /* named on the command line (else found in a directory) */
};

/* arch_gpu.c: --gpu SPEC through kb (sm_89, 8.9, 89, sm_90a, "RTX 4060 Ti", H200) -> cc,
 * and a label naming the product when SPEC named one. */
int arch_parse_gpu_spec(const char *spec, unsigned *cc, char *label, size_t label_cap, char *err);
/* The GPUs of this machine through libcuda, and the installed driver. Missing driver
 * or GPUs are not errors: n_gpus stays 0 and driver->known false, with a note in why. */
void arch_probe_here(struct arch_opts *o, char *why, size_t why_cap);
/* --driver VERSION: a driver ("550.54.14") or a CUDA version ("12.4"). */
int arch_driver_from_text(const char *text, struct arch_driver *d, char *err);
/* Completes ptx_isa_max and zstd_ok from cuda (and version). */
void arch_driver_complete(struct arch_driver *d);
/* The family table (kb/arch_families.tsv). */
const struct compat_family_member *arch_family_table(size_t *n);
/* Oldest driver that reads Zstandard images; oldest driver whose JIT takes PTX ISA isa
 * (NULL when the table has none). Both from kb. */
const char *arch_zstd_min_driver(void);
const char *arch_ptx_isa_min_driver(unsigned isa);

/* arch_list.c */
json_t *arch_images_json(const struct arch_file *f, const struct arch_opts *o);
int arch_list_text(struct report *r, const struct arch_file *f, const struct arch_opts *o);
/* cuobjdump --list-elf --list-ptx lines; counters run across all files of one run. */
int arch_cuobjdump_lines(const struct arch_file *f, unsigned *elf_no, unsigned *ptx_no, FILE *out);
/* The kernels of image i (decompressing it): a JSON array of names, or NULL with err. */
json_t *arch_image_kernels(const struct dc_image *im, char *err);

/* arch_judge.c: verdicts of one file on every GPU: JSON array, text lines, findings. */
json_t *arch_judge_file(struct report *r, const struct arch_file *f, const struct arch_opts *o);

/* arch_inputs.c: expands directories (-r), --python and --ollama into file paths. */
struct arch_inputs {
	char **paths;
	bool *explicit_input;
	size_t n, cap;
};
int arch_inputs_add(struct arch_inputs *in, const char *path, bool explicit_input);
int arch_inputs_expand_dir(struct arch_inputs *in, const char *dir, bool recursive, char *err);
int arch_inputs_python(struct arch_inputs *in, const char *interpreter, char *err);
int arch_inputs_ollama(struct arch_inputs *in, char *err);
void arch_inputs_free(struct arch_inputs *in);

#endif
