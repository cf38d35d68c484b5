/* The terminal a stream is written to: its width for wrapping and whether it is one. */
#ifndef CUDOCTOR_TERM_H
#define CUDOCTOR_TERM_H

#include <stdbool.h>
#include <stddef.h>

/* Columns to wrap text to: $COLUMNS when it is a number, else the terminal's width when fd
 * is a terminal, else 80. */
size_t term_width(int fd);
bool term_is_tty(int fd);

#endif
