/* What happened to the GPU while the load ran: clocks held down (NVML's clock event reasons
 * in the samples) and kernel-log events that appeared during the run. */
#include <stdio.h>
#include <string.h>

#include "check/judge.h"
#include "rules/catalogue.h"
#include "driver/nvml.h"
#include "rules/deploy.h"
#include "rules/rules.h"
#include "util/err.h"

int check_judge_throttle(struct report *r, const char *subject, const struct check_sample *s, size_t n)
{
	unsigned long long seen = 0;
	size_t hard = 0, capped = 0, read = 0;
	int min_mhz = -1, max_temp = -1;
	long long max_mw = -1;
	bool oom = false;
	struct finding_vars v;
	struct finding *f;
	char names[256];

	for (size_t i = 0; i < n; i++) {
		if (s[i].reasons >= 0) {
			unsigned long long m = (unsigned long long)s[i].reasons;
			/* only the reasons that hold clocks down: idle and sync boost are not */
			bool h = gpu_clock_events_hardware(m);

			read++;
			hard += h;
			capped += !h && (m & NVML_CLOCKS_EVENT_SW_POWER_CAP);
			if (h || (m & NVML_CLOCKS_EVENT_SW_POWER_CAP))
				seen |= m & ~(NVML_CLOCKS_EVENT_GPU_IDLE | NVML_CLOCKS_EVENT_SYNC_BOOST);
		}
		if (s[i].sm_mhz >= 0 && (min_mhz < 0 || s[i].sm_mhz < min_mhz))
			min_mhz = s[i].sm_mhz;
		if (s[i].temperature_c > max_temp)
			max_temp = s[i].temperature_c;
		if (s[i].power_mw > max_mw)
			max_mw = s[i].power_mw;
	}
	if (!hard && !capped)
		return CD_OK;
	gpu_clock_event_reason_names(seen, names, sizeof names);
	finding_vars_init(&v);
	finding_var(&v, "reasons", "%s", names);
	finding_var(&v, "hard", "%zu", hard);
	finding_var(&v, "capped", "%zu", capped);
	finding_var(&v, "read", "%zu", read);
	f = finding_make(r, SEV_CATALOGUE, hard ? "load-throttled/hardware" : "load-throttled/power", subject, &v);
	if (!f)
		return CD_ENOMEM;
	oom |= finding_evidence(f, "clock event reasons seen: 0x%llx (%s); hardware or thermal in %zu samples, power "
				   "cap alone in %zu", seen, names, hard, capped) != CD_OK;
	if (min_mhz >= 0)
		oom |= finding_evidence(f, "lowest SM clock under load %d MHz", min_mhz) != CD_OK;
	if (max_temp >= 0)
		oom |= finding_evidence(f, "hottest %d C", max_temp) != CD_OK;
	if (max_mw >= 0)
		oom |= finding_evidence(f, "highest power %lld.%lld W", max_mw / 1000, max_mw % 1000 / 100) != CD_OK;
	return oom ? CD_ENOMEM : CD_OK;
}

static const struct xid_event *find_event(const struct kmsg_events *k, const struct xid_event *e)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->ev[i].kind == e->kind && k->ev[i].xid == e->xid && strcmp(k->ev[i].pci, e->pci) == 0)
			return &k->ev[i];
	return NULL;
}

/* An event is new when the earlier read did not have it, or logged it fewer times or last
 * at an earlier time (the kernel's ring may have dropped old lines, so a count alone could
 * fall while a new line came). */
static bool event_is_new(const struct kmsg_events *before, const struct xid_event *e)
{
	const struct xid_event *b = find_event(before, e);

	return !b || e->count > b->count || e->last_usec > b->last_usec;
}

int check_judge_new_xid(struct report *r, const struct kmsg_events *before, const struct kmsg_events *after,
			const struct gpu_probe *gp)
{
	bool oom = false;

	for (size_t i = 0; i < after->n && !oom; i++) {
		const struct xid_event *e = &after->ev[i];
		const struct xid_event *b;
		char subject[320], label[48];
		struct finding_vars v;
		struct finding *f;
		int g;

		if (!event_is_new(before, e))
			continue;
		if ((g = deploy_event_gpu(e, gp)) >= 0)
			gpu_subject(&gp->gpus[g], subject, sizeof subject);
		else
			snprintf(subject, sizeof subject, "%s at PCI %s", e->kind == XID_EVENT_SXID ? "NVSwitch" : "GPU",
				 e->pci[0] ? e->pci : "(not logged)");
		if (e->kind == XID_EVENT_OFF_BUS)
			snprintf(label, sizeof label, "the GPU fallen off the bus");
		else
			snprintf(label, sizeof label, "%s %d", e->kind == XID_EVENT_SXID ? "SXid" : "Xid", e->xid);
		/* an Xid NVIDIA's catalogue says to ignore stays info; an application's Xid is an
		 * error here, since the program that ran was cudoctor's known-good load (or another
		 * job beside it, which the evidence's pid names) */
		finding_vars_init(&v);
		finding_var(&v, "event", "%s", label);
		f = finding_make(r, deploy_event_severity(e) == SEV_INFO ? SEV_INFO : SEV_ERROR, "load-new-xid", subject, &v);
		if (!f)
			return CD_ENOMEM;
		b = find_event(before, e);
		oom |= finding_evidence(f, "logged %lu time%s before the load, %lu after", b ? b->count : 0,
					b && b->count == 1 ? "" : "s", e->count) != CD_OK;
		oom |= deploy_event_evidence(f, e) != CD_OK;
	}
	return oom ? CD_ENOMEM : CD_OK;
}
