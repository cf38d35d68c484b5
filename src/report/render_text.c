/* Text and Markdown renderers: sections, aligned key/values, tables, then findings. */
#include <string.h>

#include "report/render.h"
#include "report/render_internal.h"

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"

static const char *sev_color(enum severity s)
{
	switch (s) {
	case SEV_OK: return "\033[32m";
	case SEV_INFO: return "\033[36m";
	case SEV_WARN: return "\033[33m";
	case SEV_ERROR: return "\033[31m";
	}
	return "";
}

static const char *col(const struct render_opts *o, const char *code)
{
	return o->color ? code : "";
}

/* Key width for a run of consecutive key/value items, so values line up. */
static size_t kv_run_width(const struct report *r, size_t i)
{
	size_t w = 0;

	for (; i < r->n_items && r->items[i].kind == ITEM_KV; i++)
		if (strlen(r->items[i].a) > w)
			w = strlen(r->items[i].a);
	return w;
}

static void text_table(const struct report_item *t, FILE *out, const struct render_opts *o)
{
	size_t w[32] = { 0 };
	size_t nc = t->ncols < 32 ? t->ncols : 32;

	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < nc; c++) {
			size_t l = strlen(t->cells[r * t->ncols + c]);
			if (l > w[c])
				w[c] = l;
		}
	for (size_t r = 0; r < t->nrows; r++) {
		fputs("  ", out);
		if (r == 0)
			fputs(col(o, C_BOLD), out);
		for (size_t c = 0; c < nc; c++) {
			const char *cell = t->cells[r * t->ncols + c];
			if (c + 1 == nc)
				fputs(cell, out);
			else
				fprintf(out, "%-*s  ", (int)w[c], cell);
		}
		if (r == 0)
			fputs(col(o, C_RESET), out);
		fputc('\n', out);
	}
}

static void text_finding(const struct finding *f, FILE *out, const struct render_opts *o)
{
	bool brief = f->severity <= SEV_INFO && o->verbosity <= 0;

	fprintf(out, "%s%-5s%s %s%s%s: %s", col(o, sev_color(f->severity)), severity_name(f->severity),
		col(o, C_RESET), col(o, C_BOLD), f->id, col(o, C_RESET), f->title);
	if (f->subject && *f->subject)
		fprintf(out, " %s[%s]%s", col(o, C_DIM), f->subject, col(o, C_RESET));
	fputc('\n', out);
	if (brief && f->severity == SEV_OK)
		return;
	for (size_t i = 0; i < f->n_evidence; i++)
		fprintf(out, "      evidence: %s\n", f->evidence[i]);
	if (f->why && !brief)
		fprintf(out, "      why: %s\n", f->why);
	for (size_t i = 0; i < f->n_fix; i++)
		fprintf(out, "      fix: %s%s%s\n", col(o, C_BOLD), f->fix[i], col(o, C_RESET));
}

/* -q: the essential answer alone, for scripts */
static bool answer_only(const struct report *r, const struct render_opts *o, FILE *out)
{
	if (!r->n_answer || !(o->verbosity < 0 || r->answer_only))
		return false;
	for (size_t i = 0; i < r->n_answer; i++)
		fprintf(out, "%s\n", r->answer[i]);
	return true;
}

