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

/* file.c: a file with its images (scanned into f): its section, listing, verdicts (into v,
 * one per GPU of o->target) and, with --resources, its kernels' resources; its object of
 * files and its -q lines. A failure is the record's (and so files'). */
void arch_file_fields(struct report_rec *files, struct arch_file *f, const struct arch_opts *o,
		      struct arch_verdict *v);

/* verdicts.c: one verdict, written once: a line labelled with the GPU's name and the object
 * arch and explain both print (gpu, compute_capability, result, ...); the same object alone
 * (NULL when out of memory); the driver judged against (a line and "driver", empty when
 * unknown). */
void arch_verdict_fields(struct report_rec *w, const struct arch_gpu *g, const struct arch_verdict *v);
json_t *arch_verdict_json(const struct arch_gpu *g, const struct arch_verdict *v);
void arch_driver_fields(struct report_rec *top, const struct arch_driver *d);
/* Judges f on every GPU of t into v (t->n_gpus entries): the runtime's driver need, the
 * findings, and a line and an object of "verdicts" per GPU judged (GPUs with nothing to
 * judge left out) into file. CD_OK, CD_ENOMEM or arch_judge's error. */
int arch_verdicts(struct report_rec *file, const struct arch_file *f, const struct arch_target *t,
		  struct arch_verdict *v, char *err);

/* list.c: the listing of f's images into file: a table of every image (grouped by section,
 * member, arch, kind and compression past 40 images unless -v), --kernels' lines, and
 * "images" (built only for --json). */
void arch_images_fields(struct report_rec *file, struct arch_file *f, const struct arch_opts *o);
/* cuobjdump --list-elf --list-ptx lines; counters run across all files of one run. */
int arch_cuobjdump_lines(const struct arch_file *f, unsigned *elf_no, unsigned *ptx_no, FILE *out);
/* The kernels of image i (decompressing it): a JSON array of names, or NULL with err. */
json_t *arch_image_kernels(struct dc_inventory *inv, const struct dc_image *im, char *err);

/* resources.c: every SASS image's kernel resources, a section and table each, and
 * "resources" (one object per image) into file. CD_OK or CD_ENOMEM; an image that cannot
 * be read is a line and an object with "error". */
int arch_resources(struct report_rec *file, struct arch_file *f, char *err);

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
