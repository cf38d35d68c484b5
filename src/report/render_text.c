/* Text and Markdown renderers: sections, aligned key/values, tables, then findings. */
#include <stdlib.h>
#include <string.h>

#include "report/render.h"
#include "report/render_internal.h"
#include "util/str.h"

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

/* One logical line: lead (what stands before the text, lead_cols columns wide), then text
 * between the escape codes on and off, wrapped to the width with continuation lines indented
 * by indent columns (a hanging indent). */
static void put_wrapped(FILE *out, const struct render_opts *o, const char *lead, size_t lead_cols,
			const char *on, const char *text, const char *off, size_t indent)
{
	struct strbuf sb;

	if (!o->width) {
		fprintf(out, "%s%s%s%s\n", lead, on, text, off);
		return;
	}
	if (indent + 20 > o->width)
		indent = o->width > 24 ? 4 : 0; /* a narrow terminal: a short indent keeps lines readable */
	sb_init(&sb);
	sb_append(&sb, lead);
	sb_append(&sb, on);
	sb_wrap(&sb, text, lead_cols, indent, o->width);
	sb_append(&sb, off);
	if (sb.failed) /* out of memory: the line unwrapped rather than lost */
		fprintf(out, "%s%s%s%s\n", lead, on, text, off);
	else
		fprintf(out, "%s\n", sb.buf);
	sb_free(&sb);
}

/* "  key  value": a long value wraps under its own column, a long key first on its line; a
 * command is never wrapped */
