/* GPU state and health rules: NVML's view of each GPU (lost, ECC, memory retirement,
 * PCIe link, clock limits, persistence mode). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/nvml.h"
#include "facts/deploy.h"
#include "rules/catalogue.h"
#include "rules/internal.h"
#include "util/err.h"
#include "util/str.h"

/* Uncorrectable ECC errors on g: since the driver loaded (an error), else over its lifetime. */
static bool ecc_verdict(const struct gpu_info *g, struct finding_vars *v, bool *recent)
{
	bool volatile_unc = gpu_has(g, GF_ECC_VOLATILE) && g->ecc_uncorrected_volatile > 0;
	bool aggregate_unc = gpu_has(g, GF_ECC_AGGREGATE) && g->ecc_uncorrected_aggregate > 0;

	if (!volatile_unc && !aggregate_unc)
		return false;
	*recent = volatile_unc;
	finding_var(v, "ecc_count", "%lld", volatile_unc ? g->ecc_uncorrected_volatile : g->ecc_uncorrected_aggregate);
	finding_var(v, "ecc_since", "%s", volatile_unc ? "since the driver loaded" : "over the GPU's lifetime");
	if (g->pci_bus_id[0])
		finding_var(v, "pci_bus", "%s", g->pci_bus_id);
	return true;
}

bool rules_ecc_machine_verdict(const struct facts *f, struct finding_vars *v, const char **row)
{
	bool recent;

	*row = "ecc-errors";
	for (size_t i = 0; i < f->driver->n_gpus; i++)
		if (ecc_verdict(&f->driver->gpus[i], v, &recent))
			return true;
	return false;
}

static int ecc_errors(struct report *r, const struct gpu_info *g, const char *subject)
{
	bool oom = false, recent;
	struct finding_vars v;
	struct finding *f;

	finding_vars_init(&v);
	if (!ecc_verdict(g, &v, &recent))
		return CD_OK;
	f = finding_make(r, recent ? SEV_ERROR : SEV_WARN, "ecc-errors", subject, &v);
	oom |= !f;
	if (gpu_has(g, GF_ECC_VOLATILE))
		oom |= finding_evidence(f, "volatile (since driver load): %lld corrected, %lld uncorrected",
				 g->ecc_corrected_volatile, g->ecc_uncorrected_volatile) != CD_OK;
	if (gpu_has(g, GF_ECC_AGGREGATE))
		oom |= finding_evidence(f, "aggregate (lifetime): %lld corrected, %lld uncorrected",
				 g->ecc_corrected_aggregate, g->ecc_uncorrected_aggregate) != CD_OK;
	return rules_status(oom);
}

static int retirement_pending(struct report *r, const struct gpu_info *g, const char *subject)
{
	bool oom = false;
	bool pages = gpu_has(g, GF_RETIRED_PENDING) && g->retired_pages_pending;
	bool rows = gpu_has(g, GF_REMAPPED_ROWS) && g->remapped_rows_pending;
	bool failed = gpu_has(g, GF_REMAPPED_ROWS) && g->remapped_rows_failure;
	struct finding_vars v;
	struct finding *f;

	if (!pages && !rows && !failed)
		return rules_status(oom);
	finding_vars_init(&v);
	finding_flag(&v, "remap_failed", failed);
	finding_var(&v, "pending_action", "%s", pages ? "retired" : "remapped");
	f = finding_make(r, failed ? SEV_ERROR : SEV_WARN, "retired-pages-pending", subject, &v);
	oom |= !f;
	if (gpu_has(g, GF_RETIRED_PAGES) || gpu_has(g, GF_RETIRED_PENDING))
		oom |= finding_evidence(f, "retired pages: %lld single-bit, %lld double-bit; pending: %s",
				 g->retired_pages_sbe, g->retired_pages_dbe, g->retired_pages_pending ? "yes" : "no") != CD_OK;
	if (gpu_has(g, GF_REMAPPED_ROWS))
		oom |= finding_evidence(f, "remapped rows: %lld correctable, %lld uncorrectable; pending: %s; failure: %s",
				 g->remapped_rows_correctable, g->remapped_rows_uncorrectable,
				 g->remapped_rows_pending ? "yes" : "no", g->remapped_rows_failure ? "yes" : "no") != CD_OK;
	return rules_status(oom);
}

