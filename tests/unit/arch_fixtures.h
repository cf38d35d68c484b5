/* Shared by the arch tests: locating the nvcc-built fixtures (tests/fixtures/build.sh) and
 * skipping, with a message, where nvcc was not found at build time. */
#ifndef CUDOCTOR_TEST_ARCH_FIXTURES_H
#define CUDOCTOR_TEST_ARCH_FIXTURES_H

#include <stdio.h>
#include <unistd.h>

#include "util/file.h"

#ifndef CUDOCTOR_FIXTURES_DIR
#define CUDOCTOR_FIXTURES_DIR "build/fixtures"
#endif
#define ARCH_FIXTURES CUDOCTOR_FIXTURES_DIR "/arch"

/* Maps fixture NAME or skips the test (cmocka's skip() returns from the test). */
#define MAP_FIXTURE_OR_SKIP(name, mf)                                                              \
	do {                                                                                       \
		char err_[256];                                                                    \
		if (access(ARCH_FIXTURES "/" name, R_OK) != 0) {                                   \
			fprintf(stderr, "skipping: fixture %s/%s missing (nvcc was not found when "  \
					"the build was configured)\n", ARCH_FIXTURES, name);       \
			skip();                                                                    \
		}                                                                                  \
		assert_int_equal(file_map(ARCH_FIXTURES "/" name, (mf), err_), 0);                 \
	} while (0)

/* A real CUDA library of this machine, or skip. */
#define MAP_LIBRARY_OR_SKIP(path, mf)                                                              \
	do {                                                                                       \
		char err_[256];                                                                    \
		if (access(path, R_OK) != 0) {                                                     \
			fprintf(stderr, "skipping: %s not installed here\n", path);                \
			skip();                                                                    \
		}                                                                                  \
		assert_int_equal(file_map(path, (mf), err_), 0);                                   \
	} while (0)

#endif
