/* A fake libamdhip64 for the AMD tests: hipRuntimeGetVersion gives FAKE_HIP_VERSION (default
 * 60443483, ROCm 6.4's HIP), hipGetDeviceCount FAKE_HIP_DEVICES (default 1), or fails with
 * hipError_t FAKE_HIP_ERROR when that is set (100: hipErrorNoDevice). */
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : dflt;
}

EXPORT int hipRuntimeGetVersion(int *v)
{
	*v = env_int("FAKE_HIP_VERSION", 60443483);
	return 0;
}

EXPORT int hipGetDeviceCount(int *n)
{
	int err = env_int("FAKE_HIP_ERROR", 0);
	*n = err ? 0 : env_int("FAKE_HIP_DEVICES", 1);
	return err;
}