static int pcie_degraded(struct report *r, const struct gpu_info *g, const char *subject)
{
	bool oom = false;
	bool width_low = gpu_has(g, GF_PCIE_WIDTH_CURRENT) && gpu_has(g, GF_PCIE_WIDTH_MAX) &&
			 g->pcie_width_current > 0 && g->pcie_width_current < g->pcie_width_max;
	bool gen_low = gpu_has(g, GF_PCIE_GEN_CURRENT) && gpu_has(g, GF_PCIE_GEN_MAX) &&
		       g->pcie_gen_current > 0 && g->pcie_gen_current < g->pcie_gen_max;
	bool idle = gpu_has(g, GF_CLOCK_EVENT_REASONS) && (g->clock_event_reasons & NVML_CLOCKS_EVENT_GPU_IDLE);
	struct finding_vars v;
	struct finding *f;

	/* an idle GPU lowers its link generation to save power: only the width is a fault then */
	if (!width_low && !(gen_low && !idle))
		return rules_status(oom);
	finding_vars_init(&v);
	finding_var(&v, "gen", "%lld", g->pcie_gen_current);
	finding_var(&v, "width", "%lld", g->pcie_width_current);
	finding_var(&v, "gen_max", "%lld", g->pcie_gen_max);
	finding_var(&v, "width_max", "%lld", g->pcie_width_max);
	if (g->pci_bus_id[0])
		finding_var(&v, "pci_bus", "%s", g->pci_bus_id);
	f = finding_make(r, SEV_WARN, "pcie-link-degraded", subject, &v);
	oom |= !f;
	oom |= finding_evidence(f, "current: Gen %lld x%lld; max (GPU and host): Gen %lld x%lld", g->pcie_gen_current,
			 g->pcie_width_current, g->pcie_gen_max, g->pcie_width_max) != CD_OK;
	if (gpu_has(g, GF_CLOCK_EVENT_REASONS))
		oom |= finding_evidence(f, "GPU idle: %s (idle GPUs lower the generation, not the width)", idle ? "yes" : "no") != CD_OK;
	return rules_status(oom);
}

static int clocks_throttled(struct report *r, const struct gpu_info *g, const char *subject)
{
	bool oom = false;
	char names[256];
	struct finding_vars v;
	struct finding *f;

	if (!gpu_has(g, GF_CLOCK_EVENT_REASONS))
		return rules_status(oom);
	unsigned long long m = g->clock_event_reasons;
	bool hard = gpu_clock_events_hardware(m);
	if (!hard && !(m & NVML_CLOCKS_EVENT_SW_POWER_CAP))
		return rules_status(oom);
	gpu_clock_event_reason_names(m, names, sizeof(names));
	finding_vars_init(&v);
	finding_flag(&v, "hardware", hard);
	finding_var(&v, "reasons", "%s", names);
	f = finding_make(r, hard ? SEV_WARN : SEV_INFO, "clocks-throttled", subject, &v);
	oom |= !f;
	oom |= finding_evidence(f, "clock event reasons: 0x%llx (%s)", m, names) != CD_OK;
	if (gpu_has(g, GF_CLOCK_SM) && gpu_has(g, GF_CLOCK_MAX_SM))
		oom |= finding_evidence(f, "SM clock %lld MHz of %lld MHz max", g->clock_sm_mhz, g->clock_max_sm_mhz) != CD_OK;
	if (gpu_has(g, GF_TEMPERATURE))
		oom |= finding_evidence(f, "temperature %lld C", g->temperature_c) != CD_OK;
	if (gpu_has(g, GF_POWER_DRAW) && gpu_has(g, GF_POWER_LIMIT))
		oom |= finding_evidence(f, "power %lld.%lld W of %lld.%lld W limit", g->power_draw_mw / 1000,
				 g->power_draw_mw % 1000 / 100, g->power_limit_mw / 1000, g->power_limit_mw % 1000 / 100) != CD_OK;
	return rules_status(oom);
}

