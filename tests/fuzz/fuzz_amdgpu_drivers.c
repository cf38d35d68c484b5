/* The amdgpu driver window's loader on arbitrary text (kb/amd_driver.c): the input replaces
 * amdgpu_drivers.tsv, then module versions and ROCm releases, well-formed and not, are looked up
 * in what loaded. A bad table must be refused with a message, never crash or half-load. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kb/amd_driver.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const modules[] = {"6.16.13", "6.12.12\n", "6.8.5.60200", "6.8", "", "6..1", "999999999999.1.1"};
	static const char *const rocm[] = {"6.4.1-120", "7.14.0", "10.0", "7", "", ".1", "6.4x"};
	struct kb_blob b = {"amdgpu_drivers.tsv", data, size};
	char err[CD_ERRMSG];

	if (kb_amdgpu_load_blob(&b, err) != CD_OK)
		return 0;
	for (size_t i = 0; i < kb_amdgpu_driver_count(); i++)
		for (size_t k = 0; k < sizeof rocm / sizeof rocm[0]; k++)
			(void)kb_amdgpu_supports(kb_amdgpu_driver_at(i), rocm[k]);
	for (size_t i = 0; i < sizeof modules / sizeof modules[0]; i++)
		(void)kb_amdgpu_driver_of_module(modules[i]);
	return 0;
}
