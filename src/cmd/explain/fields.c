/* explain's match objects (fields.h): their field tables, and each match's object written
 * from its finding, checks and verdict. */
#include "cmd/explain/fields.h"

#include <string.h>

#include "facts/textfacts.h"
#include "show/arch_verdicts.h"
#include "rules/arch_launch.h"
#include "rules/checks.h"
#include "rules/explain_judge.h"

#define CK(m) offsetof(struct explain_check, m)
#define JF(m) offsetof(struct judged_fact, m)
#define LK(m) offsetof(struct explain_launch_kernel, m)

static const char *result_name(int v)
{
	return check_result_name((enum check_result)v);
}

static const char *source_name(int v)
{
	return fact_source_name((enum fact_source)v);
}

static const char *limit_name(int v)
{
	return launch_limit_name((enum launch_limit)v);
}

static const struct field check_fields[] = {
	{ .key = "name", .kind = FK_CHARS, .off = CK(name), .valid = FIELD_ALWAYS, .flags = FIELD_EMPTY_KNOWN },
	{ .key = "result", .kind = FK_NAMED, .off = CK(result), .valid = FIELD_ALWAYS, .name = result_name },
	{ .key = "detail", .kind = FK_CHARS, .off = CK(detail), .valid = FIELD_ALWAYS, .flags = FIELD_EMPTY_KNOWN },
};

static const struct field_table explain_check_field_table = {
	"matches[].checks[]", check_fields, sizeof check_fields / sizeof check_fields[0], -1, NULL, NULL,
};

static const struct field fact_fields[] = {
	{ .key = "name", .kind = FK_CSTR, .off = JF(name), .valid = FIELD_ALWAYS },
	{ .key = "value", .kind = FK_CHARS, .off = JF(value), .valid = FIELD_ALWAYS, .flags = FIELD_EMPTY_KNOWN },
	{ .key = "source", .kind = FK_NAMED, .off = JF(source), .valid = FIELD_ALWAYS, .name = source_name },
};

static const struct field_table judged_fact_field_table = {
	"matches[].facts[]", fact_fields, sizeof fact_fields / sizeof fact_fields[0], -1, NULL, NULL,
};

static const struct field kernel_fields[] = {
	{ .key = "gpu", .kind = FK_CHARS, .off = LK(gpu), .valid = FIELD_ALWAYS, .flags = FIELD_EMPTY_KNOWN },
	{ .key = "image", .kind = FK_CHARS, .off = LK(image), .valid = FIELD_ALWAYS, .flags = FIELD_EMPTY_KNOWN },
	{ .key = "name", .kind = FK_CHARS, .off = LK(name), .valid = FIELD_ALWAYS, .flags = FIELD_EMPTY_KNOWN },
	{ .key = "registers", .kind = FK_UINT, .off = LK(registers), .valid = FIELD_ALWAYS },
	{ .key = "limit", .kind = FK_NAMED, .off = LK(limit), .valid = FIELD_ALWAYS, .name = limit_name },
	{ .key = "largest_block", .kind = FK_UINT, .off = LK(largest), .valid = FIELD_ALWAYS },
};

static const struct field_table launch_kernel_field_table = {
	"matches[].launch.kernels[]", kernel_fields, sizeof kernel_fields / sizeof kernel_fields[0], -1, NULL, NULL,
};

/* The binary check's verdicts as arch prints them for a file: {path, format, verdicts}. */
static void binary_fields(struct report_rec *m, const struct explain_binary *b)
{
	struct report_rec o, arr, it;

	report_rec_object(m, "binary", &o);
	report_field(&o, NULL, "path", rv_str(b->path));
	report_field(&o, NULL, "format", rv_str(b->format));
	report_rec_array(&o, "verdicts", &arr);
	for (size_t i = 0; i < b->n; i++) {
		report_rec_item(&arr, &it);
		arch_verdict_fields(&it, b->gpus[i], &b->v[i]);
		if (report_rec_end(&it) != CD_OK)
			break;
	}
	if (report_rec_end(&arr) == CD_OK && report_rec_end(&o) != CD_OK)
		return; /* either failure is m's now */
}

