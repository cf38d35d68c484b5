/* os/dl.h on Win32: LoadLibraryExW. The driver's DLLs (nvcuda.dll, nvml.dll) are loaded from
 * System32 alone: the current folder and PATH are where anyone could put a DLL of that name. */
#include "os/dl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "os/win32.h"

static void say_why(const char *name, char *why, size_t cap)
{
	DWORD e = GetLastError();
	wchar_t msg[512];
	char text[1024] = "";

	if (!cap)
		return;
	if (FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0, msg,
			   sizeof msg / sizeof msg[0], NULL))
		os_w_to_utf8(msg, text, sizeof text);
	text[strcspn(text, "\r\n")] = '\0';
	snprintf(why, cap, "%s: %s (Windows error %lu)", name, text[0] ? text : "cannot load", (unsigned long)e);
}

void *os_dl_open(const char *name, enum os_dl_search search, char *why, size_t cap)
{
	wchar_t *w = os_w_from_utf8(name);
	DWORD flags;
	HMODULE h;

	if (!w) {
		if (cap)
			snprintf(why, cap, "%s: not a valid file name", name);
		return NULL;
	}
	if (search == OS_DL_SYSTEM)
		flags = LOAD_LIBRARY_SEARCH_SYSTEM32;
	else if (os_dl_is_path(name))
		flags = LOAD_WITH_ALTERED_SEARCH_PATH; /* its own DLLs beside it, as a program's are */
	else
		flags = 0;
	h = LoadLibraryExW(w, NULL, flags);
	free(w);
	if (!h)
		say_why(name, why, cap);
	return (void *)h;
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
