// Shared by the explain live tests: print a CUDA error the way most programs do.
#include <cstdio>
#include <cstdlib>
#define CHECK(call)                                                                              \
	do {                                                                                     \
		cudaError_t e_ = (call);                                                         \
		if (e_ != cudaSuccess) {                                                         \
			fprintf(stderr, "CUDA error %d (%s) at %s:%d: %s\n", (int)e_, cudaGetErrorName(e_), \
				__FILE__, __LINE__, cudaGetErrorString(e_));                   \
			exit(1);                                                                 \
		}                                                                                \
	} while (0)
