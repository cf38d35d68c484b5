/* Comparing two reports: each area is a list of items found by a key (a GPU by its UUID,
 * a toolkit by its nvcc, a finding by its id and subject) and the fields compared on them. */
#include <stdlib.h>
#include <string.h>

#include "report/diff.h"
#include "report/json_compat.h"
#include "util/err.h"
#include "util/str.h"
#include "util/strindex.h"

int report_diff_load(const char *name, const unsigned char *data, size_t size, json_t **out, char *err)
{
	json_error_t je;
	json_t *j;
	const char *tool;

	*out = NULL;
	if (!size)
		return cd_fail(err, CD_EFORMAT, "%.200s: an empty file, not a report (make one with `cudoctor --json "
			       "COMMAND`)", name);
	if (!(j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je)) &&
	    json_error_code(&je) == json_error_out_of_memory)
		return cd_fail(err, CD_ENOMEM, "%.200s: out of memory", name);
	if (!j)
		return cd_fail(err, CD_EFORMAT, "%.200s: not JSON (line %d, column %d: %.80s)", name, je.line,
			       je.column, je.text);
	if (!json_is_object(j)) {
		json_decref(j);
		return cd_fail(err, CD_EFORMAT, "%.200s: not a cudoctor report (not a JSON object)", name);
	}
	tool = json_string_value(json_object_get(j, "tool"));
	if (!tool || strcmp(tool, "cudoctor") != 0 || !json_is_string(json_object_get(j, "command"))) {
		json_decref(j);
		return cd_fail(err, CD_EFORMAT,
			       "%.200s: not a cudoctor report (no \"tool\": \"cudoctor\" and \"command\"; "
			       "make one with `cudoctor --json COMMAND`)", name);
	}
	/* a report of an earlier release reads in today's spelling */
	if (report_json_upgrade(j) != CD_OK) {
		json_decref(j);
		return cd_fail(err, CD_ENOMEM, "%.200s: out of memory", name);
	}
	*out = j;
	return CD_OK;
}

const char *diff_change_name(enum diff_change c)
{
	switch (c) {
	case DIFF_ADDED: return "added";
	case DIFF_REMOVED: return "removed";
	case DIFF_CHANGED: return "changed";
	}
	return "?";
}

/* An area: where its items are (a dotted path to an array, or to one object), which keys
 * name an item (the first present wins), how to label it and which fields to compare. */
struct area {
	const char *name;
	const char *path;
	const char *const *keys;      /* NULL: the path is one object */
	const char *label;            /* a field shown beside the key ("name"), or NULL */
	const char *const *fields;
};

static const char *const header_fields[] = { "version", "os", "kernel", "machine", "glibc", "cpu", "node", NULL };
static const char *const driver_fields[] = { "loaded", "version", "cuda_version", "init_result_name", "branch",
					     "kernel_module_version", "kernel_module_open", "library_path",
					     "forward_compat", "nvml_ok", NULL };
static const char *const gpu_keys[] = { "uuid", "pci_bus_id", "cuda_ordinal", NULL };
static const char *const gpu_fields[] = { "name", "compute_capability", "memory_total_bytes", "pci_bus_id",
					  "cuda_ordinal", "mig_mode_current", "persistence_mode", NULL };
static const char *const toolkit_keys[] = { "real_nvcc", "nvcc", "path", NULL };
static const char *const toolkit_fields[] = { "version", "selected", "min_driver", NULL };
static const char *const runtime_keys[] = { "real_path", "path", NULL };
static const char *const runtime_fields[] = { "version", "picked", "origin", NULL };
static const char *const framework_keys[] = { "path", "name", NULL };
static const char *const framework_fields[] = { "name", "version", "cuda", "cpu_only", NULL };
static const char *const finding_keys[] = { "id", NULL }; /* with the subject: finding_key() */
static const char *const finding_fields[] = { "severity", "title", NULL };

static const struct area areas[] = {
	{ "machine", "header", NULL, NULL, header_fields },
	{ "driver", "driver", NULL, NULL, driver_fields },
	{ "gpus", "gpus", gpu_keys, "name", gpu_fields },
	{ "toolkits", "toolkits", toolkit_keys, NULL, toolkit_fields },
	{ "runtimes", "runtimes", runtime_keys, NULL, runtime_fields },
	{ "frameworks", "python.frameworks", framework_keys, "name", framework_fields },
	{ "findings", "findings", finding_keys, NULL, finding_fields },
};

