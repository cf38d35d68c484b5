/* A progress line on stderr for work that takes a while: shown only when stderr is a
 * terminal and only once the work has run longer than a second, and erased at the end. */
#ifndef CUDOCTOR_CMD_PROGRESS_H
#define CUDOCTOR_CMD_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

struct cmd_progress {
	bool on;          /* stderr is a terminal */
	bool shown;       /* a line stands on stderr now */
	double start, last;
	const char *what; /* "arch: searched" */
};

void cmd_progress_start(struct cmd_progress *p, bool on, const char *what);
/* "arch: searched 120 of 4,000 files", at most ten times a second */
void cmd_progress_step(struct cmd_progress *p, size_t done, size_t total);
void cmd_progress_end(struct cmd_progress *p);

#endif
