/* The terminal a standard stream goes to. */
#ifndef CUDOCTOR_OS_TERM_H
#define CUDOCTOR_OS_TERM_H

#include <stdbool.h>

/* Once, first thing in main: the standard streams carry bytes as on Linux (no CR added
 * before LF) and a console shows UTF-8 and escape sequences (Windows' VT mode). */
void os_console_init(void);

bool os_isatty(int fd);
/* Its width in columns, 0 when it is no terminal or cannot say. */
unsigned os_term_columns(int fd);
/* Whether a write to fd failed with errno err because fd is a pipe whose reader has gone
 * (`| head -1`): EPIPE where SIGPIPE is ignored; on Windows, which has no SIGPIPE, the C
 * runtime's EPIPE or EINVAL on a pipe. */
bool os_pipe_reader_gone(int fd, int err);

#endif
