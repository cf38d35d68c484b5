// assert() in a kernel: device-side assert triggered (710).
#include <cassert>
#include "common.h"
__global__ void check(int n) { assert(n < 0); }
int main()
{
	check<<<1, 1>>>(1);
	CHECK(cudaDeviceSynchronize());
	return 0;
}
