/* Terminal width and terminal tests, in one place for help texts, reports and progress. */
#include <stdlib.h>

#include "os/env.h"
#include "os/term.h"
#include "util/term.h"

size_t term_width(int fd)
{
	const char *c = os_getenv("COLUMNS");
	unsigned cols;

	if (c && *c) {
		char *end;
		long n = strtol(c, &end, 10);

		if (!*end && n > 0 && n < 10000)
			return (size_t)n;
	}
	if ((cols = os_term_columns(fd)) > 0)
		return cols;
	return 80;
}

bool term_is_tty(int fd)
{
	return os_isatty(fd);
}
