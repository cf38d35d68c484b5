/* The framework build tables' rows as fields: the keys and labels of `kb torch` and
 * `kb framework` (docs/json.md "torch[]", "frameworks[]"), and the keys plan shares with them. */
#include <stdio.h>

#include "kb/frameworks.h"

#define TB(m) offsetof(struct kb_torch_build, m)
#define FB(m) offsetof(struct kb_fw_build, m)

static bool torch_status(const void *obj, struct field_value *v)
{
	v->kind = FV_STR;
	v->s = ((const struct kb_torch_build *)obj)->experimental ? "experimental" : "stable";
	return true;
}

static void torch_cuda_text(const void *obj, char *buf, size_t len)
{
	const struct kb_torch_build *b = obj;

	snprintf(buf, len, "%s (%s)", b->cuda_text, b->experimental ? "experimental" : "stable");
}

/* "sm_50 sm_60 ... + PTX compute_90": the SASS the wheel carries and its PTX */
static bool torch_archs(const void *obj, struct field_value *v)
{
	const struct kb_torch_build *b = obj;
	size_t u = 0, n = sizeof v->buf;

	v->buf[0] = '\0';
	for (size_t i = 0; i < b->n_archs && u < n; i++) {
		char one[24];
		int k;

		kb_arch_format(b->archs[i], "sm_", one, sizeof(one));
		k = snprintf(v->buf + u, n - u, "%s%s", i ? " " : "", one);
		u += k > 0 ? (size_t)k : 0;
	}
	if (b->has_ptx && u < n)
		snprintf(v->buf + u, n - u, " + PTX compute_%d", b->ptx.num);
	v->kind = FV_STR;
	v->s = v->buf;
	return true;
}

static bool torch_pip(const void *obj, struct field_value *v)
{
	const struct kb_torch_build *b = obj;

	snprintf(v->buf, sizeof v->buf, "pip install torch==%s --index-url %s", b->release, b->index_url);
	v->kind = FV_STR;
	v->s = v->buf;
	return true;
}

static const struct field kb_torch_build_fields[] = {
	{ .key = "release", .kind = FK_CSTR, .off = TB(release), .valid = FIELD_ALWAYS },
	{ .key = "variant", .kind = FK_CSTR, .off = TB(variant), .valid = FIELD_ALWAYS },
	{ .key = "cuda", .label = "CUDA", .kind = FK_CSTR, .off = TB(cuda_text), .valid = FIELD_ALWAYS,
	  .views = FIELD_FULL, .text = torch_cuda_text },
	{ .key = "status", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = torch_status },
	{ .key = "platform", .label = "platform", .kind = FK_CSTR, .off = TB(platform), .valid = FIELD_ALWAYS,
	  .views = FIELD_FULL },
	{ .key = "archs", .label = "archs", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_FULL,
	  .get = torch_archs },
	{ .label = "pip", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_FULL, .flags = FIELD_COMMAND,
	  .get = torch_pip },
	{ .key = "index_url", .kind = FK_CSTR, .off = TB(index_url), .valid = FIELD_ALWAYS },
	{ .key = "uncertain", .kind = FK_BOOL, .off = TB(uncertain), .valid = FIELD_ALWAYS },
	{ .key = "notes", .label = "notes", .kind = FK_CSTR, .off = TB(notes), .valid = FIELD_ALWAYS,
	  .views = FIELD_FULL, .flags = FIELD_EMPTY_KNOWN | FIELD_QUIET },
};

const struct field_table kb_torch_build_field_table = {
	"torch[]", kb_torch_build_fields, sizeof kb_torch_build_fields / sizeof kb_torch_build_fields[0], -1, NULL, NULL,
};

/* "7.0 .. 9.0" or "7.5 and newer" */
static bool fw_cc(const void *obj, struct field_value *v)
{
	const struct kb_fw_build *b = obj;

	if (b->max_cc)
		snprintf(v->buf, sizeof v->buf, "%d.%d .. %d.%d", b->min_cc / 10, b->min_cc % 10, b->max_cc / 10,
			 b->max_cc % 10);
	else
		snprintf(v->buf, sizeof v->buf, "%d.%d and newer", b->min_cc / 10, b->min_cc % 10);
	v->kind = FV_STR;
	v->s = v->buf;
	return true;
}

static void fw_min_driver_text(const void *obj, char *buf, size_t len)
{
	const struct kb_fw_build *b = obj;

	snprintf(buf, len, "%s", b->has_min_driver ? b->min_driver_text : "the CUDA family's floor (kb toolkit)");
}

static const struct field kb_fw_build_fields[] = {
	{ .key = "framework", .kind = FK_CSTR, .off = FB(framework), .valid = FIELD_ALWAYS },
	{ .key = "release", .kind = FK_CSTR, .off = FB(release), .valid = FIELD_ALWAYS },
	{ .key = "variant", .kind = FK_CSTR, .off = FB(variant), .valid = FIELD_ALWAYS },
	{ .key = "cuda", .label = "CUDA", .kind = FK_CSTR, .off = FB(cuda_text), .valid = FIELD_ALWAYS,
	  .views = FIELD_FULL },
	{ .label = "compute capability", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_FULL, .get = fw_cc },
	{ .key = "min_cc", .kind = FK_INT, .off = FB(min_cc), .valid = FIELD_ALWAYS },
	{ .key = "max_cc", .kind = FK_INT, .off = FB(max_cc), .valid = FIELD_ALWAYS },
	{ .key = "min_driver", .label = "min driver", .kind = FK_CSTR, .off = FB(min_driver_text),
	  .valid = FIELD_ALWAYS, .views = FIELD_FULL, .text = fw_min_driver_text },
	{ .key = "install", .label = "install", .kind = FK_CSTR, .off = FB(install), .valid = FIELD_ALWAYS,
	  .views = FIELD_FULL },
	{ .key = "uncertain", .kind = FK_BOOL, .off = FB(uncertain), .valid = FIELD_ALWAYS },
	{ .label = "notes", .kind = FK_CSTR, .off = FB(notes), .valid = FIELD_ALWAYS, .views = FIELD_FULL,
	  .flags = FIELD_QUIET },
};

const struct field_table kb_fw_build_field_table = {
	"frameworks[]", kb_fw_build_fields, sizeof kb_fw_build_fields / sizeof kb_fw_build_fields[0], -1, NULL, NULL,
};
