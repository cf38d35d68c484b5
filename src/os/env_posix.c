/* os/env.h on POSIX: the environment is bytes, UTF-8 by convention. */
#include "os/env.h"

#include <errno.h>
#include <stdlib.h>

void os_args_utf8(int *argc, char ***argv)
{
	(void)argc, (void)argv;
}

const char *os_getenv(const char *name)
{
	return getenv(name);
}

int os_setenv(const char *name, const char *value)
{
	return setenv(name, value, 1) != 0 ? -errno : 0;
}

char os_path_list_sep(void)
{
	return ':';
}
