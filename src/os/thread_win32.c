/* os/thread.h on Win32: CreateThread, through os/sys.h's table (sys_win32.c). */
#include "os/thread.h"

#include <string.h>
#include <windows.h>

#include "os/sys.h"

bool os_thread_start(struct os_thread *t, void (*fn)(void *), void *arg)
{
	t->fn = fn;
	t->arg = arg;
	return os_sys.thread_start(t) == 0;
}

void os_thread_join(struct os_thread *t)
{
	HANDLE h;

	memcpy(&h, t->handle, sizeof h);
	WaitForSingleObject(h, INFINITE);
	CloseHandle(h);
}
