/* The field tables of the lab's structs (fields.h). */
#include "lab/fields.h"

#include <stdio.h>

#include "lab/lab.h"

#define LB(m) offsetof(struct lab, m)
#define LR(m) offsetof(struct lab_result, m)
#define LM(m) offsetof(struct lab_meas, m)
#define LD(m) offsetof(struct lab_dev, m)

static const struct field lab_fields[] = {
	[LAB_F_NAME] = { .key = "name", .label = "lab", .kind = FK_CSTR, .off = LB(name), .valid = FIELD_ALWAYS,
			 .views = FIELD_BRIEF },
	[LAB_F_CONCEPT] = { .key = "concept", .label = "concept", .kind = FK_CSTR, .off = LB(concept),
			    .valid = FIELD_ALWAYS, .views = FIELD_BRIEF },
	[LAB_F_MEASURES] = { .key = "measures", .label = "measures", .kind = FK_CSTR, .off = LB(measures),
			     .valid = FIELD_ALWAYS, .views = FIELD_BRIEF },
	[LAB_F_CLAIM] = { .key = "claim", .label = "claim", .kind = FK_CSTR, .off = LB(claim), .valid = FIELD_ALWAYS,
			  .views = FIELD_FULL },
	[LAB_F_LESSON] = { .key = "lesson", .label = "lesson", .kind = FK_CSTR, .off = LB(lesson),
			   .valid = FIELD_ALWAYS, .views = FIELD_FULL },
};

const struct field_table lab_field_table = {
	"labs[]", lab_fields, sizeof lab_fields / sizeof lab_fields[0], -1, NULL, NULL,
};

static const char *verdict_name(int v)
{
	return lab_verdict_name((enum lab_verdict)v);
}

static const struct field result_fields[] = {
	[LAB_R_SETUP] = { .key = "setup", .label = "set-up", .kind = FK_CHARS, .off = LR(setup), .valid = FIELD_ALWAYS,
			  .views = FIELD_ALL, .flags = FIELD_EMPTY_KNOWN | FIELD_QUIET },
	[LAB_R_VERDICT] = { .key = "verdict", .label = "verdict", .kind = FK_NAMED, .off = LR(verdict),
			    .valid = FIELD_ALWAYS, .views = FIELD_ALL, .name = verdict_name },
	[LAB_R_NOTE] = { .key = "note", .label = "note", .kind = FK_CHARS, .off = LR(note), .valid = FIELD_ALWAYS,
			 .views = FIELD_ALL, .flags = FIELD_OMIT },
};

const struct field_table lab_result_field_table = {
	"labs[]", result_fields, sizeof result_fields / sizeof result_fields[0], -1, NULL, NULL,
};

/* "1234", "456", "78.9", "1.23": as many digits as a measurement carries */
static void value_text(const void *obj, char *buf, size_t n)
{
	double v = ((const struct lab_meas *)obj)->value, av = v < 0 ? -v : v;

	if (v == (long long)v && av < 1e12)
		snprintf(buf, n, "%lld", (long long)v);
	else if (av >= 100)
		snprintf(buf, n, "%.0f", v);
	else if (av >= 10)
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "%.3g", v);
}

static const struct field meas_fields[] = {
	{ .key = "label", .label = "measurement", .kind = FK_CHARS, .off = LM(label), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL, .flags = FIELD_EMPTY_KNOWN },
	{ .key = "value", .label = "value", .kind = FK_DOUBLE, .off = LM(value), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL, .text = value_text },
	{ .key = "unit", .label = "unit", .kind = FK_CHARS, .off = LM(unit), .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .flags = FIELD_EMPTY_KNOWN },
};

const struct field_table lab_meas_field_table = {
	"labs[].measurements[]", meas_fields, sizeof meas_fields / sizeof meas_fields[0], -1, NULL, NULL,
};

static bool clock_mhz(const void *obj, struct field_value *v)
{
	v->kind = FV_INT;
	v->i = ((const struct lab_dev *)obj)->clock_khz / 1000;
	return true;
}

static bool memory_clock_mhz(const void *obj, struct field_value *v)
{
	v->kind = FV_INT;
	v->i = ((const struct lab_dev *)obj)->mem_clock_khz / 1000;
	return true;
}

/* "NVIDIA H200 (sm_90), 132 SMs, 60 MiB L2, 143771 MiB memory" */
static const char *gpu_line(const void *obj, char *buf, size_t cap)
{
	const struct lab_dev *d = obj;

	snprintf(buf, cap, "%s (sm_%d%d), %d SMs, %d MiB L2, %zu MiB memory", d->name, d->cc_major, d->cc_minor,
		 d->sm_count, d->l2_bytes >> 20, d->total_mem >> 20);
	return buf;
}

static const struct field dev_fields[] = {
	{ .label = "GPU", .kind = FK_TEXT, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .string = gpu_line },
	{ .key = "name", .kind = FK_CHARS, .off = LD(name), .valid = FIELD_ALWAYS, .flags = FIELD_EMPTY_KNOWN },
	{ .key = "cc_major", .kind = FK_INT, .off = LD(cc_major), .valid = FIELD_ALWAYS },
	{ .key = "cc_minor", .kind = FK_INT, .off = LD(cc_minor), .valid = FIELD_ALWAYS },
	{ .key = "sm_count", .kind = FK_INT, .off = LD(sm_count), .valid = FIELD_ALWAYS },
	{ .key = "l2_bytes", .kind = FK_INT, .off = LD(l2_bytes), .valid = FIELD_ALWAYS },
	{ .key = "memory_bytes", .kind = FK_ULLONG, .off = LD(total_mem), .valid = FIELD_ALWAYS },
	{ .key = "clock_mhz", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = clock_mhz },
	{ .key = "memory_clock_mhz", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = memory_clock_mhz },
};

const struct field_table lab_dev_field_table = {
	"device", dev_fields, sizeof dev_fields / sizeof dev_fields[0], -1, NULL, NULL,
};
