/* The report as one self-contained HTML page (--html FILE): inline CSS, inline SVG charts,
 * no script and no external asset, so it opens offline and can be mailed as one file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "report/render_html.h"
#include "report/render_internal.h"
#include "util/err.h"
#include "util/outfile.h"

#ifndef CUDOCTOR_VERSION
#define CUDOCTOR_VERSION "0.0.0"
#endif

/* No colour here is one the charts draw with (src/lab/svg.c), so a chart's pixels stay its own. */
static const char css[] =
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;background:#f4f5f7;color:#1c1e21}"
	"main{max-width:1000px;margin:0 auto;padding:16px 20px 40px}"
	"header{background:#22272e;color:#f0f3f6;padding:18px 20px}header h1{margin:0;font-size:22px}"
	"header p{margin:4px 0 0;color:#c9d1d9}"
	"header dl{grid-template-columns:repeat(4,max-content 1fr);font-size:13px;margin:8px 0 0}"
	"header dt{color:#9da7b3}header dd{color:#f0f3f6}"
	"section{background:#fff;border:1px solid #d8dbe0;border-radius:6px;margin:14px 0;padding:10px 16px}"
	"h2{font-size:17px;margin:6px 0 10px}"
	"dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 14px;margin:6px 0}"
	"dt{font-weight:600;color:#444}dd{margin:0;overflow-wrap:anywhere}"
	"table{border-collapse:collapse;margin:8px 0;font-size:14px}"
	"th,td{border:1px solid #e1e4e8;padding:3px 9px;text-align:left}th{background:#f0f1f3}"
	"td.num{text-align:right;font-variant-numeric:tabular-nums}"
	"figure{margin:10px 0}figure svg{max-width:100%;height:auto;border:1px solid #e1e4e8}"
	"figcaption{font-size:13px;color:#555}"
	".finding{border-left:5px solid #999;padding:4px 10px;margin:8px 0;background:#fafbfc}"
	".finding ul{margin:4px 0;padding-left:20px}.finding pre{background:#f0f1f3;padding:6px 8px;margin:4px 0;"
	"white-space:pre-wrap}"
	".badge{display:inline-block;min-width:48px;text-align:center;border-radius:4px;color:#fff;font-weight:700;"
	"font-size:12px;padding:1px 6px;margin-right:6px;text-transform:uppercase}"
	".sev-error{border-color:#b3261e}.sev-error .badge{background:#b3261e}"
	".sev-warn{border-color:#b26a00}.sev-warn .badge{background:#b26a00}"
	".sev-info{border-color:#0b6e99}.sev-info .badge{background:#0b6e99}"
	".sev-ok{border-color:#1e7b34}.sev-ok .badge{background:#1e7b34}"
	".verdict-confirmed{color:#1e7b34}.verdict-refuted{color:#b3261e}.verdict-inconclusive{color:#b26a00}"
	".verdict-failed{color:#b3261e}dd.verdict b{text-transform:uppercase}"
	"code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}.subject{color:#666}";

static void esc(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, out);
		}
	}
}

/* A value that reads as a number (with a sign, a point, an exponent) is right-aligned. */
static bool numeric(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr("0123456789.-+e", *s))
			return false;
	return true;
}

static const char *const verdicts[] = { "confirmed", "refuted", "inconclusive", "failed" };

/* kv "verdict": its first word ("confirmed: ...") colours it */
static void kv(FILE *out, const char *key, const char *value)
{
	fputs("<dt>", out);
	esc(out, key);
	fputs("</dt>", out);
	if (strcmp(key, "verdict") == 0)
		for (size_t i = 0; i < sizeof verdicts / sizeof *verdicts; i++) {
			size_t n = strlen(verdicts[i]);
			if (strncmp(value, verdicts[i], n) == 0 && (value[n] == ':' || !value[n])) {
				fprintf(out, "<dd class=\"verdict verdict-%s\"><b>%s</b>", verdicts[i], verdicts[i]);
				esc(out, value + n);
				fputs("</dd>\n", out);
				return;
			}
		}
	fputs("<dd>", out);
	esc(out, value);
	fputs("</dd>\n", out);
}

