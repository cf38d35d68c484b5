/* GPU facts to findings: the driver layer through the stack rules (kb/stack_rules.c,
 * the one implementation doctor shares), and the hardware-health rules. */
#include <stdio.h>
#include <string.h>

#include "cmd/gpu_findings.h"
#include "util/err.h"

void gpu_subject(const struct gpu_info *g, char *buf, size_t len)
{
	const char *name = gpu_has(g, GF_NAME) ? g->name : "unknown GPU";

	if (g->cuda_ordinal >= 0)
		snprintf(buf, len, "GPU %d (%s)", g->cuda_ordinal, name);
	else
		snprintf(buf, len, "NVML device %d (%s)", g->nvml_index, name);
}

void gpu_driver_seen(const struct gpu_probe *p, struct driver_seen *s)
{
	memset(s, 0, sizeof(*s));
	s->loaded = p->cuda_loaded;
	s->library_path = p->cuda_path;
	s->how = p->cuda_how;
	s->load_error = p->cuda_load_error;
	s->init_called = p->cuda_init_called;
	s->init_result = p->cuda_init_result;
	s->init_result_name = p->cuda_init_result_name;
	s->cuda_version = p->has_cuda_driver_version ? p->cuda_driver_version : 0;
	s->nvml_version = p->has_driver_version ? p->driver_version : NULL;
}

void gpu_stack_driver(const struct gpu_probe *p, const struct driver_info *di, struct stack_driver *d)
{
	memset(d, 0, sizeof(*d));
	d->loaded = di->loaded;
	d->load_error = di->load_error[0] ? di->load_error : NULL;
	d->library_path = di->library_path[0] ? di->library_path : NULL;
	d->init_called = di->init_called;
	d->init_result = di->init_result;
	d->init_result_name = di->init_result_name[0] ? di->init_result_name : NULL;
	if (di->cuda_version > 0)
		d->cuda = version_from_cuda_int(di->cuda_version);
	d->version = di->version[0] ? di->version : NULL;
	d->version_source = di->version_source;
	d->kmod_version = di->kmod_version[0] ? di->kmod_version : NULL;
	d->has_device_count = p->has_cuda_device_count;
	d->device_count = p->cuda_device_count;
	d->nvml_failed = !p->nvml_loaded || !p->nvml_init_called || p->nvml_init_result != NVML_SUCCESS;
	if (d->nvml_failed)
		d->nvml_error = p->nvml_load_error[0] ? p->nvml_load_error
			      : p->nvml_init_result_name[0] ? p->nvml_init_result_name : NULL;
	d->nvml_result = p->nvml_loaded && p->nvml_init_called ? (int)p->nvml_init_result : 0;
	d->nvml_path = p->nvml_loaded && p->nvml_path[0] ? p->nvml_path : NULL;
	d->has_nvml_device_count = p->has_nvml_device_count;
	d->nvml_device_count = p->nvml_device_count;
}

int gpu_driver_findings(struct report *r, const struct gpu_probe *p, const struct driver_info *di,
			const struct stack_platform *platform)
{
	struct stack_facts f;

	memset(&f, 0, sizeof(f));
	gpu_stack_driver(p, di, &f.driver);
	f.platform = *platform;
	return stack_driver_rules(&f, r);
}

/* ---- hardware health ---- */

static int ecc_errors(struct report *r, const struct gpu_info *g, const char *subject)
{
	bool volatile_unc = gpu_has(g, GF_ECC_VOLATILE) && g->ecc_uncorrected_volatile > 0;
	bool aggregate_unc = gpu_has(g, GF_ECC_AGGREGATE) && g->ecc_uncorrected_aggregate > 0;
	struct finding *f;

	if (!volatile_unc && !aggregate_unc)
		return CD_OK;
	if (volatile_unc)
		f = report_add_finding(r, SEV_ERROR, "ecc-errors", subject,
				       "%lld uncorrectable ECC error(s) since the driver loaded",
				       g->ecc_uncorrected_volatile);
	else
		f = report_add_finding(r, SEV_WARN, "ecc-errors", subject,
				       "%lld uncorrectable ECC error(s) over the GPU's lifetime",
				       g->ecc_uncorrected_aggregate);
	if (!f)
		return CD_ENOMEM;
	if (gpu_has(g, GF_ECC_VOLATILE))
		finding_evidence(f, "volatile (since driver load): %lld corrected, %lld uncorrected",
				 g->ecc_corrected_volatile, g->ecc_uncorrected_volatile);
	if (gpu_has(g, GF_ECC_AGGREGATE))
		finding_evidence(f, "aggregate (lifetime): %lld corrected, %lld uncorrected",
				 g->ecc_corrected_aggregate, g->ecc_uncorrected_aggregate);
	finding_why(f, "An uncorrectable ECC error means data in GPU memory was corrupted and could not be "
		       "repaired; the process that touched it was stopped (Xid 48/63/94/95) and results "
		       "computed around that time are suspect.");
	finding_fix(f, "nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER -i %s", g->pci_bus_id[0] ? g->pci_bus_id : "0");
	finding_fix(f, "reset the GPU when it is idle (sudo nvidia-smi -r) or reboot, so the bad memory is retired or remapped");
	finding_fix(f, "if uncorrectable errors return after that, contact the vendor (RMA)");
	return CD_OK;
}

