/* Filling a lab's result: measurements, chart points, progress, verdict names. */
#include "lab/lab.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *lab_verdict_name(enum lab_verdict v)
{
	switch (v) {
	case LAB_CONFIRMED: return "confirmed";
	case LAB_REFUTED: return "refuted";
	case LAB_INCONCLUSIVE: return "inconclusive";
	case LAB_FAILED: return "failed";
	}
	return "unknown";
}

bool lab_add(struct lab_result *r, const char *unit, double value, const char *label_fmt, ...)
{
	if (r->n_meas >= LAB_MAX_MEAS)
		return false;
	struct lab_meas *m = &r->meas[r->n_meas++];
	va_list ap;
	va_start(ap, label_fmt);
	vsnprintf(m->label, sizeof m->label, label_fmt, ap);
	va_end(ap);
	m->value = value;
	snprintf(m->unit, sizeof m->unit, "%s", unit ? unit : "");
	return true;
}

void lab_progress(struct lab_ctx *c, double fraction, const char *what_fmt, ...)
{
	if (!c->progress)
		return;
	char what[96];
	va_list ap;
	va_start(ap, what_fmt);
	vsnprintf(what, sizeof what, what_fmt, ap);
	va_end(ap);
	c->progress(c->progress_user, c->current ? c->current : "", fraction, what);
}

bool lab_plot_point(struct lab_plot *p, size_t series, const char *name, double x, double y)
{
	if (series >= LAB_MAX_SERIES)
		return false;
	p->used = true;
	if (series >= p->n_series) {
		for (size_t i = p->n_series; i <= series; i++)
			p->series[i].n = 0;
		p->n_series = series + 1;
	}
	struct lab_series *s = &p->series[series];
	if (name && !s->name[0])
		snprintf(s->name, sizeof s->name, "%s", name);
	if (s->n >= LAB_MAX_POINTS)
		return false;
	s->x[s->n] = x;
	s->y[s->n] = y;
	s->n++;
	return true;
}

bool lab_plot_bar(struct lab_plot *p, const char *label, double y)
{
	p->bars = true;
	size_t i = p->n_series ? p->series[0].n : 0;
	if (i >= LAB_MAX_POINTS || !lab_plot_point(p, 0, NULL, (double)i, y))
		return false;
	snprintf(p->labels[i], sizeof p->labels[i], "%s", label);
	return true;
}
