// Holds FRACTION (argv[1]) of the GPU's memory until stdin closes: the "other process".
#include <unistd.h>
#include "common.h"
int main(int argc, char **argv)
{
	size_t free_b, total;
	void *p;
	CHECK(cudaMemGetInfo(&free_b, &total));
	CHECK(cudaMalloc(&p, (size_t)(total * atof(argv[1]))));
	printf("holding\n");
	fflush(stdout);
	char c;
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
