/* A libcuda.so.1 for the fleet's fault tests: cuInit never returns (STUCK_CUDA=hang), or
 * after STUCK_CUDA_DELAY seconds (default 0) exits the process (STUCK_CUDA=exit: a rank
 * that dies without MPI_Finalize). The test builds it with cc -shared; every other entry
 * point is absent, as in a broken driver. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((visibility("default"))) int cuInit(unsigned flags)
{
	const char *how = getenv("STUCK_CUDA");

	(void)flags;
	if (how && strcmp(how, "hang") == 0)
		for (;;)
			pause();
	if (getenv("STUCK_CUDA_DELAY"))
		sleep((unsigned)atoi(getenv("STUCK_CUDA_DELAY")));
	_exit(7);
}

__attribute__((visibility("default"))) int cuDriverGetVersion(int *v)
{
	*v = 13000;
	return 0;
}
