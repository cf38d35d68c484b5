/* The host root and the one way a host file's path is built (host_path.h). */
#include "util/host_path.h"

#include <stdio.h>
#include <stdlib.h>

#include "os/env.h"
#include "util/err.h"

const char *host_root(void)
{
	const char *r = os_getenv("CUDOCTOR_HOST_ROOT");

	return r ? r : "";
}

int host_path(char *out, size_t n, const char *root, const char *abs)
{
	int w;

	if (!root)
		root = host_root();
	w = snprintf(out, n, "%s%s", root, abs);
	if (w < 0 || (size_t)w >= n) {
		if (n)
			out[0] = '\0';
		return CD_EFORMAT;
	}
	return CD_OK;
}
