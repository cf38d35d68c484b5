/* os/host.h on Win32. */
#define _CRT_RAND_S /* rand_s: the system's random bytes (RtlGenRandom) */
#include "os/host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "os/win32.h"

bool os_hostname(char *out, size_t cap)
{
	wchar_t w[256];
	DWORD n = sizeof w / sizeof w[0];

	if (!cap)
		return false;
	out[0] = '\0';
	return GetComputerNameExW(ComputerNameDnsHostname, w, &n) && os_w_to_utf8(w, out, cap) && out[0];
}

/* GetVersionEx answers what the program's manifest claims to support; ntdll's RtlGetVersion
 * answers what runs. */
void os_kernel(char *kernel, size_t kcap, char *machine, size_t mcap)
{
	typedef LONG(WINAPI * rtl_get_version)(OSVERSIONINFOW *);
	HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
	FARPROC p = ntdll ? GetProcAddress(ntdll, "RtlGetVersion") : NULL;
	rtl_get_version get;
	OSVERSIONINFOW v = { .dwOSVersionInfoSize = sizeof v };
	SYSTEM_INFO si;

	if (kcap)
		kernel[0] = '\0';
	memcpy(&get, &p, sizeof get);
	if (get && get(&v) == 0)
		snprintf(kernel, kcap, "Windows %lu.%lu.%lu", (unsigned long)v.dwMajorVersion,
			 (unsigned long)v.dwMinorVersion, (unsigned long)v.dwBuildNumber);
	GetNativeSystemInfo(&si);
	snprintf(machine, mcap, "%s",
		 si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_AMD64   ? "x86_64"
		 : si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_ARM64 ? "aarch64"
		 : si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_INTEL ? "i686"
									     : "");
}

/* No glibc here: the C runtime is Windows' own. */
void os_libc_version(char *out, size_t cap)
{
	if (cap)
		out[0] = '\0';
}

bool os_process_cpus(void (*add)(int cpu, void *arg), void *arg)
{
	DWORD_PTR mine, system;

	if (!GetProcessAffinityMask(GetCurrentProcess(), &mine, &system))
		return false;
	for (int c = 0; c < (int)(sizeof mine * 8); c++)
		if (mine & ((DWORD_PTR)1 << c))
			add(c, arg);
	return true;
}

uint64_t os_random_seed(void)
{
	unsigned a = 0, b = 0;

	if (rand_s(&a) != 0 || rand_s(&b) != 0)
		return 0;
	return (uint64_t)a << 32 | b;
}

bool os_is_linux(void)
{
	return false;
}

const char *os_name(void)
{
	return "Windows";
}

bool os_is_admin(void)
{
	HANDLE token;
	TOKEN_ELEVATION e = { 0 };
	DWORD n = sizeof e;
	bool admin = false;

	if (OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token)) {
		admin = GetTokenInformation(token, TokenElevation, &e, sizeof e, &n) && e.TokenIsElevated;
		CloseHandle(token);
	}
	return admin;
}

unsigned os_uid(void)
{
	return 0; /* files carry no owner id here: every file is the user's own (os_stat's uid 0) */
}

size_t os_groups(unsigned *gids, size_t max)
{
	(void)gids;
	(void)max;
	return 0; /* no POSIX groups: device nodes are not opened by group here */
}
