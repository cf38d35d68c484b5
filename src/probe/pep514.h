/* The Python installs registered for the py launcher (PEP 514,
 * https://peps.python.org/pep-0514/): read from this Windows' registry, where there is one. */
#ifndef CUDOCTOR_PROBE_PEP514_H
#define CUDOCTOR_PROBE_PEP514_H

#include <stddef.h>

#include "facts/path.h"

struct pep514_install {
	char key[640];                /* "HKCU\\Software\\Python\\PythonCore\\3.12" */
	char path[FACTS_PATH];        /* InstallPath's default value: "C:\\Python312\\" */
};

/* Every Software\Python\<Company>\<Tag>\InstallPath under HKEY_CURRENT_USER, then
 * HKEY_LOCAL_MACHINE, then HKLM's 32-bit view (Software\WOW6432Node\Python), in that order
 * (the py launcher's), into a malloc'ed array. CD_OK (n 0: none registered); CD_EUNSUPPORTED
 * where there is no registry (not Windows: WSL2 cannot read it); CD_ENOMEM. */
int pep514_installs(struct pep514_install **out, size_t *n, char *err);

#endif