static void table(FILE *out, const struct report_item *t)
{
	fputs("<table>\n", out);
	for (size_t r = 0; r < t->nrows; r++) {
		fputs("<tr>", out);
		for (size_t c = 0; c < t->ncols; c++) {
			const char *cell = t->cells[r * t->ncols + c];
			fputs(r == 0 ? "<th>" : numeric(cell) ? "<td class=\"num\">" : "<td>", out);
			esc(out, cell);
			fputs(r == 0 ? "</th>" : "</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void finding(FILE *out, const struct finding *f)
{
	fprintf(out, "<div class=\"finding sev-%s\"><span class=\"badge\">%s</span><code>", severity_name(f->severity),
		severity_name(f->severity));
	esc(out, f->id);
	fputs("</code> ", out);
	esc(out, f->title);
	if (f->subject && *f->subject) {
		fputs(" <span class=\"subject\">[", out);
		esc(out, f->subject);
		fputs("]</span>", out);
	}
	if (f->n_evidence) {
		fputs("<ul>", out);
		for (size_t i = 0; i < f->n_evidence; i++) {
			fputs("<li>", out);
			esc(out, f->evidence[i]);
			fputs("</li>", out);
		}
		fputs("</ul>", out);
	}
	if (f->why) {
		fputs("<p>", out);
		esc(out, f->why);
		fputs("</p>", out);
	}
	if (f->n_fix) {
		fputs("<pre>", out);
		for (size_t i = 0; i < f->n_fix; i++) {
			esc(out, f->fix[i]);
			fputc('\n', out);
		}
		fputs("</pre>", out);
	}
	fputs("</div>\n", out);
}

/* Where the report comes from, as every report starts: the host, OS, kernel, glibc, CPU and
 * date of its header (escaped: a host name is the machine's to choose). */
static void provenance(FILE *out, const struct report *r)
{
	if (!r->header)
		return;
	fputs("<dl class=\"provenance\">", out);
	for (size_t k = 0; k < REPORT_HEADER_FIELDS; k++) {
		const char *v = json_string_value(json_object_get(r->header, report_header_keys[k]));

		if (!v || !*v)
			continue;
		fprintf(out, "<dt>%s</dt><dd>", report_header_labels[k]);
		esc(out, v);
		fputs("</dd>", out);
	}
	fputs("</dl>\n", out);
}

int render_html(const struct report *r, FILE *out)
{
	size_t counts[4] = { 0 };
	for (size_t i = 0; i < r->n_findings; i++)
		counts[r->findings[i].severity]++;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>cudoctor ",
	      out);
	esc(out, r->command);
	fprintf(out, "</title>\n<style>%s</style>\n</head><body>\n<header><h1>cudoctor ", css);
	esc(out, r->command);
	fprintf(out, "</h1><p>cudoctor %s &middot; %zu error%s, %zu warning%s, %zu info, %zu ok</p>\n",
		CUDOCTOR_VERSION, counts[SEV_ERROR], counts[SEV_ERROR] == 1 ? "" : "s", counts[SEV_WARN],
		counts[SEV_WARN] == 1 ? "" : "s", counts[SEV_INFO], counts[SEV_OK]);
	provenance(out, r);
	fputs("</header>\n<main>\n", out);
	if (r->n_findings) {
		fputs("<section id=\"findings\"><h2>Findings</h2>\n", out);
		for (int sev = SEV_ERROR; sev >= SEV_OK; sev--)
			for (size_t i = 0; i < r->n_findings; i++)
				if ((int)r->findings[i].severity == sev)
					finding(out, &r->findings[i]);
		fputs("</section>\n", out);
	}
	bool open = false, in_dl = false;
	for (size_t i = 0; i < r->n_items; i++) {
		const struct report_item *it = &r->items[i];
		if (in_dl && it->kind != ITEM_KV) {
			fputs("</dl>\n", out);
			in_dl = false;
		}
		if (!open && it->kind != ITEM_SECTION) {
			fputs("<section>\n", out);
			open = true;
		}
		switch (it->kind) {
		case ITEM_SECTION:
			fputs(open ? "</section>\n<section><h2>" : "<section><h2>", out);
			esc(out, it->a);
			fputs("</h2>\n", out);
			open = true;
			break;
		case ITEM_KV:
			if (!in_dl)
				fputs("<dl>\n", out);
			in_dl = true;
			kv(out, it->a, it->b);
			break;
		case ITEM_LINE:
			fputs("<p>", out);
			esc(out, it->a);
			fputs("</p>\n", out);
			break;
		case ITEM_TABLE:
			table(out, it);
			break;
		case ITEM_FIGURE:
			/* our own SVG (lab/svg.c escapes every text it draws): inline as it is */
			fputs("<figure>", out);
			fputs(it->b, out);
			if (it->a[0]) {
				fputs("<figcaption>", out);
				esc(out, it->a);
				fputs("</figcaption>", out);
			}
			fputs("</figure>\n", out);
			break;
		}
	}
	if (in_dl)
		fputs("</dl>\n", out);
	if (open)
		fputs("</section>\n", out);
	fputs("</main>\n</body></html>\n", out);
	return ferror(out) ? CD_EIO : CD_OK;
}

int render_html_file(const struct report *r, const char *path, char *err)
{
	struct outfile o;
	FILE *f;
	int rc = outfile_open(&o, path, "--html", err);

	if (rc != CD_OK)
		return rc;
	if (!(f = outfile_stream(&o))) {
		outfile_abort(&o);
		return cd_fail(err, CD_ENOMEM, "out of memory");
	}
	if (render_html(r, f) != CD_OK) {
		outfile_abort(&o);
		return cd_fail(err, CD_EIO, "--html %s: write failed", path);
	}
	return outfile_commit(&o, err);
}
