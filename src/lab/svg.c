/* Draws a lab_plot as an SVG document: axes with readable ticks, one polyline per
 * series with a legend, or a bar chart with category labels. */
#include "lab/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/str.h"

enum { W = 780, H = 440, ML = 80, MR = 190, MT = 44, MB = 64 };
static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b" };

static void put_escaped(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': sb_append(sb, "&lt;"); break;
		case '>': sb_append(sb, "&gt;"); break;
		case '&': sb_append(sb, "&amp;"); break;
		case '"': sb_append(sb, "&quot;"); break;
		default:
			if ((unsigned char)*s >= 0x20)
				sb_append_n(sb, s, 1);
		}
	}
}

struct axis {
	double lo, hi;
	bool log;
	int px0, px1; /* pixel positions of lo and hi */
};

static bool usable(const struct axis *a, double v)
{
	return isfinite(v) && (!a->log || v > 0);
}

static double to_px(const struct axis *a, double v)
{
	double f;
	if (a->log)
		f = (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	else
		f = (v - a->lo) / (a->hi - a->lo);
	return a->px0 + f * (a->px1 - a->px0);
}

static void fmt_tick(char *buf, size_t n, double v)
{
	double av = fabs(v);
	if (av >= 1e9 && fmod(av, 1e9) == 0)
		snprintf(buf, n, "%gG", v / 1e9);
	else if (av >= 1e6 && fmod(av, 1e6) == 0)
		snprintf(buf, n, "%gM", v / 1e6);
	else if (av >= 1e4 && fmod(av, 1e3) == 0)
		snprintf(buf, n, "%gk", v / 1e3);
	else
		snprintf(buf, n, "%g", v);
}

/* tick values into t (at most max); returns the count */
static int ticks(const struct axis *a, double *t, int max)
{
	int n = 0;
	if (a->log) {
		double e0 = floor(log10(a->lo)), e1 = ceil(log10(a->hi));
		bool dense = e1 - e0 <= 2;
		for (double e = e0; e <= e1 && n < max; e++) {
			static const double mult[] = { 1, 2, 5 };
			for (int m = 0; m < (dense ? 3 : 1) && n < max; m++) {
				double v = mult[m] * pow(10, e);
				if (v >= a->lo * 0.999 && v <= a->hi * 1.001)
					t[n++] = v;
			}
		}
		return n;
	}
	double span = a->hi - a->lo, raw = span / 6, mag = pow(10, floor(log10(raw))), step = mag;
	if (raw / mag > 5)
		step = 10 * mag;
	else if (raw / mag > 2)
		step = 5 * mag;
	else if (raw / mag > 1)
		step = 2 * mag;
	for (double v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9 && n < max; v += step)
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

static void fit(struct axis *a, double lo, double hi, bool from_zero)
{
	if (a->log) {
		if (hi <= lo) {
			lo /= 2;
			hi *= 2;
		}
		a->lo = lo / 1.15;
		a->hi = hi * 1.15;
		return;
	}
	if (from_zero && lo > 0)
		lo = 0;
	if (hi <= lo)
		hi = lo + (lo == 0 ? 1 : fabs(lo));
	a->lo = lo;
	a->hi = hi + (hi - lo) * 0.08;
}

char *lab_svg_render(const struct lab_plot *p)
{
	if (p->heatmap)
		return lab_svg_heatmap(p);
	struct axis ax = { .log = p->logx && !p->bars, .px0 = ML, .px1 = W - MR };
	struct axis ay = { .log = p->logy, .px0 = H - MB, .px1 = MT };
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	size_t npts = 0;
	for (size_t s = 0; s < p->n_series; s++)
		for (size_t i = 0; i < p->series[s].n; i++) {
			double x = p->series[s].x[i], y = p->series[s].y[i];
			if (!usable(&ax, x) || !usable(&ay, y))
				continue;
			npts++;
			xlo = fmin(xlo, x);
			xhi = fmax(xhi, x);
			ylo = fmin(ylo, y);
			yhi = fmax(yhi, y);
		}
	if (npts == 0)
		return NULL;
	size_t nbars = p->bars ? p->series[0].n : 0;
	if (p->bars) {
		ax.lo = -0.5;
		ax.hi = (double)nbars - 0.5;
	} else {
		fit(&ax, xlo, xhi, false);
	}
	fit(&ay, ylo, yhi, true);

	struct strbuf sb;
	sb_init(&sb);
	sb_printf(&sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		       "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H, W, H);
	sb_printf(&sb, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
	sb_printf(&sb, "<text x=\"%d\" y=\"24\" font-size=\"15\" font-weight=\"bold\">", ML);
	put_escaped(&sb, p->title);
	sb_append(&sb, "</text>\n");

	double t[64];
	int nt = ticks(&ay, t, 64);
	for (int i = 0; i < nt; i++) {
		double y = to_px(&ay, t[i]);
		char lab[32];
		fmt_tick(lab, sizeof lab, t[i]);
		sb_printf(&sb, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ML, y, W - MR, y);
		sb_printf(&sb, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", ML - 6, y + 4, lab);
	}
	if (p->bars) {
		for (size_t i = 0; i < nbars; i++) {
			double x = to_px(&ax, (double)i);
			sb_printf(&sb, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x, H - MB + 16);
			put_escaped(&sb, p->labels[i]);
			sb_append(&sb, "</text>\n");
		}
	} else {
		nt = ticks(&ax, t, 64);
		for (int i = 0; i < nt; i++) {
			double x = to_px(&ax, t[i]);
			char lab[32];
			fmt_tick(lab, sizeof lab, t[i]);
			sb_printf(&sb, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>\n", x, MT, x, H - MB);
			sb_printf(&sb, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x, H - MB + 16, lab);
		}
	}
	sb_printf(&sb, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", ML, H - MB, W - MR, H - MB);
	sb_printf(&sb, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", ML, MT, ML, H - MB);
	sb_printf(&sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (ML + W - MR) / 2, H - 18);
	put_escaped(&sb, p->xlabel);
	sb_append(&sb, "</text>\n");
	sb_printf(&sb, "<text transform=\"translate(18 %d) rotate(-90)\" text-anchor=\"middle\">", (MT + H - MB) / 2);
	put_escaped(&sb, p->ylabel);
	sb_append(&sb, "</text>\n");

	if (p->bars) {
		double bw = (W - MR - ML) / (double)(nbars ? nbars : 1) * 0.7;
		double y0 = to_px(&ay, ay.log ? ay.lo : fmax(ay.lo, 0));
		for (size_t i = 0; i < nbars; i++) {
			double v = p->series[0].y[i];
			if (!usable(&ay, v))
				continue;
			double x = to_px(&ax, (double)i), y = to_px(&ay, v);
			sb_printf(&sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%g</title></rect>\n",
				  x - bw / 2, fmin(y, y0), bw, fabs(y0 - y), palette[0], v);
		}
	}
	for (size_t s = 0; !p->bars && s < p->n_series; s++) {
		const struct lab_series *se = &p->series[s];
		const char *col = palette[s % (sizeof palette / sizeof *palette)];
		sb_printf(&sb, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
		for (size_t i = 0; i < se->n; i++)
			if (usable(&ax, se->x[i]) && usable(&ay, se->y[i]))
				sb_printf(&sb, "%.1f,%.1f ", to_px(&ax, se->x[i]), to_px(&ay, se->y[i]));
		sb_append(&sb, "\"/>\n");
		for (size_t i = 0; i < se->n; i++)
			if (usable(&ax, se->x[i]) && usable(&ay, se->y[i]))
				sb_printf(&sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"><title>%g, %g</title></circle>\n",
					  to_px(&ax, se->x[i]), to_px(&ay, se->y[i]), col, se->x[i], se->y[i]);
		int ly = MT + 10 + (int)s * 18;
		sb_printf(&sb, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>\n",
			  W - MR + 12, ly, W - MR + 32, ly, col);
		sb_printf(&sb, "<text x=\"%d\" y=\"%d\">", W - MR + 38, ly + 4);
		put_escaped(&sb, se->name[0] ? se->name : "series");
		sb_append(&sb, "</text>\n");
	}
	sb_append(&sb, "</svg>\n");
	return sb_detach(&sb);
}

/* a shade from pale (f = 0) to dark blue (f = 1) */
static void heat_colour(double f, char *buf, size_t n)
{
	static const int lo[3] = { 0xf7, 0xfb, 0xff }, hi[3] = { 0x08, 0x30, 0x6b };
	int c[3];
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	for (int i = 0; i < 3; i++)
		c[i] = (int)(lo[i] + (hi[i] - lo[i]) * f + 0.5);
	snprintf(buf, n, "#%02x%02x%02x", c[0], c[1], c[2]);
}

char *lab_svg_heatmap(const struct lab_plot *p)
{
	enum { CELL = 64, HL = 96, HT = 84, HR = 24, HB = 40 };
	size_t cells = p->n_series ? p->series[0].n : 0, n = 0;
	while ((n + 1) * (n + 1) <= cells)
		n++;
	if (n == 0 || n * n != cells)
		return NULL;
	double top = 0;
	for (size_t i = 0; i < cells; i++)
		if (i / n != i % n && isfinite(p->series[0].y[i]) && p->series[0].y[i] > top)
			top = p->series[0].y[i];
	int w = HL + (int)n * CELL + HR, h = HT + (int)n * CELL + HB;
	struct strbuf sb;
	sb_init(&sb);
	sb_printf(&sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		       "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n", w, h, w, h);
	sb_printf(&sb, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", w, h);
	sb_append(&sb, "<text x=\"12\" y=\"24\" font-size=\"15\" font-weight=\"bold\">");
	put_escaped(&sb, p->title);
	sb_append(&sb, "</text>\n");
	sb_printf(&sb, "<text x=\"%d\" y=\"48\" text-anchor=\"middle\">", HL + (int)n * CELL / 2);
	put_escaped(&sb, p->xlabel);
	sb_append(&sb, "</text>\n");
	sb_printf(&sb, "<text transform=\"translate(16 %d) rotate(-90)\" text-anchor=\"middle\">", HT + (int)n * CELL / 2);
	put_escaped(&sb, p->ylabel);
	sb_append(&sb, "</text>\n");
	for (size_t i = 0; i < n; i++) {
		sb_printf(&sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", HL + (int)i * CELL + CELL / 2, HT - 8);
		put_escaped(&sb, p->labels[i]);
		sb_append(&sb, "</text>\n");
		sb_printf(&sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", HL - 8, HT + (int)i * CELL + CELL / 2 + 4);
		put_escaped(&sb, p->labels[i]);
		sb_append(&sb, "</text>\n");
	}
	for (size_t i = 0; i < cells; i++) {
		size_t row = i / n, col = i % n;
		double v = p->series[0].y[i];
		bool have = row != col && isfinite(v) && v > 0;
		char fill[8] = "#e8e8e8", label[32] = "";
		double f = have && top > 0 ? v / top : 0;
		if (have) {
			heat_colour(f, fill, sizeof fill);
			snprintf(label, sizeof label, v >= 100 ? "%.0f" : "%.1f", v);
		} else {
			snprintf(label, sizeof label, "%s", row == col ? "X" : "n/a");
		}
		int x = HL + (int)col * CELL, y = HT + (int)row * CELL;
		sb_printf(&sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"white\"><title>",
			  x, y, CELL, CELL, fill);
		put_escaped(&sb, p->labels[row]);
		sb_append(&sb, " -&gt; ");
		put_escaped(&sb, p->labels[col]);
		sb_printf(&sb, ": %s</title></rect>\n", label);
		sb_printf(&sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">%s</text>\n", x + CELL / 2,
			  y + CELL / 2 + 4, f > 0.55 ? "white" : "black", label);
	}
	sb_append(&sb, "</svg>\n");
	return sb_detach(&sb);
}
