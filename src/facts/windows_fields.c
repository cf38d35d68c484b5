/* The Windows side's field tables: the keys and labels of doctor's "windows" object and its
 * "toolkits[]" (docs/json.md). */
#include <stdio.h>
#include <string.h>

#include "facts/windows.h"

const char *win_toolkit_found_by_text(unsigned found_by, char *buf, size_t n)
{
	static const struct {
		unsigned bit;
		const char *name;
	} ways[] = {
		{ WTK_CUDA_PATH, "CUDA_PATH" },
		{ WTK_CUDA_PATH_V, "CUDA_PATH_V*" },
		{ WTK_DEFAULT, "default folder" },
		{ WTK_PATH, "PATH" },
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++) {
		if (!(found_by & ways[i].bit) || used + strlen(ways[i].name) + 3 > n)
			continue;
		used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "", ways[i].name);
	}
	return buf;
}

#define T(m) offsetof(struct win_toolkit, m)

static void star(const void *obj, char *buf, size_t len)
{
	(void)obj;
	snprintf(buf, len, "*");
}

static bool found_by(const void *obj, struct field_value *v)
{
	win_toolkit_found_by_text(((const struct win_toolkit *)obj)->found_by, v->buf, sizeof v->buf);
	v->kind = FV_LIST;
	v->s = v->buf;
	v->seps = ",";
	return true;
}

static bool state(const void *obj, struct field_value *v)
{
	const struct win_toolkit *t = obj;

	v->kind = FV_STR;
	v->s = !t->exists ? "missing" : t->has_nvcc ? "nvcc.exe" : "no nvcc.exe";
	return true;
}

static const struct field win_toolkit_fields[] = {
	{ .key = "wins", .label = "", .kind = FK_BOOL, .off = T(wins), .valid = FIELD_ALWAYS, .views = FIELD_BRIEF,
	  .flags = FIELD_QUIET, .text = star },
	{ .key = "path", .label = "folder", .kind = FK_CHARS, .off = T(path), .valid = FIELD_ALWAYS, .views = FIELD_BRIEF },
	{ .key = "read_at", .kind = FK_CHARS, .off = T(local), .valid = FIELD_ALWAYS },
	{ .key = "version", .label = "CUDA", .kind = FK_CHARS, .off = T(version_text), .valid = FIELD_ALWAYS,
	  .views = FIELD_BRIEF, .unknown = "unknown" },
	{ .key = "version_source", .label = "version from", .kind = FK_CSTR, .off = T(version_source),
	  .valid = FIELD_ALWAYS, .views = FIELD_BRIEF },
	{ .label = "state", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_BRIEF, .get = state },
	{ .key = "exists", .kind = FK_BOOL, .off = T(exists), .valid = FIELD_ALWAYS },
	{ .key = "nvcc", .kind = FK_BOOL, .off = T(has_nvcc), .valid = FIELD_ALWAYS },
	{ .key = "found_by", .label = "found by", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_BRIEF,
	  .get = found_by },
	{ .key = "variables", .label = "variables", .kind = FK_WORDS, .off = T(vars), .valid = FIELD_ALWAYS,
	  .views = FIELD_BRIEF },
	{ .key = "path_rank", .kind = FK_INT, .off = T(path_rank), .valid = FIELD_ALWAYS, .flags = FIELD_NEG_UNKNOWN },
};

const struct field_table win_toolkit_field_table = {
	"windows.toolkits[]", win_toolkit_fields, sizeof win_toolkit_fields / sizeof win_toolkit_fields[0], -1, NULL, NULL,
};

#define D(m) offsetof(struct win_dll_load, m)

static const struct field win_dll_load_fields[] = {
	{ .key = "module", .label = "module", .kind = FK_CHARS, .off = D(module), .valid = FIELD_ALWAYS, .views = FIELD_BRIEF },
	{ .key = "dll", .label = "imports", .kind = FK_CHARS, .off = D(dll), .valid = FIELD_ALWAYS, .views = FIELD_BRIEF },
	{ .key = "loads", .label = "loads", .kind = FK_CHARS, .off = D(loads), .valid = FIELD_ALWAYS, .views = FIELD_BRIEF,
	  .unknown = "not found" },
	{ .key = "from", .label = "from", .kind = FK_CSTR, .off = D(from), .valid = FIELD_ALWAYS, .views = FIELD_BRIEF },
	{ .key = "shadowed", .kind = FK_CHARS, .off = D(shadowed), .valid = FIELD_ALWAYS },
	{ .key = "on_path", .label = "on PATH (not searched)", .kind = FK_CHARS, .off = D(on_path), .valid = FIELD_ALWAYS,
	  .views = FIELD_BRIEF },
	{ .key = "wheel", .kind = FK_CSTR, .off = D(wheel), .valid = FIELD_ALWAYS },
	{ .key = "python", .kind = FK_CHARS, .off = D(python), .valid = FIELD_ALWAYS },
};

