/* One NVML reading of a GPU under load: clock event reasons, SM clock, temperature, power;
 * and the readings of one GPU reduced to a bounded timeline. */
#include <math.h>
#include <string.h>

#include "check/load.h"
#include "driver/nvml.h"
#include "lab/gpu.h"

void check_sample_take(const struct lab_nvml *v, double t_s, struct check_sample *s)
{
	unsigned long long reasons;
	unsigned u;

	*s = (struct check_sample){ t_s, -1, -1, -1, -1, 0 };
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

void check_samples_gemm(struct check_samples *sm, double flops)
{
	if (sm && sm->n && sm->s[sm->n - 1].gemm_flops <= 0)
		sm->s[sm->n - 1].gemm_flops = flops;
}

/* adds v to a part's sum when known */
static void part_add(double *sum, unsigned *cnt, size_t k, double v, bool known)
{
	if (known) {
		sum[k] += v;
		cnt[k]++;
	}
}

static double part_mean(const double *sum, const unsigned *cnt, size_t k)
{
	return cnt[k] ? sum[k] / cnt[k] : NAN;
}

void check_timeline_make(const struct check_sample *s, size_t n, struct check_timeline *tl)
{
	enum { T, MHZ, TEMP, POWER, GEMM, NV };
	double sum[NV][CHECK_TIMELINE_POINTS], t0, span;
	unsigned cnt[NV][CHECK_TIMELINE_POINTS];

	memset(tl, 0, sizeof *tl);
	if (!n)
		return;
	memset(sum, 0, sizeof sum);
	memset(cnt, 0, sizeof cnt);
	t0 = s[0].t_s;
	span = s[n - 1].t_s - t0;
	for (size_t i = 0; i < n; i++) {
		double f = span > 0 ? (s[i].t_s - t0) / span : 0;
		size_t k = f >= 1 ? CHECK_TIMELINE_POINTS - 1 : f <= 0 ? 0 : (size_t)(f * CHECK_TIMELINE_POINTS);

		part_add(sum[T], cnt[T], k, s[i].t_s, true);
		part_add(sum[MHZ], cnt[MHZ], k, s[i].sm_mhz, s[i].sm_mhz >= 0);
		part_add(sum[TEMP], cnt[TEMP], k, s[i].temperature_c, s[i].temperature_c >= 0);
		part_add(sum[POWER], cnt[POWER], k, (double)s[i].power_mw / 1000, s[i].power_mw >= 0);
		part_add(sum[GEMM], cnt[GEMM], k, s[i].gemm_flops, s[i].gemm_flops > 0);
	}
	for (size_t k = 0; k < CHECK_TIMELINE_POINTS; k++) {
		if (!cnt[T][k])
			continue;
		tl->t_s[tl->n] = part_mean(sum[T], cnt[T], k);
		tl->sm_mhz[tl->n] = part_mean(sum[MHZ], cnt[MHZ], k);
		tl->temperature_c[tl->n] = part_mean(sum[TEMP], cnt[TEMP], k);
		tl->power_w[tl->n] = part_mean(sum[POWER], cnt[POWER], k);
		tl->gemm_flops[tl->n] = part_mean(sum[GEMM], cnt[GEMM], k);
		tl->n++;
	}
}
