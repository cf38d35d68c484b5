/* libFuzzer harness: a binary's own CUDA runtime (binfmt/elf_needed.c's DT_NEEDED entries,
 * rules/driver_need.c's static-runtime release) on arbitrary bytes, judged against a driver. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "binfmt/elf.h"
#include "binfmt/elf_needed.h"
#include "report/report.h"
#include "rules/driver_need.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct runtime_need n;
	struct arch_target t;
	struct arch_driver *dp = &t.driver;
	struct elf_file e;
	const char *names[8];
	struct report r;
	char err[256];
	struct driver_need_verdict v;
	size_t total = 0;

	if (elf_open(&e, data, size, err) == 0) {
		size_t k = elf_needed(&e, names, 8);

		for (size_t i = 0; i < k && i < 8; i++)
			total += strlen(names[i]);
	}
	runtime_need_of(data, size, &n);
	arch_target_init(&t);
	dp->known = true;
	dp->cuda = 12020;
	snprintf(dp->version, sizeof(dp->version), "535.104");
	t.gpus[0].cc = 61;
	snprintf(t.gpus[0].name, sizeof(t.gpus[0].name), "NVIDIA GeForce GTX 1080");
	t.n_gpus = 1;
	if (report_init(&r, "fuzz") == 0) {
		v = driver_need_verdict(&n, dp);
		driver_need_finding(&r, "input", &n, &t, &v);
		report_free(&r);
	}
	return total == (size_t)-1;
}
