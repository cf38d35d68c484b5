// A write far outside every allocation: an illegal address (700), reported at the sync.
#include "common.h"
__global__ void poke(int *p) { p[threadIdx.x + (1ull << 36)] = 1; }
int main()
{
	int *d;
	CHECK(cudaMalloc(&d, 1024));
	poke<<<1, 32>>>(d);
	CHECK(cudaDeviceSynchronize());
	return 0;
}
