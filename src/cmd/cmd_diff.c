/* cudoctor diff A.json B.json: what changed between two reports of one command (the thing
 * to paste when "it worked yesterday"). The comparison is cmd/diff/report_diff.c. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "report/diff.h"
#include "util/file.h"
#include "util/str.h"
#include "util/utf16.h"

#define REPORT_MAX (64u << 20)

static const struct cli_opt diff_opts[] = { { 0 } };

static int load(const char *path, json_t **out, char *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	/* a byte past the bound says the file is larger, not cut short */
	if ((rc = file_read_text(path, REPORT_MAX + 1, &text, &len, err)) != CD_OK)
		return rc;
	if (len > REPORT_MAX) {
		rc = cd_fail(err, CD_EFORMAT, "%.200s: larger than any report cudoctor writes (at most %u MiB read)",
			     path, REPORT_MAX >> 20);
	} else {
		/* `cudoctor --json doctor > a.json` in Windows PowerShell 5.1 writes UTF-16 */
		char *utf8;
		const unsigned char *json;
		size_t n;

		rc = utf16_text_as_utf8((const unsigned char *)text, len, &utf8, &json, &n);
		rc = rc != CD_OK ? cd_fail(err, rc, "out of memory") : report_diff_load(path, json, n, out, err);
		free(utf8);
	}
	free(text);
	return rc;
}

