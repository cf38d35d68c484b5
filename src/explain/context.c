/* The regions of a log and the Windows and ROCm decisions (context.h): the markers, in one table each. */
#include "explain/context.h"

#include <string.h>

#include "os/host.h"

static const struct region_marker markers[] = {
	/* compilers and build tools */
	{ "nvcc fatal", REGION_BUILD },
	{ "ptxas ", REGION_BUILD },
	{ "ninja: ", REGION_BUILD },
	{ "ninja -v", REGION_BUILD },
	{ "make[", REGION_BUILD },
	{ "make: ***", REGION_BUILD },
	{ "cmake error", REGION_BUILD },
	{ "-- configuring incomplete", REGION_BUILD },
	{ "errors detected in the compilation of", REGION_BUILD },
	{ "error compiling objects for extension", REGION_BUILD },
	{ "cpp_extension.py", REGION_BUILD },
	{ "building wheel for", REGION_BUILD },
	{ "failed building wheel", REGION_BUILD },
	{ "setup.py", REGION_BUILD },
	{ "subprocess-exited-with-error", REGION_BUILD },
	{ "bin/nvcc", REGION_BUILD },
	{ "nvcc.exe", REGION_BUILD },
	{ "cargo build", REGION_BUILD },
	/* installers and package managers */
	{ "nvidia-installer", REGION_INSTALL },
	{ "dpkg: error", REGION_INSTALL },
	{ "e: unable to correct problems", REGION_INSTALL },
	/* container runtimes */
	{ "oci runtime create failed", REGION_CONTAINER },
	{ "error running hook", REGION_CONTAINER },
	{ "nvidia-container-cli", REGION_CONTAINER },
	/* the kernel log */
	{ "nvrm: ", REGION_KERNEL },
	/* NCCL */
	{ "nccl info", REGION_NCCL },
	{ "nccl warn", REGION_NCCL },
};

static const char *const region_names[REGION_COUNT] = { "run", "build", "install", "container", "kernel log",
							 "nccl" };

/* a drive path's "C:\", Windows' error texts and the driver's DLL, an .exe, cmd's and
 * PowerShell's prompts and variables, ComfyUI's portable build (EXPLAIN_EMBEDDED_PYTHON, read apart) */
static const char *const windows_markers[] = { "c:\\", "d:\\", "e:\\", "f:\\", "g:\\", ":\\users\\",
					       ":\\program files", ":\\anaconda", ":\\windows\\", "winerror",
					       ".dll", ".exe", "\\site-packages\\", "\\appdata\\", "windows_portable",
					       "nvlddmkm", "powershell", "$env:", "ps c:",
					       "system32" };

/* Linux's paths, loader and shell; WSL2 is decided by match.c's own words (wsl2, /usr/lib/wsl) */
static const char *const linux_markers[] = { "/usr/", "/home/", "/opt/", ".so.", "ld_library_path", "ldconfig",
					     "/dev/nvidia", "/proc/", "dmesg", "sudo ", "/etc/", "/var/lib/",
					     "nvidia-container-cli", "container_linux.go", "apt-get ", "ubuntu" };

/* AMD's stack: HIP's and HSA's own error texts, its runtime's log, the device node, the build
 * variables and wheels of ROCm. Not "rocm" or "hsa_override_gfx_version" alone: Ollama prints
 * both in its settings and runner lists on every machine. */
static const char *const rocm_markers[] = { "hip error", "hiperror", "hsa_status_error", "hip out of memory",
					    "/dev/kfd", "amd_serialize_kernel", "torch_use_hip_dsa",
					    "pytorch_hip_alloc_conf", "rocdevice.cpp", "hip_code_object", "amdgpu_targets",
					    "llama_hipblas", "+rocm", "rocm error", "rocblas error", "library=rocm" };

const struct region_marker *explain_region_markers(size_t *n)
{
	*n = sizeof(markers) / sizeof(markers[0]);
	return markers;
}

const char *explain_region_name(enum explain_region r)
{
	return r < REGION_COUNT ? region_names[r] : "run";
}

const char *const *explain_windows_markers(size_t *n)
{
	*n = sizeof(windows_markers) / sizeof(windows_markers[0]);
	return windows_markers;
}

const char *const *explain_linux_markers(size_t *n)
{
	*n = sizeof(linux_markers) / sizeof(linux_markers[0]);
	return linux_markers;
}

bool explain_text_is_windows(bool windows_seen, bool linux_seen, bool wsl_seen)
{
	if (wsl_seen)
		return false;
	if (windows_seen)
		return true;
	if (linux_seen)
		return false;
	return !os_is_linux();
}

const char *explain_python_command(bool embedded_python)
{
	return embedded_python ? "python_embeded\\python.exe" : "python";
}

const char *explain_pip_command(bool windows, bool embedded_python)
{
	if (embedded_python)
		return "python_embeded\\python.exe -m pip";
	return windows ? "python -m pip" : "pip";
}

const char *const *explain_rocm_markers(size_t *n)
{
	*n = sizeof(rocm_markers) / sizeof(rocm_markers[0]);
	return rocm_markers;
}

enum explain_region explain_region_at(enum explain_region marked, size_t last_marker_line, size_t line)
{
	if (!last_marker_line || line > last_marker_line + REGION_LINES)
		return REGION_RUN;
	return marked;
}

/* a build tool's own failure ("make: *** [x.o] Error 2", "ninja: build stopped", "FAILED:
 * foo.cuda.o", "exit status 1") */
static bool build_tool_line(const char *low)
{
	return strstr(low, "] error ") || strstr(low, "*** [") || strstr(low, "ninja: ") ||
	       strstr(low, "exit status ") || strstr(low, "exit code ") || strstr(low, "make[") ||
	       strstr(low, "make: ") || strncmp(low, "failed: ", 8) == 0;
}

bool explain_numbers_readable(enum explain_region r, const char *low)
{
	if (r == REGION_BUILD || r == REGION_INSTALL || r == REGION_CONTAINER)
		return false;
	return !build_tool_line(low);
}
