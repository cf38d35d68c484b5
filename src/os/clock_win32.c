/* os/clock.h on Win32: QueryPerformanceCounter. */
#include "os/clock.h"

#include <windows.h>

double os_monotonic_s(void)
{
	static LARGE_INTEGER freq;
	LARGE_INTEGER now;

	if (!freq.QuadPart)
		QueryPerformanceFrequency(&freq);
	QueryPerformanceCounter(&now);
	return (double)now.QuadPart / (double)freq.QuadPart;
}

void os_sleep_us(unsigned long us)
{
	Sleep((DWORD)((us + 999) / 1000));
}
