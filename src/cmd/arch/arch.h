/* Shared between the parts of `cudoctor arch`: its options, one file's report, the
 * listings and the resources. */
#ifndef CUDOCTOR_CMD_ARCH_H
#define CUDOCTOR_CMD_ARCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "binfmt/devcode.h"
#include "binfmt/zip.h"
#include "report/progress.h"
#include "report/report.h"
#include "rules/arch.h"
#include "util/str.h"

struct arch_opts {
	bool recursive, kernels, cuobjdump, verbose, quiet;
	bool llvm_offloading;  /* --llvm-offloading: llvm-readobj --offloading's lines */
	bool all_sections; /* search every data section (DC_SCAN_EVERY_SECTION) */
	bool resources;       /* --resources: each SASS image's kernels and what they use */
	bool json;            /* --json: build the images arrays (skipped otherwise: memory) */
	char note[256];       /* said once in the report (e.g. no Ollama folder) */
	struct arch_target target;
};

/* How many files got each verdict, for one GPU. */
struct arch_tally {
	size_t n[VERDICT_NONE];
};

/* One run's walk over its inputs: what it reports into and what it counts. */
struct arch_walk {
	struct report_rec *files;
	const struct arch_opts *o;
	struct arch_tally *tally;     /* one per GPU of o->target */
	struct progress_line *prog;
	bool summary;                 /* a file that runs natively on every GPU is counted, not shown */
	size_t searched;              /* files and archive members searched */
	size_t with_code, listed, shown, failed;
	struct archive_budget *archive; /* the archive being walked (its errors past
					   ARCHIVE_ERRORS_SAID are counted, not said); NULL none */
	struct strbuf llvm_summaries; /* --llvm-offloading: what llvm-readobj prints after the lines */
};

/* walk.c: one input: mapped and judged, or, a zip archive (a wheel), each member that can
 * carry device code judged as "ARCHIVE!MEMBER" from its inflated bytes. A file or member
 * that cannot be read gets its one-line error (exit 3) and the walk goes on. */
void arch_walk_input(struct arch_walk *w, const char *path, bool explicit_input);
/* "PATH!MEMBER", malloc'ed (NULL: out of memory), the member's name (len bytes, any bytes in a
 * zip) as one line of safe text: a newline cannot start a line of the report nor a NUL cut it. */
char *arch_member_path(const char *path, const char *member, size_t len);

/* member.c: a zip member that is an ELF or PE file, kept sparsely from a stream of its bytes:
 * map holds, at their offsets, every byte judging it reads (its headers and section tables,
 * fatbin container and entry headers, small images, the runtime's marks) and zeros elsewhere,
 * so dc_scan and the verdicts read it as the whole member. rel (optional) is told how far into
 * the archive the stream has read. CD_EUNSUPPORTED: read the member whole instead (it is
 * empty or refused, or its readers kept reaching pages past MAX_PASSES passes). */
struct arch_member {
	unsigned char *map;
	size_t size;
	unsigned passes;  /* inflate passes taken */
	size_t kept;      /* bytes of pages kept */
};
struct arch_member_release {
	void (*fn)(const unsigned char *upto, void *ctx);
	void *ctx;
};
/* A member's bytes, front to back, as often as the passes need: open starts at its first byte,
 * read gives up to want (fewer only at its end, 0 past it, its size and checks verified
 * there), upto (optional) how far into the archive it has read. */
struct arch_source {
	uint64_t size; /* as declared: bounded, checked at the end */
	int (*open)(void *ctx, char *err);
	int (*read)(void *ctx, unsigned char *buf, size_t want, size_t *got, char *err);
	const unsigned char *(*upto)(void *ctx);
	void (*close)(void *ctx);
	void *ctx;
};
int arch_member_stream(const struct arch_source *src, unsigned opts, const struct arch_member_release *rel,
		       struct arch_member *out, char *err);
void arch_member_free(struct arch_member *am);
/* The whole member, malloc'ed (caller frees): buffer grown as its bytes arrive, at most its
 * declared size (ZIP_MEMBER_MAX). */
int arch_member_whole(const struct arch_source *src, unsigned char **out, size_t *len, char *err);
/* A zip member as a source, zsrc its state (kept alive while src is used). */
struct arch_zip_source {
	const struct zip_archive *z;
	const struct zip_member *m;
	struct zip_stream s;
};
void arch_zip_source(struct arch_source *src, struct arch_zip_source *zsrc, const struct zip_archive *z,
		     const struct zip_member *m);

