/* The platform a text comes from, as explain's platform reader (explain/text_platform.h)
 * decides it: a plain struct and its field table, for the rules that pick fix lines by it. */
#ifndef CUDOCTOR_FACTS_TEXT_PLATFORM_H
#define CUDOCTOR_FACTS_TEXT_PLATFORM_H

#include <stdbool.h>

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

const char *tp_vendor_name(int v);
const char *tp_os_name(int v);
const char *tp_runtime_name(int v);
const char *tp_hook_name(int v);

/* Its fields: explain's "platform" object. */
extern const struct field_table text_platform_field_table;

#endif
