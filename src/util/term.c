/* Terminal width and terminal tests, in one place for help texts, reports and progress. */
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util/term.h"

size_t term_width(int fd)
{
	const char *c = getenv("COLUMNS");
	struct winsize ws;

	if (c && *c) {
		char *end;
		long n = strtol(c, &end, 10);

		if (!*end && n > 0 && n < 10000)
			return (size_t)n;
	}
	if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

bool term_is_tty(int fd)
{
	return isatty(fd) == 1;
}
