// A kernel that reads memory freed before the launch; run under compute-sanitizer, which
// reports the invalid global read.
#include "common.h"
__global__ void use(const int *p, int *out) { *out = p[threadIdx.x]; }
int main()
{
	int *p, *out;
	CHECK(cudaMalloc(&p, 1 << 20));
	CHECK(cudaMalloc(&out, sizeof(int)));
	CHECK(cudaFree(p));
	use<<<1, 32>>>(p, out);
	CHECK(cudaDeviceSynchronize());
	return 0;
}
