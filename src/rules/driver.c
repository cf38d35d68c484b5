/* Driver-layer rules: libcuda loaded, cuInit, the device count, kernel module vs user
 * space, NVML; and the driver facts read as versions, for every layer above. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cuda_types.h"
#include "rules/internal.h"
#include "util/err.h"
#include "util/version.h"
#include "util/str.h"

struct version rules_driver_cuda(const struct gpu_probe *p)
{
	struct version none = { 0, 0, 0, 0 };

	if (!p->cuda_loaded || !driver_has(p, DF_CUDA_VERSION) || p->cuda_driver_version <= 0)
		return none;
	return version_from_cuda_int(p->cuda_driver_version);
}

bool rules_driver_usable(const struct gpu_probe *p)
{
	struct version cuda = rules_driver_cuda(p);

	return p->cuda_loaded && rules_known(&cuda);
}

/* From CUDA 11 on, a newer minor of the same major still runs (minor-version
 * compatibility); before 11 every newer release needs its own driver. */
enum too_new rules_compare_to_driver(const struct version *v, const struct version *drv)
{
	if (v->major > drv->major)
		return NEWER_MAJOR;
	if (v->major < drv->major || v->minor <= drv->minor)
		return FITS;
	return v->major >= 11 ? NEWER_MINOR : NEWER_MAJOR;
}

enum cuda_fit rules_cuda_fit(const struct version *cuda, const struct version *driver_cuda)
{
	switch (rules_compare_to_driver(cuda, driver_cuda)) {
	case FITS: return CUDA_FITS;
	case NEWER_MINOR: return CUDA_NEWER_MINOR;
	case NEWER_MAJOR: break;
	}
	return CUDA_NEWER_MAJOR;
}

int rules_driver_evidence(struct finding *f, const struct gpu_probe *d)
{
	bool oom = false;
	struct version cuda = rules_driver_cuda(d);
	char b[32];

	if (rules_opt(d->user_driver_version))
		oom |= finding_evidence(f, "driver %s supports CUDA up to %s (cuDriverGetVersion = %d; nvidia-smi prints it as \"CUDA Version\")",
				       rules_opt(d->user_driver_version), version_format(&cuda, 2, b, sizeof b), version_to_cuda_int(&cuda)) != CD_OK;
	else
		oom |= finding_evidence(f, "the driver supports CUDA up to %s (cuDriverGetVersion = %d)",
				       version_format(&cuda, 2, b, sizeof b), version_to_cuda_int(&cuda)) != CD_OK;
	return rules_status(oom);
}

int rules_fix_driver_for(struct finding *f, const struct version *need, const char *min_driver,
			 const char *min_branch)
{
	char b[32];

	if (min_driver)
		return finding_fix(f, "install NVIDIA driver %s or newer (%s%ssupports CUDA %s): sudo apt install nvidia-driver-%.3s   # or your distribution's package",
				   min_driver, min_branch ? min_branch : "", min_branch ? ", " : "", version_format(need, 2, b, sizeof b), min_driver);
	return finding_fix(f, "install an NVIDIA driver whose \"CUDA Version\" (nvidia-smi) is %s or newer",
			   version_format(need, 2, b, sizeof b));
}

/* nvmlInit's result when it was called and failed; 0 when NVML did not load */
static int nvml_result(const struct gpu_probe *p)
{
	return p->nvml_loaded && driver_has(p, DF_NVML_INIT) ? (int)p->nvml_init_result : 0;
}

static const char *nvml_path(const struct gpu_probe *p)
{
	return p->nvml_loaded && p->nvml_path[0] ? p->nvml_path : NULL;
}

/* --- rules ------------------------------------------------------------------------ */

