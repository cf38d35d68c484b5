/* The field tables of explain's match objects (fields.h). */
#include "cmd/explain/fields.h"

#include "facts/textfacts.h"
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

const struct field_table explain_check_field_table = {
	"matches[].checks[]", check_fields, sizeof check_fields / sizeof check_fields[0], -1, NULL, NULL,
};

static const struct field fact_fields[] = {
	{ .key = "name", .kind = FK_CSTR, .off = JF(name), .valid = FIELD_ALWAYS },
	{ .key = "value", .kind = FK_CHARS, .off = JF(value), .valid = FIELD_ALWAYS, .flags = FIELD_EMPTY_KNOWN },
	{ .key = "source", .kind = FK_NAMED, .off = JF(source), .valid = FIELD_ALWAYS, .name = source_name },
};

const struct field_table judged_fact_field_table = {
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

const struct field_table launch_kernel_field_table = {
	"matches[].launch.kernels[]", kernel_fields, sizeof kernel_fields / sizeof kernel_fields[0], -1, NULL, NULL,
};
