/* os/term.h on POSIX. */
#include "os/term.h"

#include <errno.h>
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

bool os_pipe_reader_gone(int fd, int err)
{
	(void)fd;
	return err == EPIPE;
}