int rule_no_driver(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_probe *d = f->driver;
	struct finding *x;

	if (d->cuda_loaded)
		return rules_status(oom);
	x = report_add_finding(r, SEV_ERROR, "no-driver", "libcuda.so.1",
			       "No NVIDIA driver: libcuda.so.1 cannot be loaded");
	oom |= !x;
	oom |= finding_evidence(x, "%s", d->cuda_load_error[0] ? d->cuda_load_error : "dlopen(\"libcuda.so.1\") failed") != CD_OK;
	if (rules_opt(d->kmod_version))
		oom |= finding_evidence(x, "the kernel module %s is loaded (/proc/driver/nvidia/version), so the user-space library is what is missing",
				       rules_opt(d->kmod_version)) != CD_OK;
	else
		oom |= finding_evidence(x, "no NVIDIA kernel module is loaded (/proc/driver/nvidia/version is absent)") != CD_OK;
	if (driver_has(d, DF_NVML_DEVICE_COUNT))
		oom |= finding_evidence(x, "NVML (%s) sees %d GPU(s)%s", nvml_path(d) ? nvml_path(d) : "libnvidia-ml.so.1", d->nvml_device_count,
				       d->nvml_device_count > 0 ? ": the driver is installed but its libcuda is not reachable" : "") != CD_OK;
	oom |= finding_why(x, "Every CUDA program reaches the GPU through the user-space driver libcuda.so.1, which the CUDA runtime opens at the first CUDA call. "
			  "A toolkit (nvcc) can build programs without it, but nothing can run on a GPU here until a driver is installed and loadable.") != CD_OK;
	if (f->platform->wsl) {
		oom |= finding_fix(x, "ls -l /usr/lib/wsl/lib/libcuda.so*   # WSL2: the Windows NVIDIA driver provides libcuda here") != CD_OK;
		oom |= finding_fix(x, "export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH") != CD_OK;
	} else if (f->platform->container) {
		oom |= finding_fix(x, "docker run --gpus all ...   # start the container with the NVIDIA container runtime so the host driver is mounted") != CD_OK;
	} else {
		oom |= finding_fix(x, "nvidia-smi   # is a driver installed at all?") != CD_OK;
		oom |= finding_fix(x, "sudo ubuntu-drivers install   # or: sudo apt install nvidia-driver-580 (your distribution's driver package)") != CD_OK;
	}
	oom |= finding_fix(x, "export CUDOCTOR_LIBCUDA=/path/to/libcuda.so.1   # if the driver lives outside the loader's path") != CD_OK;
	return rules_status(oom);
}

/* cuInit = 100, or a good cuInit followed by a device count of 0 */
static int no_device(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_probe *d = f->driver;
	const char *name = d->cuda_init_result_name[0] ? d->cuda_init_result_name : "CUresult";
	bool init_failed = driver_has(d, DF_CUDA_INIT) && d->cuda_init_result != CUDA_SUCCESS;
	struct finding *x;

	x = report_add_finding(r, SEV_ERROR, "no-device", "cuInit",
			       init_failed ? "The driver loaded but sees no CUDA device" : "The driver initialised but counts no CUDA device");
	oom |= !x;
	if (init_failed)
		oom |= finding_evidence(x, "cuInit(0) = %s (%d)", name, d->cuda_init_result) != CD_OK;
	else
		oom |= finding_evidence(x, "cuDeviceGetCount = %d", d->cuda_device_count) != CD_OK;
	if (f->platform->visible.set)
		oom |= finding_evidence(x, "CUDA_VISIBLE_DEVICES=\"%s\"", f->platform->visible.raw ? f->platform->visible.raw : "") != CD_OK;
	if (driver_has(d, DF_NVML_DEVICE_COUNT))
		oom |= finding_evidence(x, "NVML sees %d GPU(s)", d->nvml_device_count) != CD_OK;
	oom |= finding_why(x, "CUDA enumerates only the GPUs that the kernel driver exposes through /dev/nvidia* and that CUDA_VISIBLE_DEVICES lets through; "
			  "an empty or invalid CUDA_VISIBLE_DEVICES, missing device nodes (containers) or a GPU bound to another driver leaves none.") != CD_OK;
	if (f->platform->visible.set)
		oom |= finding_fix(x, "unset CUDA_VISIBLE_DEVICES   # or list valid indices or GPU- UUIDs (nvidia-smi -L)") != CD_OK;
	oom |= finding_fix(x, "nvidia-smi -L   # does the driver itself list the GPUs?") != CD_OK;
	oom |= finding_fix(x, "ls -l /dev/nvidia*   # in a container: docker run --gpus all ...") != CD_OK;
	return rules_status(oom);
}

