/* os/term.h on Win32: the console's size and modes. */
#include "os/term.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <windows.h>

#ifndef ENABLE_VIRTUAL_TERMINAL_PROCESSING
#define ENABLE_VIRTUAL_TERMINAL_PROCESSING 0x0004
#endif

void os_console_init(void)
{
	static const DWORD streams[] = { STD_OUTPUT_HANDLE, STD_ERROR_HANDLE };

	_setmode(0, _O_BINARY);
	_setmode(1, _O_BINARY);
	_setmode(2, _O_BINARY);
	SetConsoleOutputCP(CP_UTF8);
	for (size_t i = 0; i < sizeof streams / sizeof streams[0]; i++) {
		HANDLE h = GetStdHandle(streams[i]);
		DWORD mode;

		if (h && h != INVALID_HANDLE_VALUE && GetConsoleMode(h, &mode))
			SetConsoleMode(h, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
	}
}

bool os_isatty(int fd)
{
	DWORD mode;
	HANDLE h = (HANDLE)_get_osfhandle(fd);

	/* _isatty says yes to NUL too (a character device): a console answers GetConsoleMode */
	return h != INVALID_HANDLE_VALUE && GetConsoleMode(h, &mode);
}

unsigned os_term_columns(int fd)
{
	CONSOLE_SCREEN_BUFFER_INFO info;
	HANDLE h = (HANDLE)_get_osfhandle(fd);

	if (h == INVALID_HANDLE_VALUE || !GetConsoleScreenBufferInfo(h, &info))
		return 0;
	return (unsigned)(info.srWindow.Right - info.srWindow.Left + 1);
}

bool os_pipe_reader_gone(int fd, int err)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);

	/* WriteFile's ERROR_NO_DATA ("the pipe is being closed") reaches errno as EINVAL */
	return (err == EPIPE || err == EINVAL) && h != INVALID_HANDLE_VALUE && GetFileType(h) == FILE_TYPE_PIPE;
}
