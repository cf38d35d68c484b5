/* The lab kernels embedded in the binary: a well-formed fatbin with SASS for sm_90,
 * SASS for every arch the build's nvcc lists (for the default -arch=all build) and
 * PTX for the newest of them, as `cudoctor arch $(which cudoctor)` will show. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/fatbin.h"

enum { MAXE = 256 };
struct entry {
	unsigned kind, arch;
};

static uint32_t rd32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* A walk of the container and entry headers (docs/reference/fatbin.md §2.5), with
 * every size checked against the end; returns the entry count or -1 if malformed. */
static int walk(const unsigned char *d, size_t size, struct entry *e)
{
	size_t pos = 0;
	int n = 0;
	while (pos + 16 <= size) {
		if (rd32(d + pos) != 0xBA55ED50u || (rd32(d + pos + 4) >> 16) != 16)
			return -1;
		uint64_t fat = rd64(d + pos + 8);
		if (fat > size - pos - 16)
			return -1;
		size_t end = pos + 16 + fat, at = pos + 16;
		while (at < end) {
			if (at + 64 > end)
				return -1;
			uint32_t hsz = rd32(d + at + 4);
			uint64_t psz = rd64(d + at + 8);
			if (hsz < 64 || hsz > end - at || psz > end - at - hsz)
				return -1;
			if (n < MAXE)
				e[n++] = (struct entry){ d[at] | (unsigned)d[at + 1] << 8, rd32(d + at + 28) };
			at += hsz + psz;
		}
		pos = end;
	}
	return n;
}

static bool has(const struct entry *e, int n, unsigned kind, unsigned arch)
{
	for (int i = 0; i < n; i++)
		if (e[i].kind == kind && e[i].arch == arch)
			return true;
	return false;
}

static void test_embedded_fatbin(void **state)
{
	(void)state;
#if !CUDOCTOR_HAVE_KERNELS
	assert_int_equal(lab_fatbin_size, 0);
	skip();
#else
	struct entry e[MAXE];
	assert_true(lab_fatbin_size > 64);
	int n = walk(lab_fatbin, lab_fatbin_size, e);
	assert_true(n > 0);
	assert_true(has(e, n, 2, 90)); /* SASS for the H200 */
	unsigned max_elf = 0, n_elf = 0, n_ptx = 0, ptx_arch = 0;
	for (int i = 0; i < n; i++) {
		if (e[i].kind == 2) {
			n_elf++;
			max_elf = e[i].arch > max_elf ? e[i].arch : max_elf;
		} else if (e[i].kind == 1) {
			n_ptx++;
			ptx_arch = e[i].arch;
		}
	}
	assert_int_equal(n_ptx, 1);
	/* PTX of the newest generation only (nvcc 13's -arch=all picks compute_120 next to sm_121) */
	assert_int_equal(ptx_arch / 10, max_elf / 10);
#ifdef CUDOCTOR_NVCC
	if (n_elf > 1) {
		/* -arch=all: one SASS entry per arch this nvcc lists */
		FILE *p = popen(CUDOCTOR_NVCC " --list-gpu-arch 2>/dev/null", "r");
		assert_non_null(p);
		char line[64];
		unsigned listed = 0;
		while (fgets(line, sizeof line, p)) {
			unsigned arch;
			if (sscanf(line, "compute_%u", &arch) == 1) {
				listed++;
				assert_true(has(e, n, 2, arch));
			}
		}
		pclose(p);
		assert_int_equal(listed, n_elf);
	}
#endif
#endif
}

static void test_walk_rejects_truncation(void **state)
{
	(void)state;
#if CUDOCTOR_HAVE_KERNELS
	struct entry e[MAXE];
	unsigned char *copy = malloc(lab_fatbin_size);
	assert_non_null(copy);
	memcpy(copy, lab_fatbin, lab_fatbin_size);
	assert_int_equal(walk(copy, lab_fatbin_size - 8, e), -1);
	copy[0] ^= 1;
	assert_int_equal(walk(copy, lab_fatbin_size, e), -1);
	free(copy);
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_embedded_fatbin),
		cmocka_unit_test(test_walk_rejects_truncation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
