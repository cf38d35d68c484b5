/* Registry values where there is no registry: none can be read (WSL2 included: Windows' registry
 * is not visible from inside it). */
#ifndef _WIN32
#include "os/registry.h"

#include <errno.h>

int os_registry_hklm_dword(const char *subkey, const char *name, unsigned long *out)
{
	(void)subkey;
	(void)name;
	(void)out;
	return -ENOSYS;
}
#endif
