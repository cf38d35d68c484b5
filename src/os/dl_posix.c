/* os/dl.h on POSIX: dlopen. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "os/dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void *os_dl_open(const char *name, enum os_dl_search search, char *why, size_t cap)
{
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	(void)search; /* the dynamic loader's own search is the system's */
	if (!h && cap) {
		e = dlerror();
		snprintf(why, cap, "%s", e ? e : "cannot load");
	}
	return h;
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
