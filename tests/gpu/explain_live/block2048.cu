// 2048 threads per block: above every GPU's 1024 (9, invalid configuration argument).
#include "common.h"
__global__ void nop(int *p) { if (p) p[0] = 0; }
int main()
{
	nop<<<1, 2048>>>(nullptr);
	CHECK(cudaGetLastError());
	return 0;
}
