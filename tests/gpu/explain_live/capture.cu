// A synchronisation inside a stream capture: operation not permitted when stream is capturing (900).
#include "common.h"
__global__ void nop() {}
int main()
{
	cudaStream_t s;
	cudaGraph_t g;
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	nop<<<1, 1, 0, s>>>();
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaStreamEndCapture(s, &g));
	return 0;
}
