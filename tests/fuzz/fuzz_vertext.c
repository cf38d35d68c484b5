/* libFuzzer harness for the version text parsers (probe/vertext.c) and the
 * CUDA_VISIBLE_DEVICES parser (probe/platform.c). The first byte picks the parser. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/platform.h"
#include "probe/vertext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[64], pkg[96], *nul;
	const char *text;
	struct torch_version_py tv;
	struct visible_devices vd;
	bool open_module;
	int v;

	if (size < 1)
		return 0;
	text = (const char *)data + 1;
	size--;
	switch (data[0] % 9) {
	case 0: vt_version_json(text, size, "cuda", out, sizeof out); break;
	case 1: vt_version_txt(text, size, out, sizeof out); break;
	case 2: vt_nvcc_version(text, size, out, sizeof out); break;
	case 3: vt_proc_driver_version(text, size, out, sizeof out, &open_module); break;
	case 4: vt_torch_version_py(text, size, &tv); break;
	case 5: vt_metadata_version(text, size, out, sizeof out); break;
	case 6: vt_cudart_header(text, size, &v); break;
	default:
		/* the NUL-terminated parsers get a terminated copy */
		nul = malloc(size + 1);
		if (!nul)
			return 0;
		memcpy(nul, text, size);
		nul[size] = '\0';
		if (data[0] % 9 == 7) {
			vt_dist_info_name(nul, pkg, sizeof pkg, out, sizeof out);
			vt_soname_suffix(nul, "libcudart.so.", out, sizeof out);
		} else {
			visible_devices_parse(nul, &vd);
		}
		free(nul);
	}
	return 0;
}
