/* The platform a text comes from, read from the text alone: the GPU's vendor (NVIDIA, AMD,
 * Intel, Apple), the OS (Linux, Windows, WSL 1, WSL 2, macOS), a Hyper-V guest, a container
 * (which runtime, CDI or the legacy hook) and Jetson. The one place explain decides these. Pure. */
#ifndef CUDOCTOR_EXPLAIN_TEXT_PLATFORM_H
#define CUDOCTOR_EXPLAIN_TEXT_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/platform.h"
#include "util/field.h"

enum tp_vendor { TP_VENDOR_UNKNOWN, TP_NVIDIA, TP_AMD, TP_INTEL, TP_APPLE };
enum tp_os { TP_OS_UNKNOWN, TP_LINUX, TP_WINDOWS, TP_WSL1, TP_WSL2, TP_MACOS };
enum tp_runtime { TP_RT_NONE, TP_DOCKER, TP_DOCKER_DESKTOP, TP_PODMAN, TP_KUBERNETES, TP_LXC, TP_APPTAINER };
enum tp_hook { TP_HOOK_UNKNOWN, TP_HOOK_LEGACY, TP_HOOK_CDI };

/* What a marker says. The vendor kinds count only toward a vendor; the others set one aspect. */
enum tp_kind {
	TPK_NVIDIA, /* an NVIDIA device, driver or tool named (GeForce, nvidia-smi, NVML) */
	TPK_AMD,
	TPK_INTEL,
	TPK_APPLE,
	TPK_MACOS,
	TPK_WINDOWS,
	TPK_LINUX,
	TPK_WSL1, /* WSL 1's kernel (4.4.0-<build>-Microsoft) or its name */
	TPK_WSL2,
	TPK_WSL2_KERNEL, /* WSL 2's own kernel: beats a text's words about WSL 1 */
	TPK_HYPERV,
	TPK_DOCKER,
	TPK_DOCKER_DESKTOP,
	TPK_PODMAN,
	TPK_KUBERNETES,
	TPK_LXC,
	TPK_APPTAINER,
	TPK_CONTAINER, /* a container, runtime unsaid */
	TPK_CDI,
	TPK_LEGACY_HOOK,
	TPK_JETSON,
	TPK_COUNT
};

/* A string (ASCII case ignored) that says kind; check, when set, must also hold for the
 * lower-cased line around the hit (end: just past it) */
struct tp_marker {
	const char *text;
	enum tp_kind kind;
	bool (*check)(const char *low, size_t len, size_t end);
};

struct text_platform {
	enum tp_vendor vendor;
	enum tp_os os;
	bool hyperv;            /* a Hyper-V guest with GPU-PV (dxgkrnl), outside WSL */
	bool container;         /* the text is from inside or about a container */
	enum tp_runtime runtime;
	enum tp_hook hook;      /* how the NVIDIA runtime gave the container its GPU */
	bool jetson;            /* Jetson / L4T (an integrated Tegra GPU) */
	bool from_host;         /* an aspect the text left unsaid was taken from this machine */
	/* the first marker of each kind seen, as written in the table (the evidence) */
	const char *first[TPK_COUNT];
	unsigned count[TPK_COUNT]; /* distinct markers of each kind */
	unsigned long long seen_markers[4]; /* bit per marker index: counted once */
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

const char *tp_vendor_name(int v);
const char *tp_os_name(int v);
const char *tp_runtime_name(int v);
const char *tp_hook_name(int v);

/* Its fields: explain's "platform" object. */
extern const struct field_table text_platform_field_table;

#endif