/* The launch check as {block, block_from, kernels: [...]}: the kernels that cannot launch. */
static void launch_fields(struct report_rec *m, const struct explain_launch *l)
{
	struct report_rec o, arr, it;

	report_rec_object(m, "launch", &o);
	report_field(&o, NULL, "block", rv_int(l->block));
	report_field(&o, NULL, "block_from", rv_str(l->block_from));
	report_rec_array(&o, "kernels", &arr);
	for (size_t i = 0; i < l->n; i++) {
		report_rec_item(&arr, &it);
		report_fields(&it, &launch_kernel_field_table, &l->k[i], FIELD_ALL);
		if (report_rec_end(&it) != CD_OK)
			break;
	}
	if (report_rec_end(&arr) == CD_OK && report_rec_end(&o) != CD_OK)
		return; /* either failure is m's now */
}

/* One array of objects of table t under key, n of them from items (each size bytes). */
static void list_fields(struct report_rec *m, const char *key, const struct field_table *t, const void *items,
			size_t n, size_t size)
{
	struct report_rec arr, it;

	report_rec_array(m, key, &arr);
	for (size_t i = 0; i < n; i++) {
		report_rec_item(&arr, &it);
		report_fields(&it, t, (const char *)items + i * size, FIELD_ALL);
		if (report_rec_end(&it) != CD_OK)
			break;
	}
	if (report_rec_end(&arr) != CD_OK)
		return; /* the failure is m's now */
}

/* The match's object (JSON only: its text is the finding), made from its finding f (id,
 * severity, why, evidence of the text, fix) and where the text said it; n_text: how many of
 * f's evidence lines are the text's (matched lines first, said "matched: ..."). */
int explain_match_fields(struct report_rec *matches, const struct finding *f, const struct kb_finding *x,
			 const struct explain_match *m, size_t n_text, const struct explain_checks *ck, bool checked,
			 const struct explain_verdict *v)
{
	struct report_rec o, arr, e;

	report_rec_item(matches, &o);
	report_field(&o, NULL, "id", rv_str(f->id));
	report_field(&o, NULL, "severity", rv_str(severity_name(f->severity)));
	report_field(&o, NULL, "matched_text", rv_str(m->lines[0]));
	report_field(&o, NULL, "layer", rv_str(x->layer));
	report_field(&o, NULL, "why", rv_str(f->why));
	report_rec_array(&o, "evidence", &arr);
	for (size_t i = 0; i < n_text; i++) {
		const char *ev = f->evidence[i];

		report_rec_push(&arr, rv_str(strncmp(ev, "matched: ", 9) == 0 ? ev + 9 : ev));
	}
	if (report_rec_end(&arr) != CD_OK)
		return report_rec_end(&o);
	if (checked)
		list_fields(&o, "checks", &explain_check_field_table, ck->c, ck->n, sizeof ck->c[0]);
	else
		report_field(&o, NULL, "checks", rv_null());
	report_rec_array(&o, "fix", &arr);
	for (size_t i = 0; i < f->n_fix; i++)
		report_rec_push(&arr, rv_str(f->fix[i]));
	if (report_rec_end(&arr) != CD_OK)
		return report_rec_end(&o);
	report_field(&o, NULL, "line", rv_int((long long)m->line));
	report_field(&o, NULL, "last_line", rv_int((long long)m->last_line));
	report_field(&o, NULL, "count", rv_int((long long)m->count));
	report_field(&o, NULL, "last_text", rv_str(m->last));
	list_fields(&o, "facts", &judged_fact_field_table, v->facts, v->n_facts, sizeof v->facts[0]);
	if (m->error) {
		report_rec_object(&o, "error", &e);
		report_field(&e, NULL, "name", rv_str(m->error->name));
		report_field(&e, NULL, "code", rv_int(m->error->code));
		report_field(&e, NULL, "api", rv_str(kb_api_name(m->error->api)));
		if (report_rec_end(&e) != CD_OK)
			return report_rec_end(&o);
	}
	if (ck->binary.judged)
		binary_fields(&o, &ck->binary);
	if (ck->launch.judged)
		launch_fields(&o, &ck->launch);
	return report_rec_end(&o);
}
