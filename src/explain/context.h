/* What part of a log a line is in (a program's run, a build, a container runtime, ...) and
 * whether the text comes from Windows or from AMD's ROCm: the one place explain decides these.
 * Pure. */
#ifndef CUDOCTOR_EXPLAIN_CONTEXT_H
#define CUDOCTOR_EXPLAIN_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>

/* The kinds of region a log holds. A bare error number means a CUDA error only in REGION_RUN
 * (and the regions a CUDA program writes in); a build tool's "exit status 1" is not error 1. */
enum explain_region {
	REGION_RUN,       /* a program's own output: the default */
	REGION_BUILD,     /* compiler or build tool: nvcc, ptxas, ninja, make, CMake, pip building */
	REGION_INSTALL,   /* a driver or toolkit installer, a package manager */
	REGION_CONTAINER, /* docker/podman/containerd and the NVIDIA container runtime */
	REGION_KERNEL,    /* the kernel log: NVRM, Xid */
	REGION_NCCL,      /* NCCL's own log lines */
	REGION_COUNT
};

/* A region begins at a marker and lasts this many lines after its last marker. */
#define REGION_LINES 40

/* A string that, on a line, says which region the line opens or continues. */
struct region_marker {
	const char *text; /* matched case-insensitively */
	enum explain_region region;
};

const struct region_marker *explain_region_markers(size_t *n);
const char *explain_region_name(enum explain_region r);

/* Strings that only a Windows text holds (a drive path, a DLL or .exe, a Windows error, a cmd or
 * PowerShell prompt). */
const char *const *explain_windows_markers(size_t *n);

/* Strings that only a Linux (or WSL2) text holds: its paths, its loader, its shell. */
const char *const *explain_linux_markers(size_t *n);

/* Whether a text is from Windows, from what it holds: a Windows marker and no WSL2 (whose texts
 * carry Windows paths but run Linux's tools); a Linux marker alone says Linux; a text that says
 * neither is taken for the platform cudoctor runs on. Every fix line in Windows' form or
 * Linux's follows this. */
bool explain_text_is_windows(bool windows_seen, bool linux_seen, bool wsl_seen);

/* ComfyUI portable's own Python folder: a text that shows it is from Windows, and its pip is
 * that Python's. */
#define EXPLAIN_EMBEDDED_PYTHON "python_embeded"

/* The pip a fix line runs: the portable build's own Python, else "python -m pip" on Windows (the
 * Python that fails, whatever pip.exe PATH finds), else pip. */
const char *explain_pip_command(bool windows, bool embedded_python);
/* The Python a fix line runs: the portable build's own, else python. */
const char *explain_python_command(bool embedded_python);

/* Strings that only a text of AMD's ROCm/HIP stack holds: such a text gets ROCm's findings and
 * never CUDA's advice. */
const char *const *explain_rocm_markers(size_t *n);

/* The region a line is in: the marker region while it lasts, else the run's.
 * last_marker_line is 0 when no marker was seen. */
enum explain_region explain_region_at(enum explain_region marked, size_t last_marker_line, size_t line);

/* Whether an error number on this line may be read: not in a build's, installer's or
 * container runtime's region, and not on a build tool's own failure line (lower-cased line). */
bool explain_numbers_readable(enum explain_region r, const char *low);

#endif