static int retirement_pending(struct report *r, const struct gpu_info *g, const char *subject)
{
	bool pages = gpu_has(g, GF_RETIRED_PENDING) && g->retired_pages_pending;
	bool rows = gpu_has(g, GF_REMAPPED_ROWS) && g->remapped_rows_pending;
	bool failed = gpu_has(g, GF_REMAPPED_ROWS) && g->remapped_rows_failure;
	struct finding *f;

	if (!pages && !rows && !failed)
		return CD_OK;
	if (failed)
		f = report_add_finding(r, SEV_ERROR, "retired-pages-pending", subject,
				       "row remapping failed: the GPU ran out of spare memory rows");
	else
		f = report_add_finding(r, SEV_WARN, "retired-pages-pending", subject,
				       "memory with ECC errors waits for a GPU reset to be %s",
				       pages ? "retired" : "remapped");
	if (!f)
		return CD_ENOMEM;
	if (gpu_has(g, GF_RETIRED_PAGES) || gpu_has(g, GF_RETIRED_PENDING))
		finding_evidence(f, "retired pages: %lld single-bit, %lld double-bit; pending: %s",
				 g->retired_pages_sbe, g->retired_pages_dbe, g->retired_pages_pending ? "yes" : "no");
	if (gpu_has(g, GF_REMAPPED_ROWS))
		finding_evidence(f, "remapped rows: %lld correctable, %lld uncorrectable; pending: %s; failure: %s",
				 g->remapped_rows_correctable, g->remapped_rows_uncorrectable,
				 g->remapped_rows_pending ? "yes" : "no", g->remapped_rows_failure ? "yes" : "no");
	finding_why(f, "Memory that produced ECC errors is taken out of use (pages retired on Volta and "
		       "earlier, rows remapped on Ampere and later) only when the GPU is reset; until then "
		       "the faulty memory stays in use.");
	if (failed)
		finding_fix(f, "the GPU has no spare rows left: contact the vendor (RMA)");
	finding_fix(f, "reset the GPU when it is idle (sudo nvidia-smi -r) or reboot");
	finding_fix(f, "nvidia-smi -q -d PAGE_RETIREMENT,ROW_REMAPPER");
	return CD_OK;
}

static int pcie_degraded(struct report *r, const struct gpu_info *g, const char *subject)
{
	bool width_low = gpu_has(g, GF_PCIE_WIDTH_CURRENT) && gpu_has(g, GF_PCIE_WIDTH_MAX) &&
			 g->pcie_width_current > 0 && g->pcie_width_current < g->pcie_width_max;
	bool gen_low = gpu_has(g, GF_PCIE_GEN_CURRENT) && gpu_has(g, GF_PCIE_GEN_MAX) &&
		       g->pcie_gen_current > 0 && g->pcie_gen_current < g->pcie_gen_max;
	bool idle = gpu_has(g, GF_CLOCK_EVENT_REASONS) && (g->clock_event_reasons & NVML_CLOCKS_EVENT_GPU_IDLE);
	struct finding *f;

	/* an idle GPU lowers its link generation to save power: only the width is a fault then */
	if (!width_low && !(gen_low && !idle))
		return CD_OK;
	f = report_add_finding(r, SEV_WARN, "pcie-link-degraded", subject,
			       "PCIe link runs at Gen %lld x%lld, below the Gen %lld x%lld it can do",
			       g->pcie_gen_current, g->pcie_width_current, g->pcie_gen_max, g->pcie_width_max);
	if (!f)
		return CD_ENOMEM;
	finding_evidence(f, "current: Gen %lld x%lld; max (GPU and host): Gen %lld x%lld", g->pcie_gen_current,
			 g->pcie_width_current, g->pcie_gen_max, g->pcie_width_max);
	if (gpu_has(g, GF_CLOCK_EVENT_REASONS))
		finding_evidence(f, "GPU idle: %s (idle GPUs lower the generation, not the width)", idle ? "yes" : "no");
	finding_why(f, "Host-device copies travel over the PCIe link; a link trained below its capability "
		       "(riser, wrong slot, contacts, BIOS setting) divides copy bandwidth by the lost "
		       "generations and lanes.");
	finding_fix(f, "nvidia-smi --query-gpu=pcie.link.gen.current,pcie.link.width.current --format=csv -lms 500   # while a copy runs");
	finding_fix(f, "sudo lspci -vv -s %s | grep -E 'LnkCap|LnkSta'", g->pci_bus_id[0] ? g->pci_bus_id : "<bus id>");
	finding_fix(f, "reseat the card, use an x16 slot wired to the CPU, remove risers, check the BIOS PCIe generation setting");
	return CD_OK;
}

