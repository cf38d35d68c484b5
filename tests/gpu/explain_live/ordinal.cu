// Selects a GPU index that does not exist (101, invalid device ordinal).
#include "common.h"
int main()
{
	CHECK(cudaSetDevice(99));
	void *p;
	CHECK(cudaMalloc(&p, 16));
	return 0;
}
