/* A progress line on stderr for work that takes a while: shown only when stderr is a
 * terminal and only once the work has run longer than a second, and erased at the end. */
#ifndef CUDOCTOR_REPORT_PROGRESS_H
#define CUDOCTOR_REPORT_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

struct progress_line {
	bool on;          /* stderr is a terminal */
	bool shown;       /* a line stands on stderr now */
	double start, last;
	const char *what; /* "arch: searched" */
};

void progress_start(struct progress_line *p, bool on, const char *what);
/* "arch: searched 120 of 4,000 files", at most ten times a second */
void progress_step(struct progress_line *p, size_t done, size_t total);
/* The line in the caller's words (what is then unused), under the same rules: on a terminal,
 * after the delay, at most ten times a second. */
void progress_say(struct progress_line *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void progress_end(struct progress_line *p);

#endif
