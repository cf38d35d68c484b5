/* Registry values where there is no registry: none can be read (WSL2 included: Windows' registry
 * is not visible from inside it). */
#ifndef _WIN32
#include "os/registry.h"

#include <errno.h>
#include <stdlib.h>

int os_registry_hklm_dword(const char *subkey, const char *name, unsigned long *out)
{
	(void)subkey;
	(void)name;
	(void)out;
	return -ENOSYS;
}

int os_registry_subkeys(enum os_hive hive, const char *subkey, size_t max, char ***names, size_t *n)
{
	(void)hive;
	(void)subkey;
	(void)max;
	*names = NULL;
	*n = 0;
	return -ENOSYS;
}

void os_registry_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int os_registry_string(enum os_hive hive, const char *subkey, const char *name, char *out, size_t cap)
{
	(void)hive;
	(void)subkey;
	(void)name;
	if (cap)
		out[0] = '\0';
	return -ENOSYS;
}
#endif
