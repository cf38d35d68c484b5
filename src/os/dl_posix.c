/* os/dl.h on POSIX: dlopen. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "os/dl.h"
#include "os/sys.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* dlopen itself is os/sys.h's entry (sys_posix.c) */
void *os_dl_open(const char *name, enum os_dl_search search, char *why, size_t cap)
{
	return os_sys.dl_open(name, search, why, cap);
}

void *os_dl_sym(void *lib, const char *name)
{
	return lib ? dlsym(lib, name) : NULL;
}

void os_dl_close(void *lib)
{
	if (lib)
		dlclose(lib);
}

bool os_dl_path(void *lib, void *sym, char *out, size_t cap)
{
	Dl_info info;

	(void)lib;
	if (!sym || !dladdr(sym, &info) || !info.dli_fname || info.dli_fname[0] != '/')
		return false;
	return (size_t)snprintf(out, cap, "%s", info.dli_fname) < cap;
}

bool os_dl_is_path(const char *name)
{
	return strchr(name, '/') != NULL;
}
