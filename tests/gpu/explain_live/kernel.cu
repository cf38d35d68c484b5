// A plain kernel launch: built for a GPU that is not this one, or as PTX only.
#include "common.h"
__global__ void fill(int *p) { p[threadIdx.x] = threadIdx.x; }
int main()
{
	int *d;
	CHECK(cudaMalloc(&d, 1024 * sizeof(int)));
	fill<<<1, 256>>>(d);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	printf("ok\n");
	return 0;
}
