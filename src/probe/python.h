/* The Python probe: environments and the CUDA frameworks installed in them into
 * facts/python.h, found by looking at the filesystem: no interpreter is started and
 * nothing is imported. */
#ifndef CUDOCTOR_PROBE_PYTHON_H
#define CUDOCTOR_PROBE_PYTHON_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/python.h"
#include "probe/paths.h"

struct python_opts {
	const char *home;             /* $HOME for the user site; NULL to skip it */
};

int python_probe(struct python_info *out, const struct python_opts *o, char *err);
void python_free(struct python_info *p);

#endif