int render_text(const struct report *r, const struct render_opts *o, FILE *out)
{
	size_t width = 0, counts[4] = { 0 };
	bool any_item = false;

	if (answer_only(r, o, out))
		return ferror(out) ? -2 : 0;

	if (o->verbosity >= 0) {
		for (size_t i = 0; i < r->n_items; i++) {
			const struct report_item *it = &r->items[i];

			if (it->kind == ITEM_FIGURE)
				continue; /* charts are for the HTML page */
			switch (it->kind) {
			case ITEM_SECTION:
				fprintf(out, "%s%s%s%s\n", any_item ? "\n" : "", col(o, C_BOLD), it->a,
					col(o, C_RESET));
				width = 0;
				break;
			case ITEM_KV:
				if (i == 0 || r->items[i - 1].kind != ITEM_KV)
					width = kv_run_width(r, i);
				fprintf(out, "  %-*s  %s\n", (int)width, it->a, it->b);
				break;
			case ITEM_LINE:
				fprintf(out, "  %s\n", it->a);
				break;
			case ITEM_TABLE:
				text_table(it, out, o);
				break;
			case ITEM_FIGURE:
				break;
			}
			any_item = true;
		}
	}
	for (size_t i = 0; i < r->n_findings; i++)
		counts[r->findings[i].severity]++;
	if (r->n_findings) {
		bool header = false;
		for (int sev = SEV_ERROR; sev >= SEV_OK; sev--) {
			for (size_t i = 0; i < r->n_findings; i++) {
				const struct finding *f = &r->findings[i];
				if ((int)f->severity != sev || (o->verbosity < 0 && f->severity < SEV_WARN))
					continue;
				if (!header) {
					fprintf(out, "%s%sFindings%s\n", any_item ? "\n" : "", col(o, C_BOLD),
						col(o, C_RESET));
					header = true;
				}
				text_finding(f, out, o);
			}
		}
	}
	if (o->verbosity >= 0 && r->n_findings)
		fprintf(out, "\n%zu error%s, %zu warning%s, %zu info, %zu ok\n", counts[SEV_ERROR],
			counts[SEV_ERROR] == 1 ? "" : "s", counts[SEV_WARN], counts[SEV_WARN] == 1 ? "" : "s",
			counts[SEV_INFO], counts[SEV_OK]);
	return ferror(out) ? -2 : 0;
}

static void md_escape(const char *s, FILE *out)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '\n')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}

static const char *md_badge(enum severity s)
{
	switch (s) {
	case SEV_OK: return "OK";
	case SEV_INFO: return "INFO";
	case SEV_WARN: return "WARNING";
	case SEV_ERROR: return "ERROR";
	}
	return "?";
}

int render_markdown(const struct report *r, const struct render_opts *o, FILE *out)
{
	bool in_list = false;

	if (answer_only(r, o, out))
		return ferror(out) ? -2 : 0;
	fprintf(out, "## cudoctor %s\n\n", r->command);
	for (size_t i = 0; o->verbosity >= 0 && i < r->n_items; i++) {
		const struct report_item *it = &r->items[i];

		if (it->kind == ITEM_FIGURE)
			continue;
		if (in_list && it->kind != ITEM_KV) {
			fputc('\n', out);
			in_list = false;
		}
		switch (it->kind) {
		case ITEM_SECTION:
			fprintf(out, "### %s\n\n", it->a);
			break;
		case ITEM_KV:
			fprintf(out, "- **%s:** ", it->a);
			md_escape(it->b, out);
			fputc('\n', out);
			in_list = true;
			break;
		case ITEM_LINE:
			md_escape(it->a, out);
			fputs("\n\n", out);
			break;
		case ITEM_TABLE:
			for (size_t row = 0; row < it->nrows; row++) {
				fputc('|', out);
				for (size_t c = 0; c < it->ncols; c++) {
					fputc(' ', out);
					md_escape(it->cells[row * it->ncols + c], out);
					fputs(" |", out);
				}
				fputc('\n', out);
				if (row == 0) {
					fputc('|', out);
					for (size_t c = 0; c < it->ncols; c++)
						fputs("---|", out);
					fputc('\n', out);
				}
			}
			fputc('\n', out);
			break;
		case ITEM_FIGURE:
			break;
		}
	}
	if (in_list)
		fputc('\n', out);
	if (r->n_findings)
		fputs("### Findings\n\n", out);
	for (int sev = SEV_ERROR; sev >= SEV_OK; sev--) {
		for (size_t i = 0; i < r->n_findings; i++) {
			const struct finding *f = &r->findings[i];
			if ((int)f->severity != sev || (o->verbosity < 0 && f->severity < SEV_WARN))
				continue;
			fprintf(out, "- **%s** `%s`: ", md_badge(f->severity), f->id);
			md_escape(f->title, out);
			if (f->subject && *f->subject)
				fprintf(out, " (%s)", f->subject);
			fputc('\n', out);
			for (size_t k = 0; k < f->n_evidence; k++) {
				fputs("  - evidence: ", out);
				md_escape(f->evidence[k], out);
				fputc('\n', out);
			}
			if (f->why) {
				fputs("  - why: ", out);
				md_escape(f->why, out);
				fputc('\n', out);
			}
			if (f->n_fix) {
				fputs("  - fix:\n    ```sh\n", out);
				for (size_t k = 0; k < f->n_fix; k++)
					fprintf(out, "    %s\n", f->fix[k]);
				fputs("    ```\n", out);
			}
		}
	}
	return ferror(out) ? -2 : 0;
}
