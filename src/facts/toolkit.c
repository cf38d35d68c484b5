/* Names of the toolkit facts' enumerations, for evidence and the reports. */
#include <stdio.h>

#include "facts/toolkit.h"

const char *toolkit_found_by_text(unsigned by, char *buf, size_t n)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{ TK_PATH, "PATH" }, { TK_CUDACXX, "CUDACXX" }, { TK_CUDA_HOME, "CUDA_HOME" },
		{ TK_CUDA_PATH, "CUDA_PATH" }, { TK_SYSTEM, "system" }, { TK_CONDA, "conda" },
		{ TK_PIP, "pip wheel" }, { TK_WRAPPER, "wrapper script" },
	};
	size_t used = 0;

	if (n)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (!(by & names[i].bit))
			continue;
		int w = snprintf(buf + used, n - used, "%s%s", used ? ", " : "", names[i].name);
		if (w < 0 || (size_t)w >= n - used) {
			buf[used] = '\0'; /* whole names only */
			break;
		}
		used += (size_t)w;
	}
	return buf;
}
