/* libFuzzer harness: kernel resources of a cubin (binfmt/cubin_attrs.c) on arbitrary bytes,
 * each kernel then judged for a 1024-thread block (rules/arch_launch.c).
 * Then the input as a file through `cudoctor --json arch --kernels --resources`
 * (fuzz_report.h): the whole report, text and JSON. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_report.h"
#include "binfmt/cubin_attrs.h"
#include "rules/arch_launch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const words[] = { "--gpu", "9.0", "--gpu", "8.6", "--driver", "550.54.14",
					     "--kernels", "--resources", NULL };
	const struct kb_sm_limits lim = { .arch = 90, .max_threads_per_block = 1024, .max_warps_per_sm = 64,
					  .max_blocks_per_sm = 32, .regs_per_sm = 65536,
					  .max_regs_per_block = 65536, .max_regs_per_thread = 255,
					  .reg_alloc_unit = 256 };
	struct cubin_resources r;
	char err[256];
	uint64_t total = 0;
	fuzz_command_report(&cmd_arch, NULL, words, data, size);

	if (cubin_resources_read(data, size, &r, err) != 0)
		return 0;
	for (size_t i = 0; i < r.n; i++) {
		struct launch_fit f;

		launch_fit_judge(&r.k[i], &lim, 1024, &f);
		total += f.largest + r.k[i].static_shared + r.k[i].name[0];
	}
	cubin_resources_free(&r);
	return total == UINT64_MAX;
}
