/* The platform a text comes from, read from the text alone: the GPU's vendor (NVIDIA, AMD,
 * Intel, Apple), the OS (Linux, Windows, WSL 1, WSL 2, macOS), a Hyper-V guest, a container
 * (which runtime, CDI or the legacy hook) and Jetson. The one place explain decides these. Pure. */
#ifndef CUDOCTOR_EXPLAIN_TEXT_PLATFORM_H
#define CUDOCTOR_EXPLAIN_TEXT_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/platform.h"
#include "facts/text_platform.h"
#include "util/field.h"

/* A string (ASCII case ignored) that says kind; check, when set, must also hold for the
 * lower-cased line around the hit (end: just past it) */
struct tp_marker {
	const char *text;
	enum tp_kind kind;
	bool (*check)(const char *low, size_t len, size_t end);
};


/* The markers, in one table: a scanner looks for them and hands each hit to text_platform_hit. */
const struct tp_marker *text_platform_markers(size_t *n);

void text_platform_init(struct text_platform *p);
/* Marker i was found on a line (low: lower-cased, len bytes; end: just past the hit). */
void text_platform_hit(struct text_platform *p, size_t i, const char *low, size_t len, size_t end);
/* Decides the aspects from what was seen. windows_seen/linux_seen: context.h's markers (the
 * scanner's own); host_windows: the platform cudoctor runs on, for a text that says neither. */
void text_platform_settle(struct text_platform *p, bool windows_seen, bool linux_seen, bool host_windows);

/* The whole reading over a text of len bytes, lines at a time (no automaton: for short texts
 * and tests). */
void text_platform_read(const char *text, size_t len, bool host_windows, struct text_platform *out);

/* The aspects the text left unsaid (the OS, a container and its runtime), from this machine's
 * platform facts, for a text explained where it was made (not --offline). */
void text_platform_add_host(struct text_platform *p, const struct platform_info *host);

/* Whether NVIDIA's CUDA fix lines can apply: an NVIDIA GPU (or none named) on an OS with CUDA. */
bool text_platform_cuda(const struct text_platform *p);

/* The finding a CUDA finding id stands for on p: a HIP text's ROCm id, Intel's or Apple's own
 * id for an OOM or a lost device, non-nvidia-platform for any other CUDA advice off NVIDIA,
 * wsl1-no-gpu under WSL 1; else id itself. */
const char *text_platform_finding(const struct text_platform *p, const char *id);

#endif
