/* The delayed progress line on stderr (progress.h). */
#include <stdarg.h>
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

/* whether a line is due now: on a terminal, past the delay, a tenth of a second after the last */
static bool due(struct progress_line *p)
{
	double t;

	if (!p->on)
		return false;
	t = cd_now_s();
	if (t - p->start < progress_after() || (p->shown && t - p->last < 0.1))
		return false;
	p->shown = true;
	p->last = t;
	return true;
}

void progress_step(struct progress_line *p, size_t done, size_t total)
{
	if (!due(p))
		return;
	fprintf(stderr, "\r\033[K%s %zu of %zu files", p->what, done, total);
	fflush(stderr);
}

void progress_say(struct progress_line *p, const char *fmt, ...)
{
	va_list ap;

	if (!due(p))
		return;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

void progress_end(struct progress_line *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->shown = false;
}
