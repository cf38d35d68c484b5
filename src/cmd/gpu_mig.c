/* The MIG device list of a GPU as JSON and as a report table. */
#include <stdio.h>

#include "cmd/gpu_mig.h"
#include "util/err.h"
#include "util/units.h"

static json_t *int_or_null(bool valid, long long v)
{
	return valid ? json_integer(v) : json_null();
}

static json_t *str_or_null(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

json_t *gpu_mig_devices_json(const struct gpu_info *g)
{
	json_t *a;

	if (!gpu_has(g, GF_MIG_DEVICES))
		return json_null();
	a = json_array();
	for (size_t i = 0; a && i < g->n_mig_devices; i++) {
		const struct gpu_mig_device *m = &g->mig_devices[i];
		json_t *o = json_object();

		if (!o || json_array_append_new(a, o) ||
		    json_object_set_new(o, "index", json_integer(m->index)) ||
		    json_object_set_new(o, "gpu_instance_id", int_or_null(m->gpu_instance_id >= 0, m->gpu_instance_id)) ||
		    json_object_set_new(o, "compute_instance_id",
					int_or_null(m->compute_instance_id >= 0, m->compute_instance_id)) ||
		    json_object_set_new(o, "uuid", str_or_null(m->uuid)) ||
		    json_object_set_new(o, "name", str_or_null(m->name)) ||
		    json_object_set_new(o, "memory_total_bytes", int_or_null(m->has_memory, m->memory_total_bytes)) ||
		    json_object_set_new(o, "memory_used_bytes", int_or_null(m->has_memory, m->memory_used_bytes)) ||
		    json_object_set_new(o, "memory_free_bytes", int_or_null(m->has_memory, m->memory_free_bytes))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

int gpu_mig_devices_text(struct report *r, const struct gpu_info *g)
{
	static const char *const head[] = { "MIG device", "GI/CI", "name", "UUID", "memory total", "used", "free" };

	if (!gpu_has(g, GF_MIG_MODE) || !g->mig_mode_current)
		return CD_OK;
	if (!gpu_has(g, GF_MIG_DEVICES))
		return report_line(r, "MIG devices: not listed (this NVML lacks the MIG device calls, or they failed)");
	if (g->n_mig_devices == 0)
		return report_line(r, "MIG devices: none (MIG mode is on but no GPU/compute instance exists: CUDA sees no device here)");
	if (report_table(r, 7, head) != CD_OK)
		return CD_ENOMEM;
	for (size_t i = 0; i < g->n_mig_devices; i++) {
		const struct gpu_mig_device *m = &g->mig_devices[i];
		char idx[16], ids[48], tot[32], used[32], fr[32];
		const char *row[] = { idx, ids, m->name[0] ? m->name : "-", m->uuid[0] ? m->uuid : "-", tot, used, fr };

		snprintf(idx, sizeof(idx), "%u", m->index);
		if (m->gpu_instance_id >= 0 && m->compute_instance_id >= 0)
			snprintf(ids, sizeof(ids), "%lld/%lld", m->gpu_instance_id, m->compute_instance_id);
		else
			snprintf(ids, sizeof(ids), "-");
		if (m->has_memory) {
			units_fmt_bytes((uint64_t)m->memory_total_bytes, tot, sizeof(tot));
			units_fmt_bytes((uint64_t)m->memory_used_bytes, used, sizeof(used));
			units_fmt_bytes((uint64_t)m->memory_free_bytes, fr, sizeof(fr));
		} else {
			snprintf(tot, sizeof(tot), "-");
			snprintf(used, sizeof(used), "-");
			snprintf(fr, sizeof(fr), "-");
		}
		if (report_table_row(r, row) != CD_OK)
			return CD_ENOMEM;
	}
	return CD_OK;
}