static void text_kv(const struct report_item *it, size_t key_width, FILE *out, const struct render_opts *o)
{
	struct strbuf lead;

	sb_init(&lead);
	sb_printf(&lead, "  %-*s  ", (int)key_width, it->a);
	if (lead.failed || it->command) /* a command stays whole, to be copied */
		fprintf(out, "  %-*s  %s\n", (int)key_width, it->a, it->b);
	else
		put_wrapped(out, o, lead.buf, lead.len, "", it->b, "", key_width + 4);
	sb_free(&lead);
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

/* A finding's lines: evidence and why hang under their text, so a wrapped line still reads
 * as part of its label. A fix is a command to copy: it is printed whole on its line, never
 * wrapped, since a command copied from a narrow terminal would lose its tail. */
#define FINDING_INDENT 6

static void finding_line(FILE *out, const struct render_opts *o, const char *label, const char *text,
			 const char *on, const char *off, bool whole)
{
	char lead[32];
	size_t cols = (size_t)snprintf(lead, sizeof lead, "%*s%s: ", FINDING_INDENT, "", label);

	if (whole)
		fprintf(out, "%s%s%s%s\n", lead, on, text, off);
	else
		put_wrapped(out, o, lead, cols, on, text, off, cols);
}

static void text_finding(const struct finding *f, FILE *out, const struct render_opts *o)
{
	bool brief = f->severity <= SEV_INFO && o->verbosity <= 0;
	struct strbuf sb;

	sb_init(&sb);
	sb_printf(&sb, "%s%-5s%s %s%s%s: %s", col(o, sev_color(f->severity)), severity_name(f->severity),
		  col(o, C_RESET), col(o, C_BOLD), f->id, col(o, C_RESET), f->title);
	if (f->subject && *f->subject)
		sb_printf(&sb, " %s[%s]%s", col(o, C_DIM), f->subject, col(o, C_RESET));
	if (sb.failed)
		fprintf(out, "%s %s: %s\n", severity_name(f->severity), f->id, f->title);
	else
		put_wrapped(out, o, "", 0, "", sb.buf, "", FINDING_INDENT);
	sb_free(&sb);
	if (brief && f->severity == SEV_OK)
		return;
	for (size_t i = 0; i < f->n_evidence; i++)
		finding_line(out, o, "evidence", f->evidence[i], "", "", false);
	if (f->why && !brief)
		finding_line(out, o, "why", f->why, "", "", false);
	for (size_t i = 0; i < f->n_fix; i++)
		finding_line(out, o, "fix", f->fix[i], col(o, C_BOLD), col(o, C_RESET), true);
}

static const char *hget(const json_t *h, const char *key)
{
	const char *v = json_string_value(json_object_get(h, key));

	return v && *v ? v : NULL;
}

/* Appends a CPU model without its trademark signs and clock ("Intel Xeon Gold 6338"). */
static void short_cpu(struct strbuf *sb, const char *cpu)
{
	static const char *const noise[] = { "(R)", "(r)", "(TM)", "(tm)", " CPU", " Processor", NULL };
	const char *at = strstr(cpu, " @ ");
	size_t n = at ? (size_t)(at - cpu) : strlen(cpu);
	bool space = false;

	for (size_t i = 0; i < n;) {
		size_t skip = 0;

		for (size_t k = 0; noise[k] && !skip; k++)
			if (strncmp(cpu + i, noise[k], strlen(noise[k])) == 0)
				skip = strlen(noise[k]);
		if (skip) {
			i += skip;
			continue;
		}
		if (cpu[i] == ' ') {
			space = true;
		} else {
			if (space && sb->len)
				sb_append(sb, " ");
			space = false;
			sb_append_n(sb, cpu + i, 1);
		}
		i++;
	}
}

/* One line: "cudoctor 0.4.0 on HOST: OS, kernel 6.8.0, glibc 2.39, CPU, date". */
static void text_header(const struct report *r, FILE *out, const struct render_opts *o)
{
	const char *host = hget(r->header, "hostname"), *node = hget(r->header, "node");
	const char *kernel = hget(r->header, "kernel"), *v;
	struct strbuf sb, cpu;

	sb_init(&sb);
	sb_init(&cpu);
	sb_printf(&sb, "cudoctor %s", hget(r->header, "version") ? hget(r->header, "version") : "?");
	if (host)
		sb_printf(&sb, " on %s", host);
	if (node && (!host || strcmp(node, host) != 0))
		sb_printf(&sb, " (node %s)", node);
	sb_printf(&sb, ": %s", hget(r->header, "os") ? hget(r->header, "os") : "unknown OS");
	if (kernel)
		sb_printf(&sb, ", kernel %s", str_starts_with(kernel, "Linux ") ? kernel + 6 : kernel);
	if ((v = hget(r->header, "glibc")))
		sb_printf(&sb, ", glibc %s", v);
	if ((v = hget(r->header, "cpu"))) {
		short_cpu(&cpu, v);
		sb_printf(&sb, ", %s", cpu.buf ? cpu.buf : "");
	}
	if ((v = hget(r->header, "date")))
		sb_printf(&sb, ", %s", v);
	if (!sb.failed && !cpu.failed) {
		put_wrapped(out, o, "", 0, col(o, C_DIM), sb.buf, col(o, C_RESET), 2);
		fputc('\n', out);
	}
	sb_free(&sb);
	sb_free(&cpu);
}

/* -q and the scripting forms (gencode --format nvcc): stdout holds the answer lines or
 * nothing, so `nvcc $(cudoctor gencode ...)` gets flags or no words at all; the warn and
 * error findings go to o->rest (stderr), a line each under -q, whole (with their fixes) in
 * a scripting form, so a script's user still reads why. */
static bool answer_only(const struct report *r, const struct render_opts *o, FILE *out)
{
	struct render_opts plain = *o;

	if (!(o->verbosity < 0 || r->answer_only))
		return false;
	for (size_t i = 0; i < r->n_answer; i++)
		fprintf(out, "%s\n", r->answer[i]);
	if (!o->rest || r->findings_answered)
		return true;
	plain.color = false;
	for (int sev = SEV_ERROR; sev >= SEV_WARN; sev--)
		for (size_t i = 0; i < r->n_findings; i++) {
			const struct finding *f = &r->findings[i];
			char *line;

			if ((int)f->severity != sev)
				continue;
			if (o->verbosity >= 0) {
				text_finding(f, o->rest, &plain);
			} else if ((line = finding_oneline(f))) {
				fprintf(o->rest, "%s\n", line);
				free(line);
			} else {
				fprintf(o->rest, "%s %s\n", severity_name(f->severity), f->id);
			}
		}
	return true;
}

int render_text(const struct report *r, const struct render_opts *o, FILE *out)
{
	size_t width = 0, counts[4] = { 0 };
	bool any_item = false;

	if (answer_only(r, o, out))
		return ferror(out) ? -2 : 0;
	if (r->header && o->verbosity >= 0)
		text_header(r, out, o);

	if (o->verbosity >= 0) {
		for (size_t i = 0; i < r->n_items; i++) {
			const struct report_item *it = &r->items[i];

			if (it->kind == ITEM_FIGURE)
				continue; /* charts are for the HTML page */
			switch (it->kind) {
			case ITEM_SECTION:
				if (any_item)
					fputc('\n', out);
				put_wrapped(out, o, "", 0, col(o, C_BOLD), it->a, col(o, C_RESET), 2);
				width = 0;
				break;
			case ITEM_KV:
				if (i == 0 || r->items[i - 1].kind != ITEM_KV)
					width = kv_run_width(r, i);
				text_kv(it, width, out, o);
				break;
			case ITEM_LINE:
				if (it->command) /* a command stays whole, to be copied */
					fprintf(out, "  %s\n", it->a);
				else
					put_wrapped(out, o, "  ", 2, "", it->a, "", 4);
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

static bool md_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Markdown: characters that would start emphasis, code, a link, HTML or a table cell are
 * escaped, so a path like we|ird_*name* reads as written. An underscore inside a word
 * (sm_90) emphasises nothing on GitHub and stays as it is. */
static void md_escape_n(const char *s, size_t n, FILE *out)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		bool inner_ = s[i] == '_' && i > 0 && md_alnum(s[i - 1]) && md_alnum(s[i + 1]);

		if (strchr("\\`*_|<>[]", s[i]) && !inner_)
			fputc('\\', out);
		fputc(s[i] == '\n' ? ' ' : s[i], out);
	}
}

static void md_escape(const char *s, FILE *out)
{
	md_escape_n(s, strlen(s), out);
}

/* s as a code span; in a table cell a | must still be escaped (GitHub's tables). */
static void md_code_n(const char *s, size_t n, bool in_table, FILE *out)
{
	fputc('`', out);
	for (size_t i = 0; i < n; i++) {
		if (in_table && s[i] == '|')
			fputc('\\', out);
		fputc(s[i] == '\n' ? ' ' : s[i], out);
	}
	fputc('`', out);
}

/* A flag: -x, --long, -gencode, -arch=sm_90 (not "-1" or a dash standing alone). */
static bool is_flag(const char *w, size_t n)
{
	size_t dashes = w[0] == '-' ? (n > 1 && w[1] == '-' ? 2 : 1) : 0;

	return dashes && n > dashes && ((w[dashes] >= 'a' && w[dashes] <= 'z') || (w[dashes] >= 'A' && w[dashes] <= 'Z'));
}

/* A word that belongs to a command line after a flag: another flag or NAME=VALUE. */
static bool is_flag_operand(const char *w, size_t n)
{
	return is_flag(w, n) || (memchr(w, '=', n) && w[0] != '=');
}

/* How many trailing characters of a word are punctuation of the sentence, not of the word:
 * "--gpu," ends in a comma; -DX="90" keeps its closing quote. */
static size_t trailing_punct(const char *w, size_t n)
{
	size_t quotes = 0, trail = 0;

	for (size_t i = 0; i < n; i++)
		quotes += w[i] == '"';
	while (trail < n && strchr(",.;:)\"", w[n - 1 - trail])) {
		if (w[n - 1 - trail] == '"' && quotes % 2 == 0)
			break;
		trail++;
	}
	return trail;
}

/* Prose: `quoted` spans stay code, a flag and the flags and NAME=VALUE words after it become
 * one code span, everything else is escaped. */
static void md_text(const char *s, bool in_table, FILE *out)
{
	while (*s) {
		const char *close;
		size_t n, trail;

		if (*s == '`' && (close = strchr(s + 1, '`')) && close > s + 1 && !memchr(s, '\n', (size_t)(close - s))) {
			md_code_n(s + 1, (size_t)(close - s - 1), in_table, out);
			s = close + 1;
			continue;
		}
		if (*s == ' ' || *s == '\n' || *s == '(' || *s == '"') {
			md_escape_n(s, 1, out);
			s++;
			continue;
		}
		n = strcspn(s, " \n`");
		trail = trailing_punct(s, n);
		if (is_flag(s, n - trail)) {
			size_t span = n - trail;

			/* extend over "arch=compute_90,code=sm_90 -gencode ..." while the word
			 * before ended without punctuation */
			while (!trail && s[span] == ' ') {
				const char *w = s + span + 1;
				size_t wn = strcspn(w, " \n`"), wt = trailing_punct(w, wn);

				if (!wn || !is_flag_operand(w, wn - wt))
					break;
				span = (size_t)(w - s) + wn - wt;
				n = (size_t)(w - s) + wn;
				trail = wt;
			}
			md_code_n(s, span, in_table, out);
			md_escape_n(s + span, n - span, out);
		} else {
			md_escape_n(s, n, out);
		}
		s += n;
		if (*s == '`') { /* a lone backtick */
			md_escape_n(s, 1, out);
			s++;
		}
	}
}

static void html_escape(const char *s, FILE *out)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else if (*s == '&')
			fputs("&amp;", out);
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

/* A section longer than this many lines is folded into <details>. */
#define MD_FOLD_LINES 12

/* Lines the section starting at item i shows, up to the next section. */
static size_t md_section_lines(const struct report *r, size_t i)
{
	size_t n = 0;

	for (i++; i < r->n_items && r->items[i].kind != ITEM_SECTION; i++)
		n += r->items[i].kind == ITEM_TABLE ? r->items[i].nrows : r->items[i].kind != ITEM_FIGURE;
	return n;
}

static void md_summary(const struct report *r, FILE *out)
{
	size_t counts[4] = { 0 };

	for (size_t i = 0; i < r->n_findings; i++)
		counts[r->findings[i].severity]++;
	fputs("**Summary:** ", out);
	if (r->n_findings)
		fprintf(out, "%zu error%s, %zu warning%s, %zu info, %zu ok", counts[SEV_ERROR],
			counts[SEV_ERROR] == 1 ? "" : "s", counts[SEV_WARN], counts[SEV_WARN] == 1 ? "" : "s",
			counts[SEV_INFO], counts[SEV_OK]);
	else
		fputs("no findings", out);
	if (r->n_answer == 1) {
		fputs("; ", out);
		md_text(r->answer[0], false, out);
	}
	fputs("\n\n", out);
}

const char *const report_header_keys[REPORT_HEADER_FIELDS] = { "version", "hostname", "node", "os",
								"kernel", "glibc", "cpu", "date" };
const char *const report_header_labels[REPORT_HEADER_FIELDS] = { "cudoctor", "host", "node", "OS",
								  "kernel", "glibc", "CPU", "date (UTC)" };

static void md_header(const struct report *r, FILE *out)
{
	const char *const *keys = report_header_keys, *const *labels = report_header_labels;
	const size_t n = REPORT_HEADER_FIELDS;

	fputc('|', out);
	for (size_t k = 0; k < n; k++)
		fprintf(out, " %s |", labels[k]);
	fputs("\n|", out);
	for (size_t k = 0; k < n; k++)
		fputs("---|", out);
	fputs("\n|", out);
	for (size_t k = 0; k < n; k++) {
		const char *v = json_string_value(json_object_get(r->header, keys[k]));

		fputc(' ', out);
		md_escape(v && *v ? v : "?", out);
		fputs(" |", out);
	}
	fputs("\n\n", out);
}

static void md_finding(const struct finding *f, FILE *out)
{
	fprintf(out, "- **%s** `%s`: ", md_badge(f->severity), f->id);
	md_text(f->title, false, out);
	if (f->subject && *f->subject) {
		fputs(" (", out);
		md_escape(f->subject, out);
		fputc(')', out);
	}
	fputc('\n', out);
	for (size_t k = 0; k < f->n_evidence; k++) {
		fputs("  - evidence: ", out);
		md_text(f->evidence[k], false, out);
		fputc('\n', out);
	}
	if (f->why) {
		fputs("  - why: ", out);
		md_text(f->why, false, out);
		fputc('\n', out);
	}
	if (f->n_fix) {
		fputs("  - fix:\n    ```sh\n", out);
		for (size_t k = 0; k < f->n_fix; k++)
			fprintf(out, "    %s\n", f->fix[k]);
		fputs("    ```\n", out);
	}
}

int render_markdown(const struct report *r, const struct render_opts *o, FILE *out)
{
	bool in_list = false, folded = false;
	size_t quiet_findings = 0;

	if (answer_only(r, o, out))
		return ferror(out) ? -2 : 0;
	fprintf(out, "## cudoctor %s\n\n", r->command);
	md_summary(r, out);
	if (r->header)
		md_header(r, out);
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
			if (folded)
				fputs("</details>\n\n", out);
			folded = md_section_lines(r, i) > MD_FOLD_LINES;
			if (folded) {
				fputs("<details><summary>", out);
				html_escape(it->a, out);
				fprintf(out, " (%zu lines)</summary>\n\n", md_section_lines(r, i));
			} else {
				fputs("### ", out);
				md_escape(it->a, out);
				fputs("\n\n", out);
			}
			break;
		case ITEM_KV:
			fputs("- **", out);
			md_escape(it->a, out);
			fputs(":** ", out);
			if (it->command) /* one code span: copied whole */
				md_code_n(it->b, strlen(it->b), false, out);
			else
				md_text(it->b, false, out);
			fputc('\n', out);
			in_list = true;
			break;
		case ITEM_LINE:
			if (it->command) /* one code span: copied whole */
				md_code_n(it->a, strlen(it->a), false, out);
			else
				md_text(it->a, false, out);
			fputs("\n\n", out);
			break;
		case ITEM_TABLE:
			if (!folded && it->nrows > MD_FOLD_LINES)
				fprintf(out, "<details><summary>%zu rows</summary>\n\n", it->nrows - 1);
			for (size_t row = 0; row < it->nrows; row++) {
				fputc('|', out);
				for (size_t c = 0; c < it->ncols; c++) {
					fputc(' ', out);
					md_text(it->cells[row * it->ncols + c], true, out);
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
			if (!folded && it->nrows > MD_FOLD_LINES)
				fputs("</details>\n\n", out);
			break;
		case ITEM_FIGURE:
			break;
		}
	}
	if (in_list)
		fputc('\n', out);
	if (folded)
		fputs("</details>\n\n", out);
	if (r->n_findings)
		fputs("### Findings\n\n", out);
	for (int sev = SEV_ERROR; sev >= SEV_WARN; sev--)
		for (size_t i = 0; i < r->n_findings; i++)
			if ((int)r->findings[i].severity == sev)
				md_finding(&r->findings[i], out);
	for (size_t i = 0; o->verbosity >= 0 && i < r->n_findings; i++)
		quiet_findings += r->findings[i].severity < SEV_WARN;
	/* info and ok findings: many on a healthy machine, so folded when there are several */
	if (quiet_findings > 3)
		fprintf(out, "\n<details><summary>%zu info and ok findings</summary>\n\n", quiet_findings);
	for (int sev = SEV_INFO; quiet_findings && sev >= SEV_OK; sev--)
		for (size_t i = 0; i < r->n_findings; i++)
			if ((int)r->findings[i].severity == sev)
				md_finding(&r->findings[i], out);
	if (quiet_findings > 3)
		fputs("\n</details>\n", out);
	return ferror(out) ? -2 : 0;
}