static int gpu_lost(struct report *r, const struct gpu_info *g, const char *subject)
{
	bool oom = false;
	struct finding *f;

	if (!g->nvml_gpu_lost)
		return rules_status(oom);
	f = finding_make(r, SEV_ERROR, "gpu-lost", subject, NULL);
	oom |= !f;
	oom |= finding_evidence(f, "%s", g->errors) != CD_OK;
	if (g->pci_bus_id[0])
		oom |= finding_evidence(f, "PCI bus id %s", g->pci_bus_id) != CD_OK;
	return rules_status(oom);
}

/* What the driver itself says to do (NVML's recovery action, R575+), and a GPU drained through
 * NVML: read here so that a user who cannot read the kernel log's Xid 154 still learns it. */
static int recovery_action(struct report *r, const struct gpu_info *g, const char *subject)
{
	int a;
	bool act = gpu_has(g, GF_RECOVERY_ACTION) && g->recovery_action != NVML_GPU_RECOVERY_ACTION_NONE;
	bool drained = gpu_has(g, GF_DRAIN_STATE) && g->drained;
	bool oom = false;
	struct finding_vars v;
	struct finding *f;

	if (!act && !drained)
		return rules_status(oom);
	/* one fix line per action the driver can ask for; a drain alone asks to undo it */
	a = act ? g->recovery_action : -1;
	finding_vars_init(&v);
	finding_flag(&v, "act", act);
	finding_var(&v, "action", "%s", gpu_recovery_action_name(g->recovery_action));
	if (g->pci_bus_id[0])
		finding_var(&v, "pci_bus", "%s", g->pci_bus_id);
	finding_flag(&v, "reset", a == NVML_GPU_RECOVERY_ACTION_GPU_RESET);
	finding_flag(&v, "reboot", a == NVML_GPU_RECOVERY_ACTION_NODE_REBOOT);
	finding_flag(&v, "drain_peers", a == NVML_GPU_RECOVERY_ACTION_DRAIN_P2P);
	finding_flag(&v, "drain_reset", a == NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET);
	finding_flag(&v, "undrain", a != NVML_GPU_RECOVERY_ACTION_GPU_RESET && a != NVML_GPU_RECOVERY_ACTION_NODE_REBOOT &&
					    a != NVML_GPU_RECOVERY_ACTION_DRAIN_P2P &&
					    a != NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET);
	f = finding_make(r, act ? SEV_ERROR : SEV_WARN, "gpu-recovery-action", subject, &v);
	oom |= !f;
	if (act)
		oom |= finding_evidence(f, "NVML field 230 (GPU recovery action) = %d, %s", g->recovery_action,
					gpu_recovery_action_name(g->recovery_action)) != CD_OK;
	if (gpu_has(g, GF_DRAIN_STATE))
		oom |= finding_evidence(f, "NVML drain state: %s", g->drained ? "drained" : "not drained") != CD_OK;
	return rules_status(oom);
}

int rules_gpu_health(const struct gpu_probe *p, struct report *r)
{
	for (size_t i = 0; i < p->n_gpus; i++) {
		const struct gpu_info *g = &p->gpus[i];
		char subject[320];
		int rc;

		gpu_subject(g, subject, sizeof(subject));
		if ((rc = gpu_lost(r, g, subject)) || (rc = ecc_errors(r, g, subject)) || (rc = retirement_pending(r, g, subject)) ||
		    (rc = pcie_degraded(r, g, subject)) || (rc = clocks_throttled(r, g, subject)) ||
		    (rc = recovery_action(r, g, subject)))
			return rc;
	}
	return CD_OK;
}