static char *value_text(const json_t *v)
{
	if (!v || json_is_null(v))
		return cd_strdup("none");
	if (json_is_string(v))
		return cd_strdup(json_string_value(v));
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

static const char *side_str(const json_t *r, const char *key)
{
	const char *v = json_string_value(json_object_get(json_object_get(r, "header"), key));

	return v ? v : "?";
}

/* One report's side: a line of text, and "a" or "b": {path, command, node, date}. */
static int describe_side(struct report_rec *top, const char *tag, const char *path, const json_t *j)
{
	const json_t *h = json_object_get(j, "header");
	struct report_rec w;

	report_rec_object(top, !strcmp(tag, "A") ? "a" : "b", &w);
	/* a file name is anyone's bytes: the record makes it safe text */
	report_fieldf(&w, tag, "path", rv_str(path), "%s: node %s, %s", path, side_str(j, "node"), side_str(j, "date"));
	report_field(&w, NULL, "command", rv_str(json_string_value(json_object_get(j, "command"))));
	report_field(&w, NULL, "node", rv_json_copy(json_object_get(h, "node")));
	report_field(&w, NULL, "date", rv_json_copy(json_object_get(h, "date")));
	return report_rec_end(&w);
}

static const char *area_title(const char *area)
{
	static const char *const t[][2] = { { "machine", "Machine" }, { "driver", "Driver" }, { "gpus", "GPUs" },
					    { "toolkits", "Toolkits" }, { "runtimes", "Runtimes" },
					    { "frameworks", "Frameworks" }, { "findings", "Findings" } };

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (!strcmp(t[i][0], area))
			return t[i][1];
	return area;
}

static int render_changes(struct report_rec *top, const struct diff_result *d)
{
	struct report_rec arr, it;
	const char *area = NULL;
	int rc = CD_OK;

	report_rec_array(top, "changes", &arr);
	for (size_t i = 0; rc == CD_OK && i < d->n; i++) {
		const struct diff_entry *e = &d->e[i];
		char *before = NULL, *after = NULL;

		if (!area || strcmp(area, e->area) != 0)
			report_rec_section(&arr, "%s", area_title(e->area));
		area = e->area;
		report_rec_item(&arr, &it);
		if (e->change == DIFF_CHANGED) {
			before = value_text(e->before);
			after = value_text(e->after);
			if (!before || !after)
				report_rec_fail(&it, CD_ENOMEM);
			else if (!strcmp(e->item, e->area))
				report_rec_line(&it, "changed  %s: %s -> %s", e->field, before, after);
			else
				report_rec_line(&it, "changed  %s: %s %s -> %s", e->item, e->field, before, after);
		} else {
			report_rec_line(&it, "%s  %s", e->change == DIFF_ADDED ? "added  " : "removed", e->item);
		}
		report_field(&it, NULL, "area", rv_str(e->area));
		report_field(&it, NULL, "change", rv_str(diff_change_name(e->change)));
		report_field(&it, NULL, "item", rv_str(e->item));
		report_field(&it, NULL, "field", rv_str(e->field));
		report_field(&it, NULL, "before", rv_json_copy(e->before));
		report_field(&it, NULL, "after", rv_json_copy(e->after));
		rc = report_rec_end(&it);
		free(before);
		free(after);
	}
	if (d->n == 0)
		report_rec_line(&arr, "no change in the machine, driver, GPUs, toolkits, runtimes, frameworks or findings");
	if ((rc = report_rec_end(&arr)) == CD_OK)
		rc = report_answer(top->r, "%zu change%s", d->n, d->n == 1 ? "" : "s");
	return rc;
}

static int run_diff(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	json_t *a = NULL, *b = NULL;
	struct diff_result d = { 0 };
	struct report_rec top;
	const char *ca, *cb;
	int rc;

	(void)g;
	if (argc != 3)
		return cd_fail(err, CD_EUSAGE, "diff compares two reports: cudoctor diff A.json B.json (%s)",
			       argc < 3 ? "too few" : "too many");
	/* both read before either is refused, so that both bad reports are named at once */
	rc = load(argv[1], &a, err);
	if (rc == CD_OK) {
		rc = load(argv[2], &b, err);
	} else if (rc != CD_ENOMEM) {
		char err_b[CD_ERRMSG];

		if (load(argv[2], &b, err_b) != CD_OK) {
			cmd_input_error(r, "diff", err);
			snprintf(err, CD_ERRMSG, "%s", err_b);
		}
	}
	if (rc != CD_OK)
		goto out;
	ca = json_string_value(json_object_get(a, "command"));
	cb = json_string_value(json_object_get(b, "command"));
	if (strcmp(ca, cb) != 0) {
		rc = cd_fail(err, CD_EUSAGE, "%.100s is a '%.20s' report and %.100s a '%.20s' one; diff compares two "
			     "reports of one command", argv[1], ca, argv[2], cb);
		goto out;
	}
	report_rec_top(&top, r);
	report_rec_section(&top, "Comparing %s reports", ca);
	if ((rc = describe_side(&top, "A", argv[1], a)) != CD_OK || (rc = describe_side(&top, "B", argv[2], b)) != CD_OK)
		goto end;
	report_field(&top, NULL, "compared_command", rv_str(ca));
	if ((rc = report_diff(a, b, &d)) != CD_OK) {
		cd_fail(err, rc, "out of memory");
		goto end;
	}
	rc = render_changes(&top, &d);
end:
	rc = report_rec_end(&top) != CD_OK ? top.rc : rc;
out:
	report_diff_free(&d);
	json_decref(a);
	json_decref(b);
	return rc;
}

const struct cd_command cmd_diff = {
	.name = "diff",
	.summary = "what changed between two --json reports of one command (driver, GPUs, toolkits, findings)",
	.usage = "cudoctor diff A.json B.json",
	.opts = diff_opts,
	.operands = CLI_C_FILE,
	.help = "Compares two reports made with `cudoctor --json COMMAND` (yesterday's and today's, or two "
		"machines'): the machine (OS, kernel, glibc, CPU, node), the driver (version, CUDA "
		"version, branch, kernel module), the GPUs (by UUID, else PCI address or index: added, "
		"removed, name, compute capability, memory), the toolkits (by nvcc), the runtimes (by "
		"file), the Python frameworks and the findings (by id and subject: added, removed, "
		"severity or title changed). -q prints the number of changes; --json lists each as "
		"{area, change, item, field, before, after} (docs/json.md).\n\n"
		"Exit status: 0 when both reports were read and compared (whatever changed), 2 when they "
		"come from different commands, 3 when one cannot be read or is no cudoctor report.",
	.needs = NEEDS_NONE,
	.run = run_diff,
};
