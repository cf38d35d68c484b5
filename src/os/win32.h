/* Private to the Win32 files of src/os/: UTF-8 (every string above the seam) to and from the UTF-16
 * the wide Win32 calls take, and Win32 errors as errno values. */
#ifndef CUDOCTOR_OS_WIN32_H
#define CUDOCTOR_OS_WIN32_H

#include <stddef.h>
#include <wchar.h>

/* malloc'ed UTF-16 of s (a path gets no prefix); NULL when s is not UTF-8 or out of memory */
wchar_t *os_w_from_utf8(const char *s);
/* UTF-8 of w into out (cap bytes); false when it does not fit */
int os_w_to_utf8(const wchar_t *w, char *out, size_t cap);
/* GetLastError() as a negative errno */
int os_w_errno(void);

#endif
