/* Driver-load and hardware-health findings from collected GPU facts. */
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

static int no_driver(struct report *r, const struct gpu_probe *p)
{
	struct finding *f = report_add_finding(r, SEV_ERROR, "no-driver", "libcuda.so.1",
					       "the CUDA driver library libcuda.so.1 cannot be loaded");

	if (!f)
		return CD_ENOMEM;
	finding_evidence(f, "%s", p->cuda_load_error[0] ? p->cuda_load_error : "dlopen failed");
	if (p->has_nvml_device_count)
		finding_evidence(f, "NVML (%s) sees %d GPU(s): the driver is installed but its libcuda is not reachable",
				 p->nvml_path, p->nvml_device_count);
	finding_why(f, "Every CUDA program reaches the GPU through the driver's user-space library "
		       "libcuda.so.1, which comes with the NVIDIA driver, not with the CUDA toolkit or a "
		       "framework; without it no CUDA call can succeed.");
	finding_fix(f, "ldconfig -p | grep libcuda.so.1   # is the driver's library registered?");
	finding_fix(f, "install the NVIDIA driver for this GPU (distribution package or NVIDIA's installer), then reboot");
	finding_fix(f, "in a container: start it with the NVIDIA Container Toolkit (docker run --gpus all ...) so the driver libraries are mounted");
	finding_fix(f, "WSL2: install the Windows NVIDIA driver only; libcuda.so.1 lives in /usr/lib/wsl/lib");
	return CD_OK;
}

static void init_failure_advice(struct finding *f, CUresult res)
{
	switch (res) {
	case 34: /* CUDA_ERROR_STUB_LIBRARY */
		finding_why(f, "The libcuda.so.1 that was loaded is the CUDA toolkit's stub, meant only for linking; "
			       "the real one comes with the driver.");
		finding_fix(f, "remove the toolkit's lib64/stubs directory from LD_LIBRARY_PATH");
		finding_fix(f, "ldconfig -p | grep libcuda.so.1   # the driver's copy should be listed");
		break;
	case CUDA_ERROR_SYSTEM_NOT_READY:
		finding_why(f, "On NVSwitch systems (HGX/DGX) CUDA waits until the fabric manager has set up the "
			       "NVLink fabric; until then cuInit answers 'system not yet initialized' (802).");
		finding_fix(f, "sudo systemctl start nvidia-fabricmanager && systemctl status nvidia-fabricmanager");
		finding_fix(f, "the nvidia-fabricmanager package version must equal the driver version (nvidia-smi)");
		break;
	case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
		finding_why(f, "The user-space driver library and the loaded kernel module come from different "
			       "driver versions (803), typically after an upgrade without a reboot.");
		finding_fix(f, "cat /proc/driver/nvidia/version   # the kernel module's version");
		finding_fix(f, "reboot, or reinstall one driver version consistently");
		break;
	case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
		finding_why(f, "A CUDA forward-compatibility libcuda (the cuda-compat package) was loaded; forward "
			       "compatibility works only on datacenter GPUs, so this GPU refuses it (804).");
		finding_fix(f, "remove the compat directory (e.g. /usr/local/cuda/compat) from LD_LIBRARY_PATH or /etc/ld.so.conf.d");
		finding_fix(f, "or install a driver new enough for the CUDA version you need, so no compat library is required");
		break;
	case CUDA_ERROR_UNKNOWN:
		finding_why(f, "cuInit's 'unknown error' (999) usually means the kernel side is unusable: the "
			       "nvidia_uvm module is missing, /dev/nvidia-uvm is absent or not accessible, or the "
			       "driver lost its state after suspend/resume.");
		finding_fix(f, "ls -l /dev/nvidia*   # nvidia-uvm must exist and be readable");
		finding_fix(f, "sudo rmmod nvidia_uvm; sudo modprobe nvidia_uvm");
		finding_fix(f, "reboot if it persists");
		break;
	default:
		finding_why(f, "cuInit is the first call of every CUDA program; when it fails, no CUDA program on "
			       "this machine can use the GPU.");
		finding_fix(f, "nvidia-smi   # does the driver itself work?");
		finding_fix(f, "ls -l /dev/nvidia*; dmesg | grep -i -E 'nvrm|xid'");
		break;
	}
}

static int driver_init_failed(struct report *r, const struct gpu_probe *p)
{
	struct finding *f = report_add_finding(r, SEV_ERROR, "driver-init-failed", "libcuda.so.1",
					       "cuInit failed: %s", p->cuda_init_result_name);

	if (!f)
		return CD_ENOMEM;
	finding_evidence(f, "cuInit(0) = %s (%d)", p->cuda_init_result_name, p->cuda_init_result);
	finding_evidence(f, "libcuda: %s (%s)", p->cuda_path, p->cuda_how);
	if (p->has_cuda_driver_version)
		finding_evidence(f, "cuDriverGetVersion = %d (CUDA %d.%d)", p->cuda_driver_version,
				 p->cuda_driver_version / 1000, p->cuda_driver_version % 1000 / 10);
	if (p->nvml_init_called)
		finding_evidence(f, "nvmlInit = %s", p->nvml_init_result_name);
	init_failure_advice(f, p->cuda_init_result);
	return CD_OK;
}

