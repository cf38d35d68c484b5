/* NVIDIA's libraries by file name: the pip wheel of each library family, for sonames and for
 * Windows DLL names alike. */
#include "kb/vendor_libs.h"

#include <string.h>
#include <strings.h>

#include "util/str.h"

const char *kb_vendor_wheel(const char *path)
{
	static const struct {
		const char *family, *wheel;
	} libs[] = {
		{ "cusparseLt", "nvidia-cusparselt" }, { "cublasLt", "nvidia-cublas" },	  { "cublas", "nvidia-cublas" },
		{ "cudnn", "nvidia-cudnn" },	       { "nccl", "nvidia-nccl" },	  { "cufft", "nvidia-cufft" },
		{ "cusolver", "nvidia-cusolver" },     { "cusparse", "nvidia-cusparse" }, { "curand", "nvidia-curand" },
		{ "nvrtc", "nvidia-cuda-nvrtc" },      { "nvJitLink", "nvidia-nvjitlink" }, { "cutensor", "cutensor" },
		{ "nvinfer", "tensorrt" },	       { "cudart", "nvidia-cuda-runtime" },
	};
	const char *base = strrchr(path, '/');
	bool dll;

	base = base ? base + 1 : path;
	dll = str_is_module_name(base) && !str_is_shared_object_name(base);
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		size_t n = strlen(libs[i].family);
		char next;

		if (!dll && strncmp(base, "lib", 3) == 0 && strncmp(base + 3, libs[i].family, n) == 0)
			return libs[i].wheel;
		if (dll && strncasecmp(base, libs[i].family, n) == 0 &&
		    ((next = base[n]) == '_' || next == '-' || next == '.' || (next >= '0' && next <= '9')))
			return libs[i].wheel;
	}
	return NULL;
}
