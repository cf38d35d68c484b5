/* win32.h: UTF-8 and UTF-16, Win32 errors as errno. */
#include "os/win32.h"

#include <errno.h>
#include <stdlib.h>
#include <windows.h>

wchar_t *os_w_from_utf8(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	wchar_t *w;

	if (n <= 0 || !(w = malloc((size_t)n * sizeof *w)))
		return NULL;
	if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
		free(w);
		return NULL;
	}
	return w;
}

int os_w_to_utf8(const wchar_t *w, char *out, size_t cap)
{
	int n;

	if (!cap)
		return 0;
	n = WideCharToMultiByte(CP_UTF8, 0, w, -1, out, (int)(cap > 0x7fffffff ? 0x7fffffff : cap), NULL, NULL);
	if (n <= 0) {
		out[0] = '\0';
		return 0;
	}
	return 1;
}

int os_w_errno(void)
{
	switch (GetLastError()) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
	case ERROR_BAD_NETPATH:
	case ERROR_MOD_NOT_FOUND:
		return -ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
	case ERROR_LOCK_VIOLATION:
		return -EACCES;
	case ERROR_FILE_EXISTS:
	case ERROR_ALREADY_EXISTS:
		return -EEXIST;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return -ENOMEM;
	case ERROR_DIRECTORY:
		return -ENOTDIR;
	case ERROR_DISK_FULL:
		return -ENOSPC;
	case ERROR_INVALID_PARAMETER:
		return -EINVAL;
	default:
		return -EIO;
	}
}
