/* Parsers for the small texts that carry versions: a toolkit's version.json and
 * version.txt, `nvcc --version`, /proc/driver/nvidia/version, torch/version.py,
 * dist-info directory names and library file names. All take untrusted text. */
#ifndef CUDOCTOR_PROBE_VERTEXT_H
#define CUDOCTOR_PROBE_VERTEXT_H

#include <stdbool.h>
#include <stddef.h>

/* version.json (CUDA 11.1+): the "version" of component ("cuda", "cuda_nvcc",
 * "cuda_cudart") into out. CD_ENOTFOUND when absent, CD_EFORMAT when not JSON. */
int vt_version_json(const char *text, size_t len, const char *component, char *out, size_t n);

/* version.txt (CUDA <= 11.0): "CUDA Version 10.2.89" */
int vt_version_txt(const char *text, size_t len, char *out, size_t n);

/* `nvcc --version`: "Cuda compilation tools, release 13.0, V13.0.88" -> "13.0.88"
 * (or "13.0" when only the release is there). */
int vt_nvcc_version(const char *text, size_t len, char *out, size_t n);

/* /proc/driver/nvidia/version: "NVRM version: NVIDIA UNIX ... Kernel Module  580.159.04  ..."
 * -> "580.159.04"; *open_module set when it is the open kernel module. */
int vt_proc_driver_version(const char *text, size_t len, char *out, size_t n, bool *open_module);

struct torch_version_py {
	char version[64];  /* __version__ */
	char cuda[64];     /* "" when cuda = None */
	bool has_cuda_line;
	char hip[64];
};

/* torch/version.py: __version__ = '2.5.1+cu124' and cuda: Optional[str] = '12.4' (or
 * the older `cuda = '11.8'`, or None). CD_EFORMAT when __version__ is missing. */
int vt_torch_version_py(const char *text, size_t len, struct torch_version_py *out);

/* "nvidia_cuda_runtime_cu12-12.4.127.dist-info" -> pkg "nvidia_cuda_runtime_cu12",
 * version "12.4.127". CD_EFORMAT for anything else. */
int vt_dist_info_name(const char *name, char *pkg, size_t pkg_n, char *ver, size_t ver_n);

/* METADATA: the "Version: " header line. */
int vt_metadata_version(const char *text, size_t len, char *out, size_t n);

/* File name with a version after the soname stem: ("libcudart.so.12.4.127",
 * "libcudart.so.") -> "12.4.127"; ("libcuda.so.580.159.04", "libcuda.so.") ->
 * "580.159.04". Only digits and dots count; CD_ENOTFOUND otherwise. */
int vt_soname_suffix(const char *file, const char *stem, char *out, size_t n);

/* cuda_runtime_api.h: "#define CUDART_VERSION 13000" -> 13000 */
int vt_cudart_header(const char *text, size_t len, int *version);

#endif
