/* Sorting that tolerates empty arrays: qsort's array must not be NULL even when it has no
 * element (UBSan stops there), and a list that was never allocated is NULL. */
#ifndef CUDOCTOR_UTIL_SORT_H
#define CUDOCTOR_UTIL_SORT_H

#include <stddef.h>
#include <stdlib.h>

static inline void cd_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif
