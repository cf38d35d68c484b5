/* The host<->device copies of the load run, judged as lab host-transfer judges them: every
 * byte must arrive, and pinned copies must reach the lab's share of the PCIe link. */
#include <math.h>
#include <stdio.h>

#include "check/judge.h"
#include "util/err.h"

static int corrupt(struct report *r, const char *subject, const struct check_copy_result *c)
{
	bool oom = false;
	struct finding *f;

	f = report_add_finding(r, SEV_ERROR, "load-copy-corrupt", subject, "data copied %s arrived different",
			       !c->h2d_same && !c->d2h_same ? "host to device and back"
			       : !c->h2d_same		   ? "from host to device"
							   : "from device to host");
	if (!f)
		return CD_ENOMEM;
	oom |= finding_evidence(f, "%zu MiB copied from page-locked host memory each way and compared byte for "
				   "byte: host to device %s, device to host %s", c->bytes >> 20,
				c->h2d_same ? "same" : "DIFFERENT", c->d2h_same ? "same" : "DIFFERENT") != CD_OK;
	oom |= finding_why(f, "A copy over PCIe is checked by the link's own CRC and retried; bytes that arrive "
			      "different were damaged where no check covers them (the GPU's copy engine, its memory, "
			      "or the host's memory), so a job's data can be silently wrong.") != CD_OK;
	oom |= finding_fix(f, "drain the node; run cudoctor check again, then the vendor's field diagnostics") != CD_OK;
	oom |= finding_fix(f, "sudo dmesg -T | grep -i -E 'AER|xid'   # PCIe and GPU errors logged meanwhile") != CD_OK;
	return oom ? CD_ENOMEM : CD_OK;
}

int check_judge_copy(struct report *r, const char *subject, const struct check_copy_result *c)
{
	double worst, ratio;
	bool oom = false;
	struct finding *f;

	if ((!c->h2d_same || !c->d2h_same) && corrupt(r, subject, c) != CD_OK)
		return CD_ENOMEM;
	if (c->link <= 0 || c->h2d <= 0 || c->d2h <= 0)
		return CD_OK;
	worst = fmin(c->h2d, c->d2h);
	ratio = worst / c->link;
	if (ratio >= CHECK_COPY_MIN_OF_LINK)
		return CD_OK;
	f = report_add_finding(r, SEV_WARN, "load-copy-slow", subject,
			       "pinned %s copies ran at %.1f GB/s, %.0f%% of the PCIe gen %d x%d link",
			       worst == c->h2d ? "host-to-device" : "device-to-host", worst / 1e9, ratio * 100, c->gen,
			       c->width);
	if (!f)
		return CD_ENOMEM;
	oom |= finding_evidence(f, "host to device %.1f GB/s, device to host %.1f GB/s (%zu MiB copies from "
				   "page-locked memory, timed with events)", c->h2d / 1e9, c->d2h / 1e9,
				c->bytes >> 20) != CD_OK;
	oom |= finding_evidence(f, "the link: PCIe gen %d x%d, %.1f GB/s per direction after line coding; the "
				   "slower direction is %.2f of it, lab host-transfer's band starts at %.2f", c->gen,
				c->width, c->link / 1e9, ratio, CHECK_COPY_MIN_OF_LINK) != CD_OK;
	oom |= finding_why(f, "Pinned copies run near the link's rate; well below it, the buffers sit on the other "
			      "CPU socket's memory (NUMA), an IOMMU or a switch slows the path, or the link runs "
			      "at a lower generation or width than it trained to.") != CD_OK;
	oom |= finding_fix(f, "cudoctor topo   # the GPU's NUMA node and link; run jobs on the GPU's own socket "
			      "(numactl --cpunodebind=N --membind=N)") != CD_OK;
	oom |= finding_fix(f, "cudoctor lab run host-transfer   # the copy at every size, pinned and pageable") != CD_OK;
	return oom ? CD_ENOMEM : CD_OK;
}
