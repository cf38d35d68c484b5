/* Registry values and keys on Windows: RegGetValueW and RegEnumKeyExW (a 64-bit process sees the 64-bit view; the 32-bit one is Software\\WOW6432Node), names
 * converted to and from UTF-8 here. */
#ifdef _WIN32
#include "os/registry.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "os/win32.h"

static int widen(const char *in, wchar_t *out, int n)
{
	return MultiByteToWideChar(CP_UTF8, 0, in, -1, out, n) > 0;
}

static HKEY hive_key(enum os_hive hive)
{
	return hive == OS_HKCU ? HKEY_CURRENT_USER : HKEY_LOCAL_MACHINE;
}

static int status_errno(LSTATUS st)
{
	if (st == ERROR_SUCCESS)
		return 0;
	if (st == ERROR_FILE_NOT_FOUND || st == ERROR_PATH_NOT_FOUND)
		return -ENOENT;
	if (st == ERROR_MORE_DATA)
		return -ERANGE;
	return -EIO;
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

void os_registry_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int os_registry_subkeys(enum os_hive hive, const char *subkey, size_t max, char ***names, size_t *n)
{
	wchar_t wkey[512], wname[256]; /* a key name is at most 255 characters */
	char name[1024];
	HKEY k;
	LSTATUS st;
	int rc = 0;

	*names = NULL;
	*n = 0;
	if (!widen(subkey, wkey, 512))
		return -EINVAL;
	if ((st = RegOpenKeyExW(hive_key(hive), wkey, 0, KEY_READ, &k)) != ERROR_SUCCESS)
		return status_errno(st);
	for (DWORD i = 0; *n < max; i++) {
		DWORD len = sizeof wname / sizeof wname[0];
		char **grown;

		st = RegEnumKeyExW(k, i, wname, &len, NULL, NULL, NULL, NULL);
		if (st == ERROR_NO_MORE_ITEMS)
			break;
		if (st != ERROR_SUCCESS) {
			rc = -EIO;
			break;
		}
		wname[len < 256 ? len : 255] = L'\0';
		if (!os_w_to_utf8(wname, name, sizeof name))
			continue;
		if (!(grown = realloc(*names, (*n + 1) * sizeof *grown)) || !(grown[*n] = strdup(name))) {
			if (grown)
				*names = grown;
			rc = -ENOMEM;
			break;
		}
		*names = grown;
		(*n)++;
	}
	RegCloseKey(k);
	if (rc) {
		os_registry_names_free(*names, *n);
		*names = NULL;
		*n = 0;
	}
	return rc;
}

int os_registry_string(enum os_hive hive, const char *subkey, const char *name, char *out, size_t cap)
{
	wchar_t wkey[512], wname[128], value[2048];
	DWORD size = sizeof value;
	LSTATUS st;

	if (cap)
		out[0] = '\0';
	if (!widen(subkey, wkey, 512) || (name && name[0] && !widen(name, wname, 128)))
		return -EINVAL;
	/* RRF_RT_REG_SZ alone takes a REG_EXPAND_SZ too, expanded (with REG_EXPAND_SZ named, the
	 * call wants RRF_NOEXPAND) */
	st = RegGetValueW(hive_key(hive), wkey, name && name[0] ? wname : NULL,
			  RRF_RT_REG_SZ, NULL, value, &size);
	if (st != ERROR_SUCCESS)
		return status_errno(st);
	value[sizeof value / sizeof value[0] - 1] = L'\0';
	return os_w_to_utf8(value, out, cap) ? 0 : -ERANGE;
}
#endif