/* How many bytes of a member tell whether dc_scan reads it (dc_has_magic's "a few KiB"). */
#define ARCH_MEMBER_HEAD 4096

/* walk.c, for the archive walkers: the member whose first bytes are head, named name, judged
 * (from a stream when it is a library or program, else read whole) or its error reported. */
void arch_judge_member(struct arch_walk *w, const char *name, size_t prefix_len, const unsigned char *head,
		       size_t got, const struct arch_source *src, const struct arch_member_release *rel);
/* The one-line error of a file or member that could not be read (exit 3); rc CD_ENOMEM is the
 * run's out of memory instead (r->oom), not the file's. */
void arch_file_error(struct arch_walk *w, const char *name, int rc, const char *why);

/* tarwalk.c: a conda package's payload tarball (the zip member m of z, or, z NULL, the
 * .tar.zst mapped at data), each entry that can carry device code judged as "PATH!ENTRY". */
void arch_walk_tar(struct arch_walk *w, const char *path, const struct zip_archive *z, const struct zip_member *m,
		   const unsigned char *data, size_t size, const struct arch_member_release *rel);

/* file.c: a file with its images (scanned into f): its section, listing, verdicts (into v,
 * one per GPU of o->target) and, with --resources, its kernels' resources; its object of
 * files and its -q lines. A failure is the record's (and so files'). */
void arch_file_fields(struct report_rec *files, struct arch_file *f, const struct arch_opts *o,
		      struct arch_verdict *v);

/* exe.c: for a PE program (not a member of an archive), each CUDA DLL it imports and where
 * Windows would load it from, under "dll_search", and rules_win_exe's findings. CD_OK or
 * CD_ENOMEM. */
int arch_exe_fields(struct report_rec *file, const struct arch_file *f);

/* list.c: the listing of f's images into file: a table of every image (grouped by section,
 * member, arch, kind and compression past 40 images unless -v), --kernels' lines, and
 * "images" (built only for --json). */
void arch_images_fields(struct report_rec *file, struct arch_file *f, const struct arch_opts *o);
/* cuobjdump --list-elf --list-ptx lines; counters run across all files of one run. */
int arch_cuobjdump_lines(const struct arch_file *f, unsigned *elf_no, unsigned *ptx_no, FILE *out);
/* The kernels of image im (decompressing it): each name to each(name, ctx), in order; CD_OK,
 * or the failure (each's, or the image's) with err. */
int arch_image_kernels(struct dc_inventory *inv, const struct dc_image *im, int (*each)(const char *name, void *ctx),
		       void *ctx, char *err);

/* hip.c: f's AMD code objects into file: a table of every device entry (grouped by section,
 * member, target and bundle form past 40 unless -v), "code_objects" (built only for --json),
 * "offload_bundles" and "hip_wrappers". */
void arch_hip_fields(struct report_rec *file, struct arch_file *f, const struct arch_opts *o);
/* The bundle entries that are not the host's. */
size_t arch_hip_device_entries(const struct dc_inventory *inv);
/* llvm-readobj --offloading's lines for f: each bundle entry's id, a tab and its file:// URI. */
int arch_llvm_offloading_lines(const struct arch_file *f, FILE *out);
/* The file summary llvm-readobj prints after them, for an ELF file given by path. */
int arch_llvm_summary(const struct arch_file *f, struct strbuf *sb);

/* hip_kernels.c: the kernels of AMD code objects. The names of device entry i as w's
 * "kernels", or its failure with err and no key; --kernels' line per code object (numbered as the listing numbers
 * them); --resources' object per code object appended to arr (CD_OK or CD_ENOMEM; a code
 * object that cannot be read is a line and an object with "error"). */
int arch_hip_kernel_names(struct arch_file *f, size_t i, struct report_rec *w, char *err);
void arch_hip_kernels_lines(struct report_rec *file, struct arch_file *f);
int arch_hip_resources(struct report_rec *arr, struct arch_file *f, char *err);

/* resources.c: every SASS image's and AMD code object's kernel resources, a section and table
 * each, and "resources" (one object per image or code object) into file. CD_OK or CD_ENOMEM; an image that cannot
 * be read is a line and an object with "error". */
int arch_resources(struct report_rec *file, struct arch_file *f, char *err);

#endif
