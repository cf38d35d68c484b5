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
	const char *win_root;         /* a Windows drive to read the Python installs of (probe/windows.h:
					 C:\'s folder, WSL2's /mnt/c); NULL none */
	bool win_registry;            /* win_root is this running Windows': its registry lists Python
					 installs too (PEP 514); false: it cannot be read (WSL2) */
};

int python_probe(struct python_info *out, const struct python_opts *o, char *err);
/* The environment cudoctor was started from, judged before the others: $CUDOCTOR_PYTHON_PREFIX
 * (the wheel's launcher sets it to sys.prefix), unless its site-packages hold cudoctor alone
 * (the environment pipx or uvx made for the tool, not the user's). Its prefix into out. */
bool python_launcher_env(char *prefix, size_t n);
void python_free(struct python_info *p);

#endif
