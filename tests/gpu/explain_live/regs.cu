// A kernel built to use ~200 registers per thread, launched with 1024 threads: more than the
// 64K registers a block may have (701, too many resources requested for launch).
#include "common.h"
__global__ void heavy(float *out, const float *in)
{
	float acc[160];
#pragma unroll
	for (int i = 0; i < 160; i++)
		acc[i] = in[(threadIdx.x + i) & 1023] * (i + 1);
#pragma unroll
	for (int r = 0; r < 8; r++)
#pragma unroll
		for (int i = 0; i < 160; i++)
			acc[i] = acc[i] * acc[(i + 1) % 160] + in[(i * 7 + r) & 1023];
	float s = 0;
#pragma unroll
	for (int i = 0; i < 160; i++)
		s += acc[i];
	out[threadIdx.x] = s;
}
int main()
{
	float *a, *b;
	CHECK(cudaMalloc(&a, 4096 * sizeof(float)));
	CHECK(cudaMalloc(&b, 4096 * sizeof(float)));
	heavy<<<1, 1024>>>(a, b);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	return 0;
}
