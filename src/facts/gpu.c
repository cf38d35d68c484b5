/* Names of the GPU facts' enumerations and bit masks, for evidence and the reports. */
#include "facts/gpu.h"

#include <stdio.h>

#include "driver/nvml.h"

static const struct {
	unsigned long long bit;
	const char *name;
} reason_names[] = {
	{ NVML_CLOCKS_EVENT_GPU_IDLE, "gpu_idle" },
	{ NVML_CLOCKS_EVENT_APPLICATIONS_CLOCKS, "applications_clocks_setting" },
	{ NVML_CLOCKS_EVENT_SW_POWER_CAP, "sw_power_cap" },
	{ NVML_CLOCKS_EVENT_HW_SLOWDOWN, "hw_slowdown" },
	{ NVML_CLOCKS_EVENT_SYNC_BOOST, "sync_boost" },
	{ NVML_CLOCKS_EVENT_SW_THERMAL_SLOWDOWN, "sw_thermal_slowdown" },
	{ NVML_CLOCKS_EVENT_HW_THERMAL_SLOWDOWN, "hw_thermal_slowdown" },
	{ NVML_CLOCKS_EVENT_HW_POWER_BRAKE, "hw_power_brake_slowdown" },
	{ NVML_CLOCKS_EVENT_DISPLAY_CLOCK_SETTING, "display_clock_setting" },
};

void gpu_clock_event_reason_names(unsigned long long mask, char *buf, size_t len)
{
	size_t used = 0;
	unsigned long long known = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(reason_names) / sizeof(reason_names[0]); i++) {
		known |= reason_names[i].bit;
		if ((mask & reason_names[i].bit) && used < len) {
			int n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", reason_names[i].name);
			used += n > 0 ? (size_t)n : 0;
		}
	}
	if ((mask & ~known) && used < len)
		snprintf(buf + used, len - used, "%sunknown_0x%llx", used ? "," : "", mask & ~known);
	else if (mask == 0)
		snprintf(buf, len, "none");
}


const char *gpu_driver_model_name(int model)
{
	switch (model) {
	case 0: return "WDDM";
	case 1: return "TCC";
	case 2: return "MCDM";
	}
	return NULL;
}

const char *gpu_recovery_action_name(int action)
{
	switch (action) {
	case 0: return "none";
	case 1: return "GPU reset";
	case 2: return "node reboot";
	case 3: return "drain P2P";
	case 4: return "drain and reset";
	}
	return NULL;
}

const char *gpu_compute_mode_name(long long mode)
{
	switch (mode) {
	case 0: return "default";
	case 1: return "exclusive_thread";
	case 2: return "prohibited";
	case 3: return "exclusive_process";
	}
	return "unknown";
}

bool gpu_clock_events_hardware(unsigned long long mask)
{
	return mask & (NVML_CLOCKS_EVENT_HW_SLOWDOWN | NVML_CLOCKS_EVENT_HW_THERMAL_SLOWDOWN |
		       NVML_CLOCKS_EVENT_HW_POWER_BRAKE | NVML_CLOCKS_EVENT_SW_THERMAL_SLOWDOWN);
}