const struct field_table win_dll_load_field_table = {
	"windows.dll_loads[]", win_dll_load_fields, sizeof win_dll_load_fields / sizeof win_dll_load_fields[0], -1, NULL, NULL,
};

const char *const win_exe_step_names[WEXE_STEPS] = {
	"application folder", "System32", "System (16-bit)", "Windows folder", "current folder", "PATH",
};

static const char *exe_step_name(int step)
{
	return step >= 0 && step < WEXE_STEPS ? win_exe_step_names[step] : NULL;
}

#define X(m) offsetof(struct win_exe_dll, m)

static const struct field win_exe_dll_fields[] = {
	{ .key = "dll", .label = "imports", .kind = FK_CHARS, .off = X(dll), .valid = FIELD_ALWAYS, .views = FIELD_BRIEF },
	{ .key = "loads", .label = "loads", .kind = FK_CHARS, .off = X(loads), .valid = FIELD_ALWAYS, .views = FIELD_BRIEF,
	  .unknown = "not found" },
	{ .key = "from", .label = "from", .kind = FK_NAMED, .off = X(step), .valid = FIELD_ALWAYS, .views = FIELD_BRIEF,
	  .name = exe_step_name },
	{ .key = "path_rank", .kind = FK_INT, .off = X(path_rank), .valid = FIELD_ALWAYS, .flags = FIELD_NEG_UNKNOWN },
	{ .key = "shadowed", .label = "shadows", .kind = FK_CHARS, .off = X(shadowed), .valid = FIELD_ALWAYS,
	  .views = FIELD_BRIEF },
	{ .key = "shadowed_from", .kind = FK_NAMED, .off = X(shadowed_step), .valid = FIELD_ALWAYS, .name = exe_step_name },
	{ .key = "other_major", .label = "another major", .kind = FK_CHARS, .off = X(other_major), .valid = FIELD_ALWAYS,
	  .views = FIELD_BRIEF },
	{ .key = "elsewhere", .label = "not searched", .kind = FK_CHARS, .off = X(elsewhere), .valid = FIELD_ALWAYS,
	  .views = FIELD_BRIEF },
	{ .key = "wheel", .kind = FK_CSTR, .off = X(wheel), .valid = FIELD_ALWAYS },
};

const struct field_table win_exe_dll_field_table = {
	"dll_search[]", win_exe_dll_fields, sizeof win_exe_dll_fields / sizeof win_exe_dll_fields[0], -1, NULL, NULL,
};

#define W(m) offsetof(struct win_side, m)

/* A registry value's JSON number (null unless set). */
static bool reg_value(const struct win_reg_dword *d, struct field_value *v)
{
	if (d->state != WREG_SET)
		return false;
	v->kind = FV_INT;
	v->i = (long long)d->value;
	return true;
}

static bool tdr_delay(const void *obj, struct field_value *v)
{
	return reg_value(&((const struct win_side *)obj)->tdr_delay, v);
}

static bool tdr_level(const void *obj, struct field_value *v)
{
	return reg_value(&((const struct win_side *)obj)->tdr_level, v);
}

static bool hw_sch_mode(const void *obj, struct field_value *v)
{
	return reg_value(&((const struct win_side *)obj)->hw_sch_mode, v);
}

/* The text: the value, "not set (default ...)", or why it was not read. */
static void reg_text(const struct win_side *w, const struct win_reg_dword *d, const char *unset, char *buf, size_t n)
{
	if (d->state == WREG_SET)
		snprintf(buf, n, "%lu", d->value);
	else if (d->state == WREG_UNSET)
		snprintf(buf, n, "not set (%s)", unset);
	else
		snprintf(buf, n, "%s", w->registry_note ? w->registry_note : "not read");
}

