/* Registry values on Windows, through RegGetValueW: the names are ASCII here, widened as they are. */
#ifdef _WIN32
#include "os/registry.h"

#include <errno.h>
#include <windows.h>

static int widen(const char *in, wchar_t *out, int n)
{
	return MultiByteToWideChar(CP_UTF8, 0, in, -1, out, n) > 0;
}

int os_registry_hklm_dword(const char *subkey, const char *name, unsigned long *out)
{
	wchar_t wkey[512], wname[128];
	DWORD value = 0, size = sizeof value;
	LSTATUS st;

	if (!widen(subkey, wkey, 512) || !widen(name, wname, 128))
		return -EINVAL;
	st = RegGetValueW(HKEY_LOCAL_MACHINE, wkey, wname, RRF_RT_REG_DWORD, NULL, &value, &size);
	if (st == ERROR_FILE_NOT_FOUND || st == ERROR_PATH_NOT_FOUND)
		return -ENOENT;
	if (st != ERROR_SUCCESS)
		return -EIO;
	*out = value;
	return 0;
}
#endif
