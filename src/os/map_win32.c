/* os/map.h on Win32: a read-only view of the file. A file with a view open cannot be
 * truncated on Windows, so no page of a view goes missing and no guard is needed. */
#include "os/map.h"

#include <errno.h>
#include <io.h>
#include <string.h>
#include <windows.h>

#include "os/sys.h"
#include "os/win32.h"

size_t os_page_size(void)
{
	SYSTEM_INFO si;

	GetSystemInfo(&si);
	return si.dwPageSize ? si.dwPageSize : 4096;
}

int os_map_fd(int fd, size_t size, struct os_map *m)
{
	void *p = NULL;
	int e;

	memset(m, 0, sizeof *m);
	if (size == 0)
		return 0;
	if ((e = os_sys.map(fd, size, &p)) != 0)
		return e;
	m->data = p;
	m->size = size;
	return 0;
}

bool os_map_intact(const struct os_map *m)
{
	(void)m;
	return true;
}

void os_unmap(struct os_map *m)
{
	if (m->data)
		UnmapViewOfFile(m->data);
	memset(m, 0, sizeof *m);
}

/* Unlocking pages that are not locked takes them out of the working set. */
void os_map_release(const void *p, size_t len)
{
	VirtualUnlock((void *)p, len);
}

int os_zero_map(size_t size, void **p)
{
	/* committed pages are zero-filled on first touch and take memory only then */
	void *m = VirtualAlloc(NULL, size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);

	if (!m)
		return -ENOMEM;
	*p = m;
	return 0;
}

void os_zero_unmap(void *p, size_t size)
{
	(void)size;
	if (p)
		VirtualFree(p, 0, MEM_RELEASE);
}

int os_pages_resident(void *p, size_t size, unsigned char *vec)
{
	/* QueryWorkingSetEx could tell, page by page; callers read the whole instead */
	(void)p;
	(void)size;
	(void)vec;
	return -ENOSYS;
}
