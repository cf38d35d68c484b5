/* The GNU and POSIX string and sorting calls the code base uses that the Windows C runtime
 * lacks, given by libc_win32.c; the Windows build includes this header first in every file
 * (CMakeLists.txt: -include). */
#ifndef CUDOCTOR_OS_LIBC_WIN32_H
#define CUDOCTOR_OS_LIBC_WIN32_H
#ifdef _WIN32

#include <stdbool.h>
#include <stddef.h>

void *memrchr(const void *s, int c, size_t n);
void *memmem(const void *hay, size_t hn, const void *needle, size_t nn);
char *strcasestr(const char *hay, const char *needle);
int strverscmp(const char *a, const char *b);
void qsort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *), void *arg);

#endif
#endif
