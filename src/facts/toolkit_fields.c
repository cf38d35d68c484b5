/* The toolkit and runtime facts' field tables: the keys and labels of doctor's "toolkits",
 * "runtimes" and "libraries" (docs/json.md). */
#include <stdio.h>

#include "facts/runtime.h"
#include "facts/toolkit.h"

#define T(m) offsetof(struct toolkit, m)

static void star(const void *obj, char *buf, size_t len)
{
	(void)obj;
	snprintf(buf, len, "*");
}

static bool found_by(const void *obj, struct field_value *v)
{
	toolkit_found_by_text(((const struct toolkit *)obj)->found_by, v->buf, sizeof v->buf);
	v->kind = FV_LIST;
	v->s = v->buf;
	v->seps = ",";
	return true;
}

static bool archs(const void *obj, struct field_value *v)
{
	const struct toolkit *t = obj;
	size_t used = 0;

	if (!t->kb.known)
		return false;
	v->buf[0] = '\0';
	for (size_t i = 0; i < t->kb.n_archs && used < sizeof v->buf; i++) {
		int k = snprintf(v->buf + used, sizeof v->buf - used, "%ssm_%d", i ? " " : "", t->kb.archs[i]);
		used += k > 0 ? (size_t)k : 0;
	}
	v->kind = FV_LIST;
	v->s = v->buf;
	v->seps = " ";
	return true;
}

static const struct field toolkit_fields[] = {
	{ .key = "selected", .label = "", .kind = FK_BOOL, .off = T(selected), .valid = FIELD_ALWAYS,
	  .views = FIELD_BRIEF, .flags = FIELD_QUIET, .text = star },
	{ .key = "path", .kind = FK_CHARS, .off = T(root), .valid = FIELD_ALWAYS },
	{ .key = "nvcc", .label = "nvcc", .kind = FK_CHARS, .off = T(nvcc), .valid = FIELD_ALWAYS, .views = FIELD_BRIEF },
	{ .key = "real_nvcc", .kind = FK_CHARS, .off = T(real_nvcc), .valid = FIELD_ALWAYS },
	{ .key = "version", .label = "CUDA", .kind = FK_CHARS, .off = T(version_text), .valid = FIELD_ALWAYS,
	  .views = FIELD_BRIEF, .unknown = "unknown" },
	{ .key = "version_source", .label = "version from", .kind = FK_CSTR, .off = T(version_source),
	  .valid = FIELD_ALWAYS, .views = FIELD_BRIEF },
	{ .key = "found_by", .label = "found by", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_BRIEF,
	  .get = found_by },
	{ .key = "archs", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = archs },
	{ .key = "min_driver", .kind = FK_CHARS, .off = T(kb.min_driver), .valid = FIELD_ALWAYS },
	{ .key = "nvcc_list_gpu_arch", .kind = FK_CSTR, .off = T(gpu_archs), .valid = FIELD_ALWAYS },
};

const struct field_table toolkit_field_table = {
	"toolkits[]", toolkit_fields, sizeof toolkit_fields / sizeof toolkit_fields[0], -1, NULL, NULL,
};

#define R(m) offsetof(struct runtime, m)

static bool origin(const void *obj, struct field_value *v)
{
	v->kind = FV_STR;
	v->s = runtime_origin_name(((const struct runtime *)obj)->origin);
	return true;
}

/* What the loader does with it: picked or shadowed on its path, or only a framework's RUNPATH. */
static bool loader(const void *obj, struct field_value *v)
{
	const struct runtime *rt = obj;
	const char *where = rt->from_ld_library_path ? "LD_LIBRARY_PATH" : "ld.so.cache";

	if (rt->rank >= 0)
		snprintf(v->buf, sizeof v->buf, "%s (%s)", rt->picked ? "picked" : "shadowed", where);
	else if (rt->origin == ORIGIN_PIP || rt->origin == ORIGIN_TORCH || rt->origin == ORIGIN_CONDA)
		snprintf(v->buf, sizeof v->buf, "by its framework (RUNPATH)");
	else
		snprintf(v->buf, sizeof v->buf, "not on the loader path");
	v->kind = FV_STR;
	v->s = v->buf;
	return true;
}

static const struct field runtime_fields[] = {
	{ .key = "path", .label = "library", .kind = FK_CHARS, .off = R(path), .valid = FIELD_ALWAYS,
	  .views = FIELD_BRIEF },
	{ .key = "real_path", .kind = FK_CHARS, .off = R(real_path), .valid = FIELD_ALWAYS },
	{ .key = "soname", .kind = FK_CHARS, .off = R(soname), .valid = FIELD_ALWAYS },
	{ .key = "version", .label = "version", .kind = FK_CHARS, .off = R(version_text), .valid = FIELD_ALWAYS,
	  .views = FIELD_BRIEF },
	{ .key = "version_source", .label = "version from", .kind = FK_CSTR, .off = R(version_source),
	  .valid = FIELD_ALWAYS, .views = FIELD_BRIEF },
	{ .key = "origin", .label = "origin", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_BRIEF, .get = origin },
	{ .key = "picked", .kind = FK_BOOL, .off = R(picked), .valid = FIELD_ALWAYS },
	{ .key = "from_ld_library_path", .kind = FK_BOOL, .off = R(from_ld_library_path), .valid = FIELD_ALWAYS },
	{ .label = "loader", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_BRIEF, .get = loader },
};

const struct field_table runtime_field_table = {
	"runtimes[]", runtime_fields, sizeof runtime_fields / sizeof runtime_fields[0], -1, NULL, NULL,
};
