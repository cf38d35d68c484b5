/* os/sys.h on Win32: the table's entries are _read, _write, _wopen, a file mapping's view,
 * CreateThread and LoadLibraryExW, each once, with no retry and no policy: the os/ function
 * above decides. The driver's DLLs (nvcuda.dll, nvml.dll) are loaded from System32 alone: the
 * current folder and PATH are where anyone could put a DLL of that name. */
#include "os/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "os/win32.h"

_Static_assert(sizeof(HANDLE) <= sizeof(((struct os_thread *)0)->handle), "a HANDLE fits a handle");

static long long real_read(int fd, void *buf, size_t n)
{
	int r = _read(fd, buf, n > 0x40000000u ? 0x40000000u : (unsigned)n);

	return r < 0 ? -errno : r;
}

static long long real_write(int fd, const void *buf, size_t n)
{
	int r = _write(fd, buf, n > 0x40000000u ? 0x40000000u : (unsigned)n);

	return r < 0 ? -errno : r;
}

static int real_open(const char *path, int oflags, unsigned mode)
{
	wchar_t *w = os_w_from_utf8(path);
	int fd;

	if (!w)
		return -ENOENT;
	fd = _wopen(w, oflags, (int)mode);
	fd = fd < 0 ? -errno : fd;
	free(w);
	return fd;
}

static int real_map(int fd, size_t size, void **p)
{
	HANDLE file = (HANDLE)_get_osfhandle(fd), map;
	void *v;

	if (file == INVALID_HANDLE_VALUE)
		return -EBADF;
	map = CreateFileMappingW(file, NULL, PAGE_READONLY, 0, 0, NULL);
	if (!map)
		return os_w_errno();
	v = MapViewOfFile(map, FILE_MAP_READ, 0, 0, size);
	CloseHandle(map); /* the view keeps the mapping alive */
	if (!v)
		return os_w_errno();
	*p = v;
	return 0;
}

static DWORD WINAPI trampoline(LPVOID arg)
{
	struct os_thread *t = arg;

	t->fn(t->arg);
	return 0;
}

static int real_thread_start(struct os_thread *t)
{
	HANDLE h = CreateThread(NULL, 0, trampoline, t, 0, NULL);

	if (!h)
		return os_w_errno();
	memcpy(t->handle, &h, sizeof h);
	return 0;
}

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

static void *real_dl_open(const char *name, enum os_dl_search search, char *why, size_t cap)
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

#define REAL_CALLS                                                                                     \
	{                                                                                              \
		.read = real_read, .write = real_write, .open = real_open, .map = real_map,            \
		.thread_start = real_thread_start, .dl_open = real_dl_open,                            \
	}

const struct os_sys os_sys_real = REAL_CALLS;
struct os_sys os_sys = REAL_CALLS;
