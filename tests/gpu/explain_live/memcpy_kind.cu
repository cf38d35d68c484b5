// cudaMemcpy with a kind that is not a cudaMemcpyKind: invalid copy direction (21).
#include "common.h"
int main()
{
	int *d, h = 0;
	CHECK(cudaMalloc(&d, sizeof(int)));
	CHECK(cudaMemcpy(&h, d, sizeof(int), (cudaMemcpyKind)7));
	return 0;
}
