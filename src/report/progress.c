/* The delayed progress line on stderr (progress.h). */
#include <stdio.h>
#include <stdlib.h>

#include "report/progress.h"
#include "os/env.h"
#include "util/clock.h"

/* Work shorter than this shows no progress: a line that flashes by is noise. */
#define PROGRESS_AFTER_S 1.0

/* $CUDOCTOR_PROGRESS_AFTER (seconds) moves the one-second threshold: the tests set 0 so that
 * a terminal shows progress whatever this machine's speed. */
static double progress_after(void)
{
	const char *e = os_getenv("CUDOCTOR_PROGRESS_AFTER");
	char *end;
	double v = e && *e ? strtod(e, &end) : -1;

	return e && *e && *end == '\0' && v >= 0 ? v : PROGRESS_AFTER_S;
}

void progress_start(struct progress_line *p, bool on, const char *what)
{
	p->on = on;
	p->shown = false;
	p->start = p->last = cd_now_s();
	p->what = what;
}

void progress_step(struct progress_line *p, size_t done, size_t total)
{
	double t;

	if (!p->on)
		return;
	t = cd_now_s();
	if (t - p->start < progress_after() || (p->shown && t - p->last < 0.1))
		return;
	fprintf(stderr, "\r\033[K%s %zu of %zu files", p->what, done, total);
	fflush(stderr);
	p->shown = true;
	p->last = t;
}

void progress_end(struct progress_line *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->shown = false;
}
