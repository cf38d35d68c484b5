/* The delayed progress line on stderr (progress.h). */
#include <stdio.h>
#include <time.h>

#include "cmd/progress.h"

/* Work shorter than this shows no progress: a line that flashes by is noise. */
#define PROGRESS_AFTER_S 1.0

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cmd_progress_start(struct cmd_progress *p, bool on, const char *what)
{
	p->on = on;
	p->shown = false;
	p->start = p->last = now_s();
	p->what = what;
}

void cmd_progress_step(struct cmd_progress *p, size_t done, size_t total)
{
	double t;

	if (!p->on)
		return;
	t = now_s();
	if (t - p->start < PROGRESS_AFTER_S || (p->shown && t - p->last < 0.1))
		return;
	fprintf(stderr, "\r\033[K%s %zu of %zu files", p->what, done, total);
	fflush(stderr);
	p->shown = true;
	p->last = t;
}

void cmd_progress_end(struct cmd_progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->shown = false;
}
