/* The Python facts' field tables: the keys and labels of doctor's "python" object
 * (docs/json.md). */
#include <stdio.h>

#include "facts/python.h"

#define E(m) offsetof(struct py_env, m)
#define F(m) offsetof(struct py_framework, m)
#define W(m) offsetof(struct py_wheel, m)

static const struct field env_fields[] = {
	{ .key = "kind", .kind = FK_CSTR, .off = E(kind), .valid = FIELD_ALWAYS },
	{ .key = "prefix", .kind = FK_CHARS, .off = E(prefix), .valid = FIELD_ALWAYS },
	{ .key = "interpreter", .kind = FK_CHARS, .off = E(interpreter), .valid = FIELD_ALWAYS },
};

const struct field_table py_env_field_table = {
	"python.environments[]", env_fields, sizeof env_fields / sizeof env_fields[0], -1, NULL, NULL,
};

/* what the build targets, said for a build without CUDA too */
static bool cuda_text(const void *obj, struct field_value *v)
{
	const struct py_framework *f = obj;

	snprintf(v->buf, sizeof v->buf, "%s", f->cpu_only ? "none (CPU-only build)" : f->rocm ? "none (ROCm build)" : f->cuda);
	v->kind = FV_STR;
	v->s = v->buf;
	return f->cpu_only || f->rocm || f->cuda[0];
}

static const struct field framework_fields[] = {
	{ .key = "name", .label = "framework", .kind = FK_CHARS, .off = F(name), .valid = FIELD_ALWAYS,
	  .views = FIELD_BRIEF },
	{ .key = "version", .label = "version", .kind = FK_CHARS, .off = F(version), .valid = FIELD_ALWAYS,
	  .views = FIELD_BRIEF },
	{ .key = "cuda", .kind = FK_CHARS, .off = F(cuda), .valid = FIELD_ALWAYS },
	{ .label = "CUDA", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_BRIEF, .get = cuda_text },
	{ .key = "cpu_only", .kind = FK_BOOL, .off = F(cpu_only), .valid = FIELD_ALWAYS },
	{ .key = "path", .label = "path", .kind = FK_CHARS, .off = F(path), .valid = FIELD_ALWAYS, .views = FIELD_BRIEF },
};

const struct field_table py_framework_field_table = {
	"python.frameworks[]", framework_fields, sizeof framework_fields / sizeof framework_fields[0], -1, NULL, NULL,
};

static const struct field wheel_fields[] = {
	{ .key = "name", .kind = FK_CHARS, .off = W(name), .valid = FIELD_ALWAYS },
	{ .key = "version", .kind = FK_CHARS, .off = W(version), .valid = FIELD_ALWAYS },
	{ .key = "site", .kind = FK_CHARS, .off = W(site), .valid = FIELD_ALWAYS },
};

const struct field_table py_wheel_field_table = {
	"python.nvidia_wheels[]", wheel_fields, sizeof wheel_fields / sizeof wheel_fields[0], -1, NULL, NULL,
};
