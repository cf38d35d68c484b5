/* Where a host file is: every file cudoctor reads about this machine (/proc, /sys, /dev, /etc
 * and the fixed install places such as /usr/local) is found under one root,
 * $CUDOCTOR_HOST_ROOT, so a test can lay out a whole host in a directory. */
#ifndef CUDOCTOR_UTIL_HOST_PATH_H
#define CUDOCTOR_UTIL_HOST_PATH_H

#include <stddef.h>

/* $CUDOCTOR_HOST_ROOT, or "" for the real root. */
const char *host_root(void);

/* out = root + abs: root NULL is the host root (host_root()); a probe's caller may name
 * another (a test's tree). CD_OK; CD_EFORMAT (out left empty) if it does not fit. */
int host_path(char *out, size_t n, const char *root, const char *abs);

#endif