int rule_no_device_count(const struct facts *f, struct report *r)
{
	const struct gpu_probe *d = f->driver;

	if (!d->cuda_loaded || !driver_has(d, DF_CUDA_INIT) || d->cuda_init_result != CUDA_SUCCESS || !driver_has(d, DF_CUDA_DEVICE_COUNT) || d->cuda_device_count != 0)
		return CD_OK;
	return no_device(f, r);
}

int rule_init(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_probe *d = f->driver;
	struct version cuda = rules_driver_cuda(d);
	const char *name = d->cuda_init_result_name[0] ? d->cuda_init_result_name : "CUresult";
	struct finding *x;

	if (!d->cuda_loaded || !driver_has(d, DF_CUDA_INIT) || d->cuda_init_result == CUDA_SUCCESS)
		return rules_status(oom);

	switch (d->cuda_init_result) {
	case CUDA_ERROR_NO_DEVICE:
		return no_device(f, r);
	case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
		x = report_add_finding(r, SEV_ERROR, "forward-compat-unsupported", d->cuda_path[0] ? d->cuda_path : "libcuda.so.1",
				       "A forward-compatibility libcuda is loaded on a GPU that does not support it (error 804)");
		oom |= !x;
		oom |= finding_evidence(x, "cuInit(0) = %s (%d)", name, d->cuda_init_result) != CD_OK;
		if (rules_opt(d->cuda_path))
			oom |= finding_evidence(x, "loaded %s", rules_opt(d->cuda_path)) != CD_OK;
		oom |= finding_why(x, "The cuda-compat package lets a newer CUDA run on an older kernel driver, but only on data-center GPUs (and Jetson); "
				  "on GeForce and most workstation cards the compat libcuda refuses to initialise.") != CD_OK;
		oom |= finding_fix(x, "remove the compat directory (e.g. /usr/local/cuda/compat) from LD_LIBRARY_PATH and /etc/ld.so.conf.d, then: sudo ldconfig") != CD_OK;
		oom |= finding_fix(x, "or update the host driver so the container's CUDA needs no compat package") != CD_OK;
		return rules_status(oom);
	case CUDA_ERROR_SYSTEM_NOT_READY:
		x = report_add_finding(r, SEV_ERROR, "system-not-ready", "cuInit",
				       "The system is not initialised yet (error 802): fabric manager not running");
		oom |= !x;
		oom |= finding_evidence(x, "cuInit(0) = %s (%d)", name, d->cuda_init_result) != CD_OK;
		oom |= finding_why(x, "On NVSwitch systems (HGX/DGX) the GPUs are usable only after nvidia-fabricmanager has set up the fabric; "
				  "until then every CUDA call fails with CUDA_ERROR_SYSTEM_NOT_READY.") != CD_OK;
		oom |= finding_fix(x, "sudo systemctl enable --now nvidia-fabricmanager") != CD_OK;
		oom |= finding_fix(x, "systemctl status nvidia-fabricmanager   # its version must equal the driver's") != CD_OK;
		return rules_status(oom);
	case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
		x = report_add_finding(r, SEV_ERROR, "driver-library-mismatch", "cuInit",
				       "The user-space driver and the kernel module are from different releases");
		oom |= !x;
		oom |= finding_evidence(x, "cuInit(0) = %s (%d)", name, d->cuda_init_result) != CD_OK;
		if (rules_opt(d->kmod_version))
			oom |= finding_evidence(x, "kernel module %s, user-space %s", rules_opt(d->kmod_version), rules_opt(d->user_driver_version) ? rules_opt(d->user_driver_version) : "unknown") != CD_OK;
		oom |= finding_why(x, "libcuda talks to the kernel module through an interface private to one driver release, so both must be the same version; "
				  "this happens after a driver upgrade without a reboot.") != CD_OK;
		oom |= finding_fix(x, "sudo reboot") != CD_OK;
		return rules_status(oom);
	default:
		break;
	}
	x = report_add_finding(r, SEV_ERROR, "driver-init-failed", "cuInit", "cuInit failed: %s (%d)", name, d->cuda_init_result);
	oom |= !x;
	oom |= finding_evidence(x, "cuInit(0) = %s (%d)", name, d->cuda_init_result) != CD_OK;
	if (rules_opt(d->cuda_path))
		oom |= finding_evidence(x, "libcuda: %s", rules_opt(d->cuda_path)) != CD_OK;
	if (rules_known(&cuda))
		oom |= finding_evidence(x, "cuDriverGetVersion = %d (CUDA %d.%d)", version_to_cuda_int(&cuda), cuda.major, cuda.minor) != CD_OK;
	if (d->cuda_init_result == CUDA_ERROR_UNKNOWN) {
		oom |= finding_why(x, "cuInit needs the kernel modules nvidia and nvidia_uvm in a sane state; CUDA_ERROR_UNKNOWN usually means nvidia_uvm "
				  "lost its state (typically after suspend/resume) or the GPU has fallen off the bus.") != CD_OK;
		oom |= finding_fix(x, "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm") != CD_OK;
		oom |= finding_fix(x, "sudo dmesg | grep -i -E 'NVRM|Xid'   # look for Xid 79 (fallen off the bus)") != CD_OK;
	} else if (d->cuda_init_result == 34) { /* CUDA_ERROR_STUB_LIBRARY */
		oom |= finding_why(x, "The libcuda loaded is the toolkit's link-time stub (lib64/stubs), which has every symbol but no driver behind it; "
				  "programs must load the driver's libcuda.so.1 instead.") != CD_OK;
		oom |= finding_fix(x, "remove the toolkit's stubs directory from LD_LIBRARY_PATH (and from /etc/ld.so.conf.d), then: sudo ldconfig") != CD_OK;
	} else {
		oom |= finding_why(x, "cuInit is the first call of every CUDA program; when it fails no program can use the GPU.") != CD_OK;
		oom |= finding_fix(x, "cudoctor explain %s", name) != CD_OK;
		oom |= finding_fix(x, "sudo dmesg | grep -i NVRM") != CD_OK;
	}
	return rules_status(oom);
}

