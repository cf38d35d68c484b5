/* os/term.h on POSIX. */
#include "os/term.h"

#include <sys/ioctl.h>
#include <unistd.h>

void os_console_init(void)
{
}

bool os_isatty(int fd)
{
	return isatty(fd) == 1;
}

unsigned os_term_columns(int fd)
{
	struct winsize ws;

	if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0)
		return ws.ws_col;
	return 0;
}
