/* The frameworks' device-code places under a site-packages (fw_files.h) and their walk. Only
 * names are listed here; the callers read the files' headers. */
#include "probe/fw_files.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "probe/paths.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"

/* Checked against the file lists of the Linux x86_64 and Windows win_amd64 wheels on PyPI
 * (test_fw_wheel_layouts.c names the releases): only the files that carry device code, so
 * doctor and arch read no CPU-only library. A Windows place is the same name as a .dll or .pyd
 * (the prefix forms match both): torch's CUDA builds for Windows are on PyTorch's own index,
 * whose torch_cuda.dll (torch_cuda_cu.dll and torch_cuda_cpp.dll in 1.11-1.13) is the Linux
 * libtorch_cuda.so without "lib". llama-cpp-python and flash-attn publish no CUDA wheel there
 * (their own indexes and GitHub releases do); their places follow those builds' layout. */
static const struct fw_files_row table[] = {
	/* libtorch_hip.so: the ROCm build's (download.pytorch.org/whl/rocmX.Y) */
	{ .fw = "torch", .version_file = "torch/version.py",
	  .where = { "torch/lib/libtorch_cuda.so", "torch/lib/libtorch_cuda_cu.so", "torch/lib/libtorch_cuda_cpp.so",
		     "torch/lib/torch_cuda*", "torch/lib/libtorch_hip.so" } },
	/* the kernels of XLA itself are in the PJRT plug-in, a distribution the plug-in requires */
	{ .fw = "jax-cuda12-plugin", .where = { "jax_cuda12_plugin/_linalg*", "jax_cuda12_plugin/_prng*",
						"jax_cuda12_plugin/_solver*", "jax_plugins/xla_cuda12/xla_cuda_plugin*" } },
	{ .fw = "jax-cuda13-plugin", .where = { "jax_cuda13_plugin/_linalg*", "jax_cuda13_plugin/_prng*",
						"jax_cuda13_plugin/_solver*", "jax_plugins/xla_cuda13/xla_cuda_plugin*" } },
	/* JAX's ROCm plug-ins: HIP offload bundles, plain (rocm60) or compressed with generic targets (rocm7) */
	{ .fw = "jax-rocm60-plugin", .where = { "jax_rocm60_plugin/_blas*", "jax_rocm60_plugin/_linalg*",
						"jax_rocm60_plugin/_prng*", "jax_rocm60_plugin/_solver*",
						"jax_plugins/xla_rocm60/xla_rocm_plugin*" } },
	{ .fw = "jax-rocm7-plugin", .where = { "jax_rocm7_plugin/_linalg*", "jax_rocm7_plugin/_prng*",
					       "jax_rocm7_plugin/_solver*", "jax_plugins/xla_rocm7/xla_rocm_plugin*" } },
	{ .fw = "tensorflow", .where = { "tensorflow/libtensorflow_cc.so.2", "tensorflow/libtensorflow_framework.so.2",
					 "tensorflow/python/lib_pywrap_tensorflow_common*",
					 "tensorflow/python/profiler/internal/_pywrap_profiler_plugin*" } },
	{ .fw = "cupy-cuda11x", .where = { "cupy/cuda/cub*", "cupy/cuda/thrust*", "cupy/random/_generator_api*" } },
	{ .fw = "cupy-cuda12x", .where = { "cupy/cuda/cub*", "cupy/cuda/thrust*", "cupy/random/_generator_api*" } },
	{ .fw = "cupy-cuda13x", .where = { "cupy/cuda/cub*", "cupy/cuda/thrust*", "cupy/random/_generator_api*" } },
	{ .fw = "cupy-rocm-5-0", .where = { "cupy/cuda/cub*", "cupy/cuda/thrust*", "cupy/random/_generator_api*" } },
	{ .fw = "cupy-rocm-4-3", .where = { "cupy/cuda/cub*", "cupy/cuda/thrust*", "cupy/random/_generator_api*" } },
	{ .fw = "onnxruntime-gpu", .where = { "onnxruntime/capi/libonnxruntime_providers_cuda.so",
					      "onnxruntime/capi/onnxruntime_providers_cuda.dll" } },
	{ .fw = "ctranslate2", .where = { "ctranslate2.libs/libctranslate2*", "ctranslate2/ctranslate2.dll" } },
	{ .fw = "llama-cpp-python", .where = { "llama_cpp/lib/" } },
	/* one library per CUDA and per ROCm release (libbitsandbytes_rocm72.so) */
	{ .fw = "bitsandbytes", .alternatives = true,
	  .where = { "bitsandbytes/libbitsandbytes_cuda*", "bitsandbytes/libbitsandbytes_rocm*" } },
	{ .fw = "xformers", .where = { "xformers/_C*" } },
	{ .fw = "flash-attn", .where = { "flash_attn_2_cuda*", "flash_attn_3_cuda*" } },
	/* its extensions are the names that start with '_' (cumem_allocator, fs_io_C carry none) */
	{ .fw = "vllm", .where = { "vllm/_*", "vllm/vllm_flash_attn/" } },
};

const struct fw_files_row *fw_files_table(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

const struct fw_files_row *fw_files_row(const char *fw)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(table[i].fw, fw) == 0)
			return &table[i];
	return NULL;
}

static bool is_module(const char *name, void *arg)
{
	const char *prefix = arg;

	return str_is_module_name(name) && (!prefix || str_starts_with(name, prefix));
}

/* The shared objects in dir (those whose names start with prefix, when given), by name. */
static int each_in_dir(const char *dir, const char *prefix, int (*fn)(const char *, void *), void *arg)
{
	char **names, path[PROBE_PATH];
	size_t n;
	int rc = CD_OK;

	if (!path_is_dir(dir))
		return CD_OK;
	if (dir_names(dir, is_module, (void *)prefix, &names, &n) != CD_OK)
		return CD_ENOMEM;
	for (size_t i = 0; i < n && rc == CD_OK; i++)
		if (path_join(path, sizeof path, dir, names[i]) == CD_OK && path_is_file(path))
			rc = fn(path, arg);
	names_free(names, n);
	return rc;
}

int fw_files_each(const struct fw_files_row *row, const char *site, int (*fn)(const char *path, void *arg),
		  void *arg)
{
	int rc = CD_OK;

	for (size_t w = 0; w < FW_FILES_WHERE && row->where[w] && rc == CD_OK; w++) {
		const char *rel = row->where[w];
		size_t len = strlen(rel);
		char path[PROBE_PATH], prefix[64];

		if (len && rel[len - 1] == '*') {
			const char *slash = memrchr(rel, '/', len);
			size_t dl = slash ? (size_t)(slash - rel) : 0;
			char dir[PROBE_PATH];

			snprintf(prefix, sizeof prefix, "%.*s", (int)(len - 1 - (slash ? dl + 1 : 0)), slash ? slash + 1 : rel);
			snprintf(path, sizeof path, "%.*s", (int)dl, rel);
			if (!slash)
				rc = each_in_dir(site, prefix, fn, arg);
			else if (path_join(dir, sizeof dir, site, path) == CD_OK)
				rc = each_in_dir(dir, prefix, fn, arg);
		} else if (path_join(path, sizeof path, site, rel) == CD_OK) {
			if (len && rel[len - 1] == '/')
				rc = each_in_dir(path, NULL, fn, arg);
			else if (path_is_file(path))
				rc = fn(path, arg);
		}
	}
	return rc;
}