static const json_t *at_path(const json_t *root, const char *path)
{
	char part[64];

	while (root && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof part)
			return NULL;
		memcpy(part, path, n);
		part[n] = '\0';
		root = json_object_get(root, part);
		path += n + (path[n] == '.');
	}
	return root;
}

/* A scalar as text, for keys and labels; NULL for objects, arrays and null. */
static char *scalar_text(const json_t *v)
{
	if (json_is_string(v))
		return cd_strdup(json_string_value(v));
	if (json_is_integer(v))
		return cd_asprintf("%lld", (long long)json_integer_value(v));
	if (json_is_real(v))
		return cd_asprintf("%g", json_real_value(v));
	if (json_is_boolean(v))
		return cd_strdup(json_is_true(v) ? "true" : "false");
	return NULL;
}

static bool has_scalar(const json_t *it, const char *key)
{
	const json_t *v = json_object_get(it, key);

	return v && (json_is_string(v) || json_is_integer(v)) && !(json_is_string(v) && !*json_string_value(v));
}

/* Which key field names the items of this area: the first one every item on both sides
 * has (GPUs by UUID; by PCI address or index where a report has no UUIDs). */
static const char *common_key(const struct area *ar, const json_t *a, const json_t *b)
{
	for (size_t k = 0; ar->keys[k]; k++) {
		bool all = true;
		size_t i;
		json_t *v;

		json_array_foreach(a, i, v)
			all = all && has_scalar(v, ar->keys[k]);
		json_array_foreach(b, i, v)
			all = all && has_scalar(v, ar->keys[k]);
		if (all)
			return ar->keys[k];
	}
	return NULL;
}

/* The item's name in its area: its key, with the finding's subject or the label beside it.
 * NULL when it has no key (or out of memory). */
static char *item_name(const struct area *ar, const json_t *it, const char *key)
{
	char *k = scalar_text(json_object_get(it, key)), *label = NULL, *full;
	const char *subject;

	if (!k)
		return NULL;
	if (ar->keys == finding_keys) {
		subject = json_string_value(json_object_get(it, "subject"));
		full = subject && *subject ? cd_asprintf("%s [%s]", k, subject) : cd_strdup(k);
	} else if (ar->label && (label = scalar_text(json_object_get(it, ar->label))) && strcmp(label, k) != 0) {
		full = cd_asprintf("%s (%s)", k, label);
	} else {
		full = cd_strdup(k);
	}
	free(k);
	free(label);
	return full;
}

static int add(struct diff_result *d, const char *area, enum diff_change c, const char *item, const char *field,
	       const json_t *before, const json_t *after)
{
	struct diff_entry *e;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct diff_entry *n = realloc(d->e, cap * sizeof(*n));

		if (!n)
			return CD_ENOMEM;
		d->e = n;
		d->cap = cap;
	}
	e = &d->e[d->n];
	memset(e, 0, sizeof(*e));
	e->area = area;
	e->change = c;
	e->field = field;
	if (!(e->item = cd_strdup(item)))
		return CD_ENOMEM;
	e->before = before ? json_deep_copy(before) : NULL;
	e->after = after ? json_deep_copy(after) : NULL;
	d->n++;
	if ((before && !e->before) || (after && !e->after))
		return CD_ENOMEM;
	return CD_OK;
}

static bool same(const json_t *x, const json_t *y)
{
	if (!x || !y)
		return !x && !y;
	return json_equal((json_t *)x, (json_t *)y);
}

static int compare_fields(struct diff_result *d, const struct area *ar, const char *item, const json_t *a,
			  const json_t *b)
{
	for (size_t f = 0; ar->fields[f]; f++) {
		const json_t *x = json_object_get(a, ar->fields[f]), *y = json_object_get(b, ar->fields[f]);
		int rc;

		if (!x && !y)
			continue;
		if (!same(x, y) && (rc = add(d, ar->name, DIFF_CHANGED, item, ar->fields[f], x ? x : json_null(),
					     y ? y : json_null())) != CD_OK)
			return rc;
	}
	return CD_OK;
}

