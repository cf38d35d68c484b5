/* The platform facts' field tables: the keys and labels of doctor's "platform" object
 * (docs/json.md). */
#include <stdio.h>

#include "facts/platform.h"

#define P(m) offsetof(struct platform_info, m)
#define N(m) offsetof(struct device_node, m)

static bool wsl_text(const void *obj, struct field_value *v)
{
	const struct platform_info *pf = obj;

	v->kind = FV_STR;
	v->s = !pf->wsl ? "no" : pf->wsl_libcuda1 ? "yes (/usr/lib/wsl/lib/libcuda.so.1 present)"
						  : "yes (no /usr/lib/wsl/lib/libcuda.so.1)";
	return true;
}

/* "" when set and empty (CUDA then sees no device): not the same as unset */
static bool visible(const void *obj, struct field_value *v)
{
	const struct platform_info *pf = obj;

	if (!pf->visible.set)
		return false;
	v->kind = FV_STR;
	v->s = pf->visible.raw ? pf->visible.raw : "";
	return true;
}

static const struct field platform_fields[] = {
	{ .label = "WSL2", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_BRIEF, .get = wsl_text },
	{ .key = "wsl", .kind = FK_BOOL, .off = P(wsl), .valid = FIELD_ALWAYS },
	{ .key = "container", .label = "container", .kind = FK_CSTR, .off = P(container), .valid = FIELD_ALWAYS,
	  .views = FIELD_BRIEF, .unknown = "none detected" },
	{ .key = "image_cuda_version", .label = "image CUDA_VERSION", .kind = FK_CSTR, .off = P(image_cuda_version),
	  .valid = FIELD_ALWAYS, .views = FIELD_BRIEF },
	{ .label = "NVIDIA_VISIBLE_DEVICES", .kind = FK_CSTR, .off = P(nvidia_visible_devices), .valid = FIELD_ALWAYS,
	  .views = FIELD_BRIEF },
	{ .key = "cuda_visible_devices", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = visible },
	{ .key = "cuda_device_order", .kind = FK_CSTR, .off = P(device_order), .valid = FIELD_ALWAYS },
};

const struct field_table platform_field_table = {
	"platform", platform_fields, sizeof platform_fields / sizeof platform_fields[0], -1, NULL, NULL,
};

static const struct field node_fields[] = {
	{ .key = "path", .kind = FK_CHARS, .off = N(path), .valid = FIELD_ALWAYS },
	{ .key = "exists", .kind = FK_BOOL, .off = N(exists), .valid = FIELD_ALWAYS },
	{ .key = "accessible", .kind = FK_BOOL, .off = N(accessible), .valid = FIELD_ALWAYS },
};

const struct field_table device_node_field_table = {
	"platform.device_nodes[]", node_fields, sizeof node_fields / sizeof node_fields[0], -1, NULL, NULL,
};
