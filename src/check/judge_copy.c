/* The host<->device copies of the load run, judged as lab host-transfer judges them: every
 * byte must arrive, and pinned copies must reach the lab's share of the PCIe link. */
#include <math.h>
#include <stdio.h>

#include "check/judge.h"
#include "rules/catalogue.h"
#include "util/err.h"

static int corrupt(struct report *r, const char *subject, const struct check_copy_result *c)
{
	bool oom = false;
	struct finding_vars v;
	struct finding *f;

	finding_vars_init(&v);
	finding_var(&v, "direction", "%s",
		    !c->h2d_same && !c->d2h_same ? "host to device and back"
		    : !c->h2d_same		 ? "from host to device"
						 : "from device to host");
	f = finding_make(r, SEV_ERROR, "load-copy-corrupt", subject, &v);
	if (!f)
		return CD_ENOMEM;
	oom |= finding_evidence(f, "%zu MiB copied from page-locked host memory each way and compared byte for "
				   "byte: host to device %s, device to host %s", c->bytes >> 20,
				c->h2d_same ? "same" : "DIFFERENT", c->d2h_same ? "same" : "DIFFERENT") != CD_OK;
	return oom ? CD_ENOMEM : CD_OK;
}

int check_judge_copy(struct report *r, const char *subject, const struct check_copy_result *c)
{
	double worst, ratio;
	bool oom = false;
	struct finding_vars v;
	struct finding *f;

	if ((!c->h2d_same || !c->d2h_same) && corrupt(r, subject, c) != CD_OK)
		return CD_ENOMEM;
	if (c->link <= 0 || c->h2d <= 0 || c->d2h <= 0)
		return CD_OK;
	worst = fmin(c->h2d, c->d2h);
	ratio = worst / c->link;
	if (ratio >= CHECK_COPY_MIN_OF_LINK)
		return CD_OK;
	finding_vars_init(&v);
	finding_var(&v, "direction", "%s", worst == c->h2d ? "host-to-device" : "device-to-host");
	finding_var(&v, "rate", "%.1f GB/s", worst / 1e9);
	finding_var(&v, "share", "%.0f%%", ratio * 100);
	finding_var(&v, "link", "PCIe gen %d x%d", c->gen, c->width);
	f = finding_make(r, SEV_WARN, "load-copy-slow", subject, &v);
	if (!f)
		return CD_ENOMEM;
	oom |= finding_evidence(f, "host to device %.1f GB/s, device to host %.1f GB/s (%zu MiB copies from "
				   "page-locked memory, timed with events)", c->h2d / 1e9, c->d2h / 1e9,
				c->bytes >> 20) != CD_OK;
	oom |= finding_evidence(f, "the link: PCIe gen %d x%d, %.1f GB/s per direction after line coding; the "
				   "slower direction is %.2f of it, lab host-transfer's band starts at %.2f", c->gen,
				c->width, c->link / 1e9, ratio, CHECK_COPY_MIN_OF_LINK) != CD_OK;
	return oom ? CD_ENOMEM : CD_OK;
}
