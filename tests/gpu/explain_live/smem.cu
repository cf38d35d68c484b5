// Dynamic shared memory above the 48 KiB a kernel gets without opting in through
// cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize): the launch fails.
#include "common.h"
__global__ void stage(float *out)
{
	extern __shared__ float buf[];
	buf[threadIdx.x] = (float)threadIdx.x;
	__syncthreads();
	out[threadIdx.x] = buf[threadIdx.x];
}
int main()
{
	float *d;
	CHECK(cudaMalloc(&d, 256 * sizeof(float)));
	stage<<<1, 256, 96 * 1024>>>(d);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	printf("ok\n");
	return 0;
}
