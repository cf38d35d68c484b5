/* One NVML reading of a GPU under load: clock event reasons, SM clock, temperature, power. */
#include "check/load.h"
#include "driver/nvml.h"
#include "lab/gpu.h"

void check_sample_take(const struct lab_nvml *v, double t_s, struct check_sample *s)
{
	unsigned long long reasons;
	unsigned u;

	*s = (struct check_sample){ t_s, -1, -1, -1, -1 };
	if (!v || !v->ok)
		return;
	if (v->n->DeviceGetCurrentClocksEventReasons && v->n->DeviceGetCurrentClocksEventReasons(v->dev, &reasons) == NVML_SUCCESS)
		s->reasons = (long long)reasons;
	if (v->n->DeviceGetClockInfo && v->n->DeviceGetClockInfo(v->dev, NVML_CLOCK_SM, &u) == NVML_SUCCESS)
		s->sm_mhz = (int)u;
	if (v->n->DeviceGetTemperature && v->n->DeviceGetTemperature(v->dev, NVML_TEMPERATURE_GPU, &u) == NVML_SUCCESS)
		s->temperature_c = (int)u;
	if (v->n->DeviceGetPowerUsage && v->n->DeviceGetPowerUsage(v->dev, &u) == NVML_SUCCESS)
		s->power_mw = u;
}

void check_samples_add(struct check_samples *sm)
{
	double t;

	if (sm && sm->tick)
		sm->tick(sm->tick_user);
	if (!sm || sm->n >= CHECK_MAX_SAMPLES)
		return;
	t = lab_now_s() - sm->t0;
	if (sm->n && t - sm->s[sm->n - 1].t_s < CHECK_SAMPLE_EVERY_S)
		return;
	check_sample_take(sm->nv, t, &sm->s[sm->n++]);
}
