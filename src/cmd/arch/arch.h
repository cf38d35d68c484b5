/* Shared between the rooms of `cudoctor arch` (and explain, which takes arch's --gpu and
 * --driver): options, the target parser, listings, inputs and the verdict renderer. */
#ifndef CUDOCTOR_CMD_ARCH_H
#define CUDOCTOR_CMD_ARCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "binfmt/devcode.h"
#include "report/report.h"
#include "rules/arch.h"

struct arch_opts {
	bool recursive, kernels, cuobjdump, verbose, quiet;
	bool resources;       /* --resources: each SASS image's kernels and what they use */
	bool json;            /* --json: build the images arrays (skipped otherwise: memory) */
	char note[256];       /* said once in the report (e.g. no Ollama folder) */
	struct arch_target target;
};

/* target.c: --gpu SPEC through kb (sm_89, 8.9, 89, sm_90a, "RTX 4060 Ti", H200) -> cc,
 * and a label naming the product when SPEC named one. */
int arch_parse_gpu_spec(const char *spec, unsigned *cc, char *label, size_t label_cap, char *err);
/* --driver VERSION: a driver ("550.54.14") or a CUDA version ("12.4"). */
int arch_driver_from_text(const char *text, struct arch_driver *d, char *err);
/* One --gpu SPEC (repeatable) or --driver VER onto t: how arch and explain both read them. */
int arch_target_gpu_option(struct arch_target *t, const char *spec, char *err);
int arch_target_driver_option(struct arch_target *t, const char *text, char *err);
/* The rest from this machine (gpu_caps): the driver unless given, the GPUs unless named.
 * why gets the sentence to show when no GPU is left to judge against. */
void arch_target_probe(struct arch_target *t, char *why, size_t why_cap);

/* verdicts.c: one verdict as arch's JSON object (gpu, compute_capability, result, ...),
 * and the driver object; NULL when out of memory. */
json_t *arch_verdict_json(const struct arch_gpu *g, const struct arch_verdict *v);
json_t *arch_driver_json(const struct arch_driver *d);
/* Judges f on every GPU of t: findings and one line per GPU into r, the verdicts array
 * (GPUs with nothing to judge left out) into *out. CD_OK or CD_ENOMEM. */
int arch_verdicts(struct report *r, const struct arch_file *f, const struct arch_target *t, json_t **out,
		  char *err);

/* list.c */
json_t *arch_images_json(struct arch_file *f, const struct arch_opts *o);
int arch_list_text(struct report *r, struct arch_file *f, const struct arch_opts *o);
/* cuobjdump --list-elf --list-ptx lines; counters run across all files of one run. */
int arch_cuobjdump_lines(const struct arch_file *f, unsigned *elf_no, unsigned *ptx_no, FILE *out);
/* The kernels of image i (decompressing it): a JSON array of names, or NULL with err. */
json_t *arch_image_kernels(struct dc_inventory *inv, const struct dc_image *im, char *err);

/* resources.c: every SASS image's kernel resources as tables into r, and the JSON array
 * (one object per image) into *out. CD_OK or CD_ENOMEM; an image that cannot be read is
 * a line and an object with "error". */
int arch_resources(struct report *r, struct arch_file *f, json_t **out, char *err);

/* inputs.c: expands directories (-r), --python and --ollama into file paths. */
struct arch_inputs {
	char **paths;
	bool *explicit_input;
	size_t n, cap;
};
int arch_inputs_add(struct arch_inputs *in, const char *path, bool explicit_input);
int arch_inputs_expand_dir(struct arch_inputs *in, const char *dir, bool recursive, char *err);
/* --python: the site-packages of the interpreter (python3 on PATH by default), asked through
 * probe/spawn.h; an interpreter that does not answer in time is a helper-timeout finding in r. */
int arch_inputs_python(struct report *r, struct arch_inputs *in, const char *interpreter, char *err);
int arch_inputs_ollama(struct arch_inputs *in, char *err);
void arch_inputs_free(struct arch_inputs *in);

#endif