static int no_device(struct report *r, const struct gpu_probe *p, const char *visible)
{
	struct finding *f = report_add_finding(r, SEV_ERROR, "no-device", "CUDA",
					       "no CUDA device is visible");

	if (!f)
		return CD_ENOMEM;
	if (p->cuda_init_result != CUDA_SUCCESS)
		finding_evidence(f, "cuInit(0) = %s (%d)", p->cuda_init_result_name, p->cuda_init_result);
	else
		finding_evidence(f, "cuDeviceGetCount = 0");
	if (visible)
		finding_evidence(f, "CUDA_VISIBLE_DEVICES=\"%s\"", visible);
	if (p->has_nvml_device_count)
		finding_evidence(f, "NVML sees %d GPU(s)", p->nvml_device_count);
	finding_why(f, "CUDA found no GPU it may use: none is installed or bound to the nvidia driver, "
		       "CUDA_VISIBLE_DEVICES hides them all, or the device nodes /dev/nvidia* are not "
		       "accessible (containers, permissions).");
	if (visible && p->has_nvml_device_count && p->nvml_device_count > 0)
		finding_fix(f, "unset CUDA_VISIBLE_DEVICES   # or list valid indices or GPU- UUIDs (nvidia-smi -L)");
	finding_fix(f, "nvidia-smi -L; lspci -nn | grep -i nvidia");
	finding_fix(f, "ls -l /dev/nvidia*   # in a container: docker run --gpus all ...");
	return CD_OK;
}

static int nvml_unavailable(struct report *r, const struct gpu_probe *p)
{
	struct finding *f;
	bool mismatch = p->nvml_loaded && p->nvml_init_result == NVML_ERROR_LIB_RM_VERSION_MISMATCH;

	if (!p->nvml_loaded)
		f = report_add_finding(r, SEV_WARN, "nvml-unavailable", "libnvidia-ml.so.1",
				       "NVML (libnvidia-ml.so.1) cannot be loaded");
	else
		f = report_add_finding(r, SEV_WARN, "nvml-unavailable", "libnvidia-ml.so.1",
				       "nvmlInit failed: %s", p->nvml_init_result_text);
	if (!f)
		return CD_ENOMEM;
	if (!p->nvml_loaded) {
		finding_evidence(f, "%s", p->nvml_load_error[0] ? p->nvml_load_error : "dlopen failed");
	} else {
		finding_evidence(f, "nvmlInit = %s (%d, \"%s\")", p->nvml_init_result_name, p->nvml_init_result,
				 p->nvml_init_result_text);
		finding_evidence(f, "libnvidia-ml: %s (%s)", p->nvml_path, p->nvml_how);
	}
	if (mismatch) {
		finding_why(f, "The NVIDIA kernel module in the running kernel is a different version from the "
			       "user-space driver libraries, typically after a driver upgrade without a reboot; "
			       "NVML refuses to work and CUDA usually fails as well.");
		finding_fix(f, "cat /proc/driver/nvidia/version   # the kernel module's version");
		finding_fix(f, "reboot (or unload and reload the nvidia kernel modules when no process uses the GPU)");
	} else if (p->nvml_loaded && p->nvml_init_result == NVML_ERROR_DRIVER_NOT_LOADED) {
		finding_why(f, "NVML found no loaded NVIDIA kernel module, so neither NVML nor CUDA can reach a GPU.");
		finding_fix(f, "sudo modprobe nvidia; dmesg | grep -i nvrm");
	} else {
		finding_why(f, "NVML is how cudoctor and nvidia-smi read driver version, health, clocks, PCIe "
			       "links and processes; without it those facts are unknown (CUDA facts still are).");
		finding_fix(f, "nvidia-smi   # fails the same way when NVML does");
		finding_fix(f, "ldconfig -p | grep libnvidia-ml.so.1; in a container: --gpus all mounts it");
	}
	return CD_OK;
}

int gpu_driver_findings(struct report *r, const struct gpu_probe *p, const char *visible)
{
	int rc = CD_OK;

	if (!p->cuda_loaded)
		rc = no_driver(r, p);
	else if (p->cuda_init_called && p->cuda_init_result == CUDA_ERROR_NO_DEVICE)
		rc = no_device(r, p, visible);
	else if (p->cuda_init_called && p->cuda_init_result != CUDA_SUCCESS)
		rc = driver_init_failed(r, p);
	else if (p->has_cuda_device_count && p->cuda_device_count == 0)
		rc = no_device(r, p, visible);
	if (rc == CD_OK && (!p->nvml_loaded || (p->nvml_init_called && p->nvml_init_result != NVML_SUCCESS)))
		rc = nvml_unavailable(r, p);
	return rc;
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
