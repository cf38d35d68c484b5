// A 4-byte load from an address one byte off: misaligned address (716).
#include "common.h"
__global__ void load(const char *p, int *out) { *out = *(const int *)(p + 1); }
int main()
{
	char *p;
	int *out;
	CHECK(cudaMalloc(&p, 64));
	CHECK(cudaMalloc(&out, sizeof(int)));
	load<<<1, 1>>>(p, out);
	CHECK(cudaDeviceSynchronize());
	return 0;
}