int rule_module_mismatch(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_probe *d = f->driver;
	struct finding *x;

	if (!rules_opt(d->kmod_version) || !rules_opt(d->user_driver_version) || strcmp(rules_opt(d->kmod_version), rules_opt(d->user_driver_version)) == 0)
		return rules_status(oom);
	if (driver_has(d, DF_CUDA_INIT) && d->cuda_init_result == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
		return rules_status(oom); /* rule_init said it */
	x = report_add_finding(r, SEV_ERROR, "driver-library-mismatch", "driver",
			       "Kernel module %s and user-space driver %s differ", rules_opt(d->kmod_version), rules_opt(d->user_driver_version));
	oom |= !x;
	oom |= finding_evidence(x, "/proc/driver/nvidia/version: kernel module %s", rules_opt(d->kmod_version)) != CD_OK;
	oom |= finding_evidence(x, "user-space driver %s (from %s)", rules_opt(d->user_driver_version), d->user_driver_version_source ? d->user_driver_version_source : "the library") != CD_OK;
	oom |= finding_why(x, "libcuda and libnvidia-ml talk to the kernel module through an interface private to one driver release; "
			  "after an upgrade without a reboot the old module stays loaded and NVML reports \"Driver/library version mismatch\".") != CD_OK;
	oom |= finding_fix(x, "sudo reboot") != CD_OK;
	oom |= finding_fix(x, "or, with no GPU process running: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia nvidia_uvm") != CD_OK;
	return rules_status(oom);
}

int rule_nvml(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_probe *d = f->driver;
	struct finding *x;

	if (!d->cuda_loaded || !!driver_nvml_ok(d))
		return rules_status(oom);
	x = report_add_finding(r, SEV_WARN, "nvml-unavailable", "libnvidia-ml.so.1",
			       "NVML is unavailable: PCI order, health and process facts are missing");
	oom |= !x;
	if (nvml_result(d) != 0)
		oom |= finding_evidence(x, "nvmlInit = %s (%d)", driver_nvml_error(d) ? driver_nvml_error(d) : "error", nvml_result(d)) != CD_OK;
	else
		oom |= finding_evidence(x, "%s", driver_nvml_error(d) ? driver_nvml_error(d) : "nvmlInit failed") != CD_OK;
	if (nvml_path(d))
		oom |= finding_evidence(x, "libnvidia-ml: %s", nvml_path(d)) != CD_OK;
	if (nvml_result(d) == 18) { /* NVML_ERROR_LIB_RM_VERSION_MISMATCH */
		oom |= finding_why(x, "NVML says \"Driver/library version mismatch\": the NVIDIA kernel module in the running kernel is a different version from the "
				  "user-space driver libraries, typically after a driver upgrade without a reboot; CUDA usually fails as well.") != CD_OK;
		oom |= finding_fix(x, "cat /proc/driver/nvidia/version   # the kernel module's version") != CD_OK;
		oom |= finding_fix(x, "sudo reboot   # or unload and reload the nvidia kernel modules when no process uses the GPU") != CD_OK;
		return rules_status(oom);
	}
	if (nvml_result(d) == 9) { /* NVML_ERROR_DRIVER_NOT_LOADED */
		oom |= finding_why(x, "NVML found no loaded NVIDIA kernel module, so neither NVML nor CUDA can reach a GPU.") != CD_OK;
		oom |= finding_fix(x, "sudo modprobe nvidia; sudo dmesg | grep -i nvrm") != CD_OK;
		return rules_status(oom);
	}
	oom |= finding_why(x, "NVML (the library behind nvidia-smi) ships with the driver and reports what the CUDA driver API does not: "
			  "PCI order, ECC, clocks, processes. A failing NVML next to a working libcuda points at a partial driver install or a container without the NVML mount.") != CD_OK;
	oom |= finding_fix(x, "nvidia-smi   # fails the same way if NVML is broken") != CD_OK;
	oom |= finding_fix(x, "ldconfig -p | grep libnvidia-ml.so.1   # in a container: --gpus all mounts it") != CD_OK;
	oom |= finding_fix(x, "export CUDOCTOR_LIBNVML=/path/to/libnvidia-ml.so.1") != CD_OK;
	return rules_status(oom);
}

int rules_driver(const struct facts *f, struct report *r)
{
	static const rules_fn rules[] = {
		rule_no_driver, rule_init, rule_no_device_count, rule_module_mismatch, rule_nvml,
	};

	return rules_run_table(rules, sizeof rules / sizeof rules[0], f, r);
}

bool rules_cuda_usable(const struct gpu_probe *p)
{
	/* mirrors rule_no_driver, rule_init and rule_no_device_count */
	return p->cuda_loaded && driver_has(p, DF_CUDA_INIT) && p->cuda_init_result == CUDA_SUCCESS &&
	       !(driver_has(p, DF_CUDA_DEVICE_COUNT) && p->cuda_device_count == 0);
}