/* Unset and unreadable are told apart: on Windows itself the environment is read */
static bool cuda_path_text(const void *obj, struct field_value *v)
{
	const struct win_side *w = obj;

	snprintf(v->buf, sizeof v->buf, "%s",
		 !w->env_visible ? "not visible (the Windows environment cannot be read from WSL2)"
		 : w->cuda_path[0] ? w->cuda_path
				   : "not set");
	v->kind = FV_STR;
	v->s = v->buf;
	return true;
}

static bool tdr_text(const void *obj, struct field_value *v)
{
	const struct win_side *w = obj;
	char delay[64], level[64];

	reg_text(w, &w->tdr_delay, "Windows' default: 2 s", delay, sizeof delay);
	reg_text(w, &w->tdr_level, "3: recover", level, sizeof level);
	if (w->tdr_delay.state == WREG_UNREAD && w->tdr_level.state == WREG_UNREAD)
		snprintf(v->buf, sizeof v->buf, "%s", delay);
	else
		snprintf(v->buf, sizeof v->buf, "TdrDelay %s%s, TdrLevel %s", delay, w->tdr_delay.state == WREG_SET ? " s" : "",
			 level);
	v->kind = FV_STR;
	v->s = v->buf;
	return true;
}

static bool hags_text(const void *obj, struct field_value *v)
{
	const struct win_side *w = obj;

	if (w->hw_sch_mode.state == WREG_SET)
		snprintf(v->buf, sizeof v->buf, "%s (HwSchMode %lu)", w->hw_sch_mode.value == 2 ? "on" : "off",
			 w->hw_sch_mode.value);
	else
		reg_text(w, &w->hw_sch_mode, "Windows decides", v->buf, sizeof v->buf);
	v->kind = FV_STR;
	v->s = v->buf;
	return true;
}

/* "3 installs listed", or why the list was not read */
static bool py_registry_text(const void *obj, struct field_value *v)
{
	const struct win_side *w = obj;

	if (!w->py_registry)
		return false;
	if (strcmp(w->py_registry, "read") == 0)
		snprintf(v->buf, sizeof v->buf, "%zu install%s listed", w->py_registered, w->py_registered == 1 ? "" : "s");
	else
		snprintf(v->buf, sizeof v->buf, "%s", w->py_registry);
	v->kind = FV_STR;
	v->s = v->buf;
	return true;
}

static bool py_registered(const void *obj, struct field_value *v)
{
	const struct win_side *w = obj;

	if (!w->py_registry || strcmp(w->py_registry, "read") != 0)
		return false;
	v->kind = FV_INT;
	v->i = (long long)w->py_registered;
	return true;
}

static const struct field win_side_fields[] = {
	{ .key = "read_from", .label = "read from", .kind = FK_CSTR, .off = W(from), .valid = FIELD_ALWAYS,
	  .views = FIELD_BRIEF },
	{ .key = "root", .kind = FK_CHARS, .off = W(root), .valid = FIELD_ALWAYS },
	{ .key = "environment_visible", .kind = FK_BOOL, .off = W(env_visible), .valid = FIELD_ALWAYS },
	{ .key = "cuda_path", .kind = FK_CHARS, .off = W(cuda_path), .valid = FIELD_ALWAYS, .flags = FIELD_IF_FLAG,
	  .flag = W(env_visible) },
	{ .label = "CUDA_PATH", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_BRIEF, .get = cuda_path_text },
	{ .label = "TDR watchdog", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_BRIEF, .get = tdr_text },
	{ .label = "HW GPU scheduling", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_BRIEF,
	  .get = hags_text },
	{ .key = "tdr_delay_s", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = tdr_delay },
	{ .key = "tdr_level", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = tdr_level },
	{ .key = "hw_sch_mode", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = hw_sch_mode },
	{ .key = "registry", .kind = FK_CSTR, .off = W(registry_note), .valid = FIELD_ALWAYS },
	{ .label = "py launcher list", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_BRIEF, .get = py_registry_text },
	{ .key = "python_registry", .kind = FK_CSTR, .off = W(py_registry), .valid = FIELD_ALWAYS },
	{ .key = "python_registered", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = py_registered },
};

const struct field_table win_side_field_table = {
	"windows", win_side_fields, sizeof win_side_fields / sizeof win_side_fields[0], -1, NULL, NULL,
};
