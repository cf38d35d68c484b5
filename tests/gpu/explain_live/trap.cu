// __trap() in a kernel: the kernel stops with an exception (unspecified launch failure or
// illegal instruction, by driver).
#include "common.h"
__global__ void stop() { __trap(); }
int main()
{
	stop<<<1, 1>>>();
	CHECK(cudaDeviceSynchronize());
	return 0;
}
