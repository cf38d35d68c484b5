// A launch on a stream already destroyed: invalid resource handle (400).
#include "common.h"
__global__ void nop() {}
int main()
{
	cudaStream_t s;
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaStreamDestroy(s));
	nop<<<1, 1, 0, s>>>();
	CHECK(cudaGetLastError());
	CHECK(cudaStreamSynchronize(s));
	return 0;
}
