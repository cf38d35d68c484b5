/* The renamed keys and the upgrade of an old report to today's spelling. */
#include "report/json_compat.h"

#include <string.h>

#include "util/err.h"

const struct json_rename json_renames[] = {
	/* devices had the driver in three places; doctor's "driver" object is now both's */
	{ "devices", "driver_version", "driver.version", "0.1.0" },
	{ "devices", "libcuda.loaded", "driver.loaded", "0.1.0" },
	{ "devices", "libcuda.path", "driver.library_path", "0.1.0" },
	{ "devices", "libcuda.how", "driver.how", "0.1.0" },
	{ "devices", "libcuda.error", "driver.load_error", "0.1.0" },
	{ "devices", "libcuda.missing_symbols", "driver.missing_symbols", "0.1.0" },
	{ "devices", "libcuda.driver_version_int", "driver.cuda_version_int", "0.1.0" },
	{ "devices", "libcuda.cuda_version", "driver.cuda_version", "0.1.0" },
	{ "devices", "libcuda.cuinit_result", "driver.init_result", "0.1.0" },
	{ "devices", "libcuda.cuinit_result_name", "driver.init_result_name", "0.1.0" },
	{ "devices", "libcuda.device_count", "driver.device_count", "0.1.0" },
	{ "devices", "nvml.loaded", "driver.nvml.loaded", "0.1.0" },
	{ "devices", "nvml.path", "driver.nvml.library_path", "0.1.0" },
	{ "devices", "nvml.how", "driver.nvml.how", "0.1.0" },
	{ "devices", "nvml.error", "driver.nvml.load_error", "0.1.0" },
	{ "devices", "nvml.missing_symbols", "driver.nvml.missing_symbols", "0.1.0" },
	{ "devices", "nvml.fallbacks", "driver.nvml.fallbacks", "0.1.0" },
	{ "devices", "nvml.init_result", "driver.nvml.init_result", "0.1.0" },
	{ "devices", "nvml.init_result_name", "driver.nvml.init_result_name", "0.1.0" },
	{ "devices", "nvml.init_result_text", "driver.nvml.init_result_text", "0.1.0" },
	{ "devices", "nvml.nvml_version", "driver.nvml.version", "0.1.0" },
	{ "devices", "nvml.cuda_driver_version_int", "driver.nvml.cuda_version_int", "0.1.0" },
	{ "devices", "nvml.device_count", "driver.nvml.device_count", "0.1.0" },
	/* doctor's GPUs took devices' names */
	{ "doctor", "gpus[].index", "gpus[].cuda_ordinal", "0.1.0" },
	{ "doctor", "gpus[].mig_mode", "gpus[].mig_mode_current", "0.1.0" },
};

const size_t n_json_renames = sizeof json_renames / sizeof json_renames[0];

#define MAX_DEPTH 8

/* Splits path at '.' into parts (each at most 63 bytes); the count, 0 when too deep or long. */
static size_t split(const char *path, char parts[MAX_DEPTH][64])
{
	size_t n = 0;

	while (*path && n < MAX_DEPTH) {
		size_t len = strcspn(path, ".");
		if (len >= 64)
			return 0;
		memcpy(parts[n], path, len);
		parts[n++][len] = '\0';
		path += len + (path[len] == '.');
	}
	return *path ? 0 : n;
}

/* Moves o's value at from to to (both relative to o). */
static int move(json_t *o, const char *from, const char *to)
{
	char f[MAX_DEPTH][64], t[MAX_DEPTH][64];
	size_t nf = split(from, f), nt = split(to, t);
	json_t *src_parent = o, *dst = o, *v, *objs[MAX_DEPTH];

	if (!nf || !nt)
		return CD_OK;
	for (size_t i = 0; i + 1 < nf; i++) {
		objs[i] = src_parent;
		src_parent = json_object_get(src_parent, f[i]);
		if (!json_is_object(src_parent))
			return CD_OK;
	}
	objs[nf - 1] = src_parent;
	if (!(v = json_object_get(src_parent, f[nf - 1])))
		return CD_OK;
	for (size_t i = 0; i + 1 < nt; i++) {
		json_t *next = json_object_get(dst, t[i]);
		if (!next) {
			if (!(next = json_object()) || json_object_set_new(dst, t[i], next) != 0)
				return CD_ENOMEM;
		}
		if (!json_is_object(next))
			return CD_OK;
		dst = next;
	}
	if (json_object_get(dst, t[nt - 1]))
		return CD_OK; /* today's spelling is there already */
	if (json_object_set(dst, t[nt - 1], v) != 0)
		return CD_ENOMEM;
	json_object_del(src_parent, f[nf - 1]);
	/* an object the move emptied goes too */
	for (size_t i = nf - 1; i > 0 && json_object_size(objs[i]) == 0; i--)
		json_object_del(objs[i - 1], f[i - 1]);
	return CD_OK;
}

static int rename_one(json_t *root, const struct json_rename *rn)
{
	const char *fa = strstr(rn->from, "[]."), *ta = strstr(rn->to, "[].");
	char key[64];
	json_t *arr, *e;
	size_t i;
	int rc;

	if (!fa || !ta)
		return move(root, rn->from, rn->to);
	if ((size_t)(fa - rn->from) >= sizeof key)
		return CD_OK;
	memcpy(key, rn->from, (size_t)(fa - rn->from));
	key[fa - rn->from] = '\0';
	arr = json_object_get(root, key);
	json_array_foreach(arr, i, e)
		if (json_is_object(e) && (rc = move(e, fa + 3, ta + 3)) != CD_OK)
			return rc;
	return CD_OK;
}

int report_json_upgrade(json_t *root)
{
	const char *command = json_string_value(json_object_get(root, "command"));
	int rc;

	if (!json_is_object(root) || !command)
		return CD_OK;
	for (size_t i = 0; i < n_json_renames; i++)
		if (strcmp(json_renames[i].command, command) == 0 && (rc = rename_one(root, &json_renames[i])) != CD_OK)
			return rc;
	return CD_OK;
}
