/* os/thread.h on Win32: CreateThread. */
#include "os/thread.h"

#include <string.h>
#include <windows.h>

_Static_assert(sizeof(HANDLE) <= sizeof(((struct os_thread *)0)->handle), "a HANDLE fits a handle");

static DWORD WINAPI trampoline(LPVOID arg)
{
	struct os_thread *t = arg;

	t->fn(t->arg);
	return 0;
}

bool os_thread_start(struct os_thread *t, void (*fn)(void *), void *arg)
{
	HANDLE h;

	t->fn = fn;
	t->arg = arg;
	if (!(h = CreateThread(NULL, 0, trampoline, t, 0, NULL)))
		return false;
	memcpy(t->handle, &h, sizeof h);
	return true;
}

void os_thread_join(struct os_thread *t)
{
	HANDLE h;

	memcpy(&h, t->handle, sizeof h);
	WaitForSingleObject(h, INFINITE);
	CloseHandle(h);
}