enum severity rules_gpu_verdict(const struct report *r, const struct gpu_info *g, const char **ids, size_t max,
				size_t *n)
{
	char subject[320], *safe;
	enum severity worst = SEV_OK;

	*n = 0;
	gpu_subject(g, subject, sizeof subject);
	/* the report keeps a subject as safe text: compare in that form */
	safe = report_text_take(cd_strdup(subject));
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct finding *f = &r->findings[i];
		bool seen = false;

		if (f->severity < SEV_WARN || strcmp(f->subject, safe ? safe : subject) != 0)
			continue;
		if (f->severity > worst)
			worst = f->severity;
		for (size_t k = 0; k < *n && !seen; k++)
			seen = strcmp(ids[k], f->id) == 0;
		if (!seen && *n < max)
			ids[(*n)++] = f->id;
	}
	free(safe);
	return worst;
}

static bool nvml_lists(const struct gpu_probe *p, const char *bus_id)
{
	for (size_t i = 0; i < p->n_gpus; i++)
		if (p->gpus[i].nvml_index >= 0 && strcmp(p->gpus[i].pci_bus_id, bus_id) == 0)
			return true;
	return false;
}

int rules_gpu_count(const struct pci_gpus *pci, const struct gpu_probe *p, long long expect, struct gpu_count *c,
		    struct report *r)
{
	bool nvml = driver_nvml_ok(p), cuda = driver_has(p, DF_CUDA_INIT) && p->cuda_init_result == 0, oom = false;
	long long seen;
	struct finding_vars v;
	struct finding *f;

	*c = (struct gpu_count){ pci->read ? (long long)pci->n : -1, nvml ? 0 : -1, cuda ? 0 : -1,
				 expect > 0 ? expect : pci->read ? (long long)pci->n : -1 };
	for (size_t i = 0; i < p->n_gpus; i++) {
		c->nvml += nvml && p->gpus[i].nvml_index >= 0;
		c->cuda += cuda && p->gpus[i].cuda_ordinal >= 0;
	}
	/* a GPU on the bus that NVML has lost track of: the worst case, and nothing else says it */
	for (size_t i = 0; nvml && pci->read && i < pci->n && i < PCI_GPUS_MAX; i++) {
		if (nvml_lists(p, pci->bus_id[i]))
			continue;
		finding_vars_init(&v);
		finding_var(&v, "bus_short", "%s", pci->bus_id[i] + 5);
		f = finding_make(r, SEV_ERROR, "gpu-missing/nvml", pci->bus_id[i], &v);
		oom |= !f;
		oom |= finding_evidence(f, "PCI bus id %s: vendor 0x10de, a display or 3D controller in sysfs", pci->bus_id[i]) != CD_OK;
		oom |= finding_evidence(f, "GPUs on the PCI bus: %zu; listed by NVML: %lld", pci->n, c->nvml) != CD_OK;
	}
	seen = c->nvml >= 0 ? c->nvml : c->cuda;
	if (expect > 0 && seen >= 0 && seen < expect) {
		finding_vars_init(&v);
		finding_var(&v, "seen_gpus", "%lld GPU%s", seen, seen == 1 ? "" : "s");
		finding_var(&v, "expected", "%lld %s", expect, expect == 1 ? "is" : "are");
		f = finding_make(r, SEV_ERROR, "gpu-missing/count", NULL, &v);
		oom |= !f;
		oom |= finding_evidence(f, "listed by %s: %lld; expected (--expect-gpus): %lld", c->nvml >= 0 ? "NVML" : "CUDA",
					seen, expect) != CD_OK;
		if (pci->read)
			oom |= finding_evidence(f, "NVIDIA GPUs on the PCI bus: %zu", pci->n) != CD_OK;
	}
	return rules_status(oom);
}

int rules_gpu_pcie(const struct gpu_probe *p, struct report *r)
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

int rule_persistence(const struct facts *f, struct report *r)
{
	bool oom = false;
	char subj[320];

	for (size_t i = 0; i < f->driver->n_gpus; i++) {
		const struct gpu_info *g = &f->driver->gpus[i];
		struct finding *x;

		if (!gpu_has(g, GF_PERSISTENCE) || g->persistence_mode)
			continue;
		gpu_subject(g, subj, sizeof subj);
		x = finding_make(r, SEV_INFO, "persistence-off", subj, NULL);
		oom |= !x;
		oom |= finding_evidence(x, "NVML persistence mode: disabled") != CD_OK;
	}
	return rules_status(oom);
}
