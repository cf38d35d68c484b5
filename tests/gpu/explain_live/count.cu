// Counts the GPUs: with CUDA_VISIBLE_DEVICES naming none, 100 (no CUDA-capable device).
#include "common.h"
int main()
{
	int n = 0;
	CHECK(cudaGetDeviceCount(&n));
	printf("%d GPUs\n", n);
	return 0;
}
