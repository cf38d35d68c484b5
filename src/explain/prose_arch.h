/* A GPU and a build that cannot run on it, told in prose: the GPU's compute capability (its
 * name, "compute capability 7.0", "SM70", its architecture's name), a CUDA 13 build or a PyTorch
 * wheel, and words that say it does not work. What no error line says (premise.h adds it). */
#ifndef CUDOCTOR_EXPLAIN_PROSE_ARCH_H
#define CUDOCTOR_EXPLAIN_PROSE_ARCH_H

#include <stdbool.h>
#include <stddef.h>

enum prose_kind {
	PROSE_GPU,     /* a GPU's name or compute capability */
	PROSE_CUDA13,  /* a CUDA 13 build (image, toolkit, runtime) */
	PROSE_WHEEL,   /* a PyTorch release and its CUDA variant */
	PROSE_FAILS,   /* it does not work, is not supported */
};

struct prose_marker {
	const char *text; /* lower-case */
	enum prose_kind kind;
};

struct prose_arch {
	int arch;              /* the oldest GPU's sm number named (61 of a GTX 1070), else 0 */
	bool cuda13, fails;
	char release[16];      /* "2.8.0" of "PyTorch 2.8.0 + cu129", else "" */
	char variant[8];       /* "cu129" */
};

const struct prose_marker *prose_arch_markers(size_t *n);
/* Marker kind was found on a line (s: as written, low: lower-cased, len bytes). Whether the
 * line gave the fact (the GPU's line is kept as the evidence). */
bool prose_arch_hit(struct prose_arch *pa, enum prose_kind kind, const char *s, const char *low, size_t len);
/* Whether what was read adds up: a GPU older than every architecture the build carries, and the
 * text says it fails. */
bool prose_arch_no_kernel(const struct prose_arch *pa);

#endif
