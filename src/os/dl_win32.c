/* os/dl.h on Win32: LoadLibraryExW through os/sys.h (sys_win32.c), GetProcAddress and the
 * module's file name. */
#include "os/dl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "os/sys.h"
#include "os/win32.h"

/* LoadLibraryExW itself is os/sys.h's entry (sys_win32.c) */
void *os_dl_open(const char *name, enum os_dl_search search, char *why, size_t cap)
{
	return os_sys.dl_open(name, search, why, cap);
}

void *os_dl_sym(void *lib, const char *name)
{
	FARPROC p = lib ? GetProcAddress((HMODULE)lib, name) : NULL;
	void *v;

	memcpy(&v, &p, sizeof v);
	return v;
}

void os_dl_close(void *lib)
{
	if (lib)
		FreeLibrary((HMODULE)lib);
}

bool os_dl_path(void *lib, void *sym, char *out, size_t cap)
{
	wchar_t w[32768];
	DWORD n;

	(void)sym;
	if (!lib)
		return false;
	n = GetModuleFileNameW((HMODULE)lib, w, sizeof w / sizeof w[0]);
	return n > 0 && n < sizeof w / sizeof w[0] && os_w_to_utf8(w, out, cap);
}

bool os_dl_is_path(const char *name)
{
	return strchr(name, '/') || strchr(name, '\\') || strchr(name, ':');
}