/* The names of arr's items (NULL for an item without its key) and an index from each name to
 * its first item, so that matching two sides is linear in their length: a report of 100k
 * findings or GPUs, crafted or not, is compared in one pass, not n x n name comparisons. */
struct named {
	char **names;
	size_t n;
	struct strindex ix;
};

static void named_free(struct named *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->names[i]);
	free(nm->names);
	strindex_free(&nm->ix);
}

static int named_make(struct named *nm, const struct area *ar, const json_t *arr, const char *key)
{
	size_t i;
	json_t *v;

	memset(nm, 0, sizeof *nm);
	strindex_init(&nm->ix);
	if (json_array_size(arr) && !(nm->names = calloc(json_array_size(arr), sizeof *nm->names)))
		return CD_ENOMEM;
	json_array_foreach(arr, i, v) {
		nm->n = i + 1;
		if (!(nm->names[i] = item_name(ar, v, key))) {
			if (has_scalar(v, key))
				return CD_ENOMEM;
			continue; /* an item without its key cannot be matched */
		}
		/* a name twice: the first item is the one matched */
		if (strindex_put(&nm->ix, nm->names[i], strlen(nm->names[i]), i, NULL) != CD_OK)
			return CD_ENOMEM;
	}
	return CD_OK;
}

/* One side's items missing on the other (change: added or removed), and, from a's side,
 * the fields of items both have. */
static int compare_side(struct diff_result *d, const struct area *ar, const json_t *from_arr,
			const struct named *from, const json_t *to_arr, const struct named *to, enum diff_change missing)
{
	for (size_t i = 0; i < from->n; i++) {
		const char *name = from->names[i];
		size_t j;
		int rc = CD_OK;

		if (!name)
			continue;
		if (!strindex_get(&to->ix, name, strlen(name), &j))
			rc = add(d, ar->name, missing, name, NULL, NULL, NULL);
		else if (missing == DIFF_REMOVED)
			rc = compare_fields(d, ar, name, json_array_get(from_arr, i), json_array_get(to_arr, j));
		if (rc != CD_OK)
			return rc;
	}
	return CD_OK;
}

/* Arrays of GPUs may lose their UUIDs (anonymized on one side only): name GPUs by the
 * first key both sides can use. */
static int compare_area(struct diff_result *d, const struct area *ar, const json_t *a, const json_t *b)
{
	const json_t *x = at_path(a, ar->path), *y = at_path(b, ar->path);
	const json_t *empty;
	const char *key;
	int rc;

	if (!ar->keys) {
		if (!json_is_object(x) && !json_is_object(y))
			return CD_OK;
		return compare_fields(d, ar, ar->name, json_is_object(x) ? x : json_null(),
				      json_is_object(y) ? y : json_null());
	}
	if (!json_is_array(x) && !json_is_array(y))
		return CD_OK;
	if (!(empty = json_array()))
		return CD_ENOMEM;
	if (!json_is_array(x))
		x = empty;
	if (!json_is_array(y))
		y = empty;
	key = common_key(ar, x, y);
	rc = CD_OK;
	if (key) {
		struct named na = { 0 }, nb = { 0 };

		rc = named_make(&na, ar, x, key);
		if (rc == CD_OK)
			rc = named_make(&nb, ar, y, key);
		if (rc == CD_OK)
			rc = compare_side(d, ar, x, &na, y, &nb, DIFF_REMOVED);
		if (rc == CD_OK)
			rc = compare_side(d, ar, y, &nb, x, &na, DIFF_ADDED);
		named_free(&na);
		named_free(&nb);
	}
	json_decref((json_t *)empty);
	return rc;
}

int report_diff(const json_t *a, const json_t *b, struct diff_result *out)
{
	int rc = CD_OK;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; rc == CD_OK && i < sizeof areas / sizeof areas[0]; i++)
		rc = compare_area(out, &areas[i], a, b);
	return rc;
}

void report_diff_free(struct diff_result *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->e[i].item);
		json_decref(d->e[i].before);
		json_decref(d->e[i].after);
	}
	free(d->e);
	memset(d, 0, sizeof(*d));
}
