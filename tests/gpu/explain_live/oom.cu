// Asks for FRACTION (argv[1], default 2.0) of the GPU's total memory in one cudaMalloc.
#include "common.h"
int main(int argc, char **argv)
{
	size_t free_b, total;
	double frac = argc > 1 ? atof(argv[1]) : 2.0;
	void *p;
	CHECK(cudaMemGetInfo(&free_b, &total));
	CHECK(cudaMalloc(&p, (size_t)(total * frac)));
	printf("allocated %.1f GiB\n", total * frac / (1 << 30));
	return 0;
}