static int clocks_throttled(struct report *r, const struct gpu_info *g, const char *subject)
{
	const unsigned long long hard = NVML_CLOCKS_EVENT_HW_SLOWDOWN | NVML_CLOCKS_EVENT_HW_THERMAL_SLOWDOWN |
					NVML_CLOCKS_EVENT_HW_POWER_BRAKE | NVML_CLOCKS_EVENT_SW_THERMAL_SLOWDOWN;
	char names[256];
	struct finding *f;

	if (!gpu_has(g, GF_CLOCK_EVENT_REASONS))
		return CD_OK;
	unsigned long long m = g->clock_event_reasons;
	if (!(m & (hard | NVML_CLOCKS_EVENT_SW_POWER_CAP)))
		return CD_OK;
	gpu_clock_event_reason_names(m, names, sizeof(names));
	if (m & hard)
		f = report_add_finding(r, SEV_WARN, "clocks-throttled", subject,
				       "clocks are held down by %s", names);
	else
		f = report_add_finding(r, SEV_INFO, "clocks-throttled", subject,
				       "clocks are limited by the power cap");
	if (!f)
		return CD_ENOMEM;
	finding_evidence(f, "clock event reasons: 0x%llx (%s)", m, names);
	if (gpu_has(g, GF_CLOCK_SM) && gpu_has(g, GF_CLOCK_MAX_SM))
		finding_evidence(f, "SM clock %lld MHz of %lld MHz max", g->clock_sm_mhz, g->clock_max_sm_mhz);
	if (gpu_has(g, GF_TEMPERATURE))
		finding_evidence(f, "temperature %lld C", g->temperature_c);
	if (gpu_has(g, GF_POWER_DRAW) && gpu_has(g, GF_POWER_LIMIT))
		finding_evidence(f, "power %lld.%lld W of %lld.%lld W limit", g->power_draw_mw / 1000,
				 g->power_draw_mw % 1000 / 100, g->power_limit_mw / 1000, g->power_limit_mw % 1000 / 100);
	if (m & hard) {
		finding_why(f, "The GPU lowered its clocks for a hardware reason (overheating, a power-brake "
			       "signal from the board or chassis, or an external slowdown): kernels run slower "
			       "than on the same GPU elsewhere and measurements here are not representative.");
		finding_fix(f, "nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER");
		finding_fix(f, "check cooling (fans, airflow, dust) and the power connectors and supply");
	} else {
		finding_why(f, "Under load the GPU keeps within its power limit by lowering clocks; this is "
			       "normal, but performance then depends on the configured limit.");
		finding_fix(f, "nvidia-smi -q -d POWER   # compare the enforced limit with the default limit");
	}
	return CD_OK;
}

static int gpu_lost(struct report *r, const struct gpu_info *g, const char *subject)
{
	struct finding *f;

	if (!g->nvml_gpu_lost)
		return CD_OK;
	f = report_add_finding(r, SEV_ERROR, "gpu-lost", subject,
			       "the GPU has fallen off the bus or is otherwise inaccessible");
	if (!f)
		return CD_ENOMEM;
	finding_evidence(f, "%s", g->errors);
	if (g->pci_bus_id[0])
		finding_evidence(f, "PCI bus id %s", g->pci_bus_id);
	finding_why(f, "NVML answers NVML_ERROR_GPU_IS_LOST when the driver can no longer talk to the GPU "
		       "(the kernel log usually shows Xid 79); every CUDA call on it fails until it is "
		       "recovered.");
	finding_fix(f, "sudo dmesg | grep -i -E 'xid|fallen off the bus'");
	finding_fix(f, "reboot; if it recurs check power cables, seating, temperature and the PCIe slot");
	return CD_OK;
}

int gpu_health_findings(struct report *r, const struct gpu_probe *p)
{
	for (size_t i = 0; i < p->n_gpus; i++) {
		const struct gpu_info *g = &p->gpus[i];
		char subject[320];
		int rc;

		gpu_subject(g, subject, sizeof(subject));
		if ((rc = gpu_lost(r, g, subject)) || (rc = ecc_errors(r, g, subject)) || (rc = retirement_pending(r, g, subject)) ||
		    (rc = pcie_degraded(r, g, subject)) || (rc = clocks_throttled(r, g, subject)))
			return rc;
	}
	return CD_OK;
}

int gpu_pcie_findings(struct report *r, const struct gpu_probe *p)
{
	for (size_t i = 0; i < p->n_gpus; i++) {
		char subject[320];
		int rc;

		gpu_subject(&p->gpus[i], subject, sizeof(subject));
		if ((rc = pcie_degraded(r, &p->gpus[i], subject)) != CD_OK)
			return rc;
	}
	return CD_OK;
}
