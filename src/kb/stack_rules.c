/* The stack rules: driver <-> toolkits <-> runtimes <-> frameworks <-> GPUs <-> platform.
 * Each rule reads facts and adds findings; nothing here touches the machine. */
#include "kb/stack_rules.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cuda_types.h"
#include "util/err.h"
#include "util/str.h"

#define NOMEM(f) \
	do { \
		if (!(f)) \
			return CD_ENOMEM; \
	} while (0)

const char *runtime_origin_name(enum runtime_origin o)
{
	switch (o) {
	case ORIGIN_SYSTEM: return "system";
	case ORIGIN_TOOLKIT: return "toolkit";
	case ORIGIN_PIP: return "pip wheel";
	case ORIGIN_TORCH: return "torch";
	case ORIGIN_CONDA: return "conda";
	}
	return "unknown";
}

static bool known(const struct version *v)
{
	return v->parts > 0;
}

/* "12.4" into buf */
static const char *mm(const struct version *v, char *buf, size_t n)
{
	if (!known(v))
		snprintf(buf, n, "unknown");
	else
		snprintf(buf, n, "%d.%d", v->major, v->minor);
	return buf;
}

static bool driver_usable(const struct stack_driver *d)
{
	return d->loaded && known(&d->cuda);
}

enum too_new { FITS, NEWER_MINOR, NEWER_MAJOR };

/* Whether code built against CUDA `v` runs on a driver supporting `drv`.
 * From CUDA 11 on, a newer minor of the same major still runs (minor-version
 * compatibility); before 11 every newer release needs its own driver. */
static enum too_new compare_to_driver(const struct version *v, const struct version *drv)
{
	if (v->major > drv->major)
		return NEWER_MAJOR;
	if (v->major < drv->major || v->minor <= drv->minor)
		return FITS;
	return v->major >= 11 ? NEWER_MINOR : NEWER_MAJOR;
}

enum stack_cuda_fit stack_cuda_fit(const struct version *cuda, const struct version *driver_cuda)
{
	switch (compare_to_driver(cuda, driver_cuda)) {
	case FITS: return STACK_CUDA_FITS;
	case NEWER_MINOR: return STACK_CUDA_NEWER_MINOR;
	case NEWER_MAJOR: break;
	}
	return STACK_CUDA_NEWER_MAJOR;
}

static int driver_evidence(struct finding *f, const struct stack_driver *d)
{
	char b[32];

	if (d->version)
		NOMEM(finding_evidence(f, "driver %s supports CUDA up to %s (cuDriverGetVersion = %d; nvidia-smi prints it as \"CUDA Version\")",
				       d->version, mm(&d->cuda, b, sizeof b), version_to_cuda_int(&d->cuda)) == CD_OK);
	else
		NOMEM(finding_evidence(f, "the driver supports CUDA up to %s (cuDriverGetVersion = %d)",
				       mm(&d->cuda, b, sizeof b), version_to_cuda_int(&d->cuda)) == CD_OK);
	return CD_OK;
}

static int fix_driver_for(struct finding *f, const struct version *need, const char *min_driver,
			  const char *min_branch)
{
	char b[32];

	if (min_driver)
		NOMEM(finding_fix(f, "install NVIDIA driver %s or newer (%s%ssupports CUDA %s): sudo apt install nvidia-driver-%.3s   # or your distribution's package",
				  min_driver, min_branch ? min_branch : "", min_branch ? ", " : "", mm(need, b, sizeof b), min_driver) == CD_OK);
	else
		NOMEM(finding_fix(f, "install an NVIDIA driver whose \"CUDA Version\" (nvidia-smi) is %s or newer",
				  mm(need, b, sizeof b)) == CD_OK);
	return CD_OK;
}

/* --- driver ---------------------------------------------------------------------- */

static int rule_no_driver(const struct stack_facts *f, struct report *r)
{
	const struct stack_driver *d = &f->driver;
	struct finding *x;

	if (d->loaded)
		return CD_OK;
	x = report_add_finding(r, SEV_ERROR, "no-driver", "libcuda.so.1",
			       "No NVIDIA driver: libcuda.so.1 cannot be loaded");
	NOMEM(x);
	NOMEM(finding_evidence(x, "%s", d->load_error ? d->load_error : "dlopen(\"libcuda.so.1\") failed") == CD_OK);
	if (d->kmod_version)
		NOMEM(finding_evidence(x, "the kernel module %s is loaded (/proc/driver/nvidia/version), so the user-space library is what is missing",
				       d->kmod_version) == CD_OK);
	else
		NOMEM(finding_evidence(x, "no NVIDIA kernel module is loaded (/proc/driver/nvidia/version is absent)") == CD_OK);
	if (d->has_nvml_device_count)
		NOMEM(finding_evidence(x, "NVML (%s) sees %d GPU(s)%s", d->nvml_path ? d->nvml_path : "libnvidia-ml.so.1", d->nvml_device_count,
				       d->nvml_device_count > 0 ? ": the driver is installed but its libcuda is not reachable" : "") == CD_OK);
	NOMEM(finding_why(x, "Every CUDA program reaches the GPU through the user-space driver libcuda.so.1, which the CUDA runtime opens at the first CUDA call. "
			  "A toolkit (nvcc) can build programs without it, but nothing can run on a GPU here until a driver is installed and loadable.") == CD_OK);
	if (f->platform.wsl) {
		NOMEM(finding_fix(x, "ls -l /usr/lib/wsl/lib/libcuda.so*   # WSL2: the Windows NVIDIA driver provides libcuda here") == CD_OK);
		NOMEM(finding_fix(x, "export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH") == CD_OK);
	} else if (f->platform.container) {
		NOMEM(finding_fix(x, "docker run --gpus all ...   # start the container with the NVIDIA container runtime so the host driver is mounted") == CD_OK);
	} else {
		NOMEM(finding_fix(x, "nvidia-smi   # is a driver installed at all?") == CD_OK);
		NOMEM(finding_fix(x, "sudo ubuntu-drivers install   # or: sudo apt install nvidia-driver-580 (your distribution's driver package)") == CD_OK);
	}
	NOMEM(finding_fix(x, "export CUDOCTOR_LIBCUDA=/path/to/libcuda.so.1   # if the driver lives outside the loader's path") == CD_OK);
	return CD_OK;
}

/* cuInit = 100, or a good cuInit followed by a device count of 0 */
static int no_device(const struct stack_facts *f, struct report *r)
{
	const struct stack_driver *d = &f->driver;
	const char *name = d->init_result_name ? d->init_result_name : "CUresult";
	bool init_failed = d->init_called && d->init_result != CUDA_SUCCESS;
	struct finding *x;

	x = report_add_finding(r, SEV_ERROR, "no-device", "cuInit",
			       init_failed ? "The driver loaded but sees no CUDA device" : "The driver initialised but counts no CUDA device");
	NOMEM(x);
	if (init_failed)
		NOMEM(finding_evidence(x, "cuInit(0) = %s (%d)", name, d->init_result) == CD_OK);
	else
		NOMEM(finding_evidence(x, "cuDeviceGetCount = %d", d->device_count) == CD_OK);
	if (f->platform.visible.set)
		NOMEM(finding_evidence(x, "CUDA_VISIBLE_DEVICES=\"%s\"", f->platform.visible.raw ? f->platform.visible.raw : "") == CD_OK);
	if (d->has_nvml_device_count)
		NOMEM(finding_evidence(x, "NVML sees %d GPU(s)", d->nvml_device_count) == CD_OK);
	NOMEM(finding_why(x, "CUDA enumerates only the GPUs that the kernel driver exposes through /dev/nvidia* and that CUDA_VISIBLE_DEVICES lets through; "
			  "an empty or invalid CUDA_VISIBLE_DEVICES, missing device nodes (containers) or a GPU bound to another driver leaves none.") == CD_OK);
	if (f->platform.visible.set)
		NOMEM(finding_fix(x, "unset CUDA_VISIBLE_DEVICES   # or list valid indices or GPU- UUIDs (nvidia-smi -L)") == CD_OK);
	NOMEM(finding_fix(x, "nvidia-smi -L   # does the driver itself list the GPUs?") == CD_OK);
	NOMEM(finding_fix(x, "ls -l /dev/nvidia*   # in a container: docker run --gpus all ...") == CD_OK);
	return CD_OK;
}

static int rule_no_device_count(const struct stack_facts *f, struct report *r)
{
	const struct stack_driver *d = &f->driver;

	if (!d->loaded || !d->init_called || d->init_result != CUDA_SUCCESS || !d->has_device_count || d->device_count != 0)
		return CD_OK;
	return no_device(f, r);
}

static int rule_init(const struct stack_facts *f, struct report *r)
{
	const struct stack_driver *d = &f->driver;
	const char *name = d->init_result_name ? d->init_result_name : "CUresult";
	struct finding *x;

	if (!d->loaded || !d->init_called || d->init_result == CUDA_SUCCESS)
		return CD_OK;

	switch (d->init_result) {
	case CUDA_ERROR_NO_DEVICE:
		return no_device(f, r);
	case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
		x = report_add_finding(r, SEV_ERROR, "forward-compat-unsupported", d->library_path ? d->library_path : "libcuda.so.1",
				       "A forward-compatibility libcuda is loaded on a GPU that does not support it (error 804)");
		NOMEM(x);
		NOMEM(finding_evidence(x, "cuInit(0) = %s (%d)", name, d->init_result) == CD_OK);
		if (d->library_path)
			NOMEM(finding_evidence(x, "loaded %s", d->library_path) == CD_OK);
		NOMEM(finding_why(x, "The cuda-compat package lets a newer CUDA run on an older kernel driver, but only on data-center GPUs (and Jetson); "
				  "on GeForce and most workstation cards the compat libcuda refuses to initialise.") == CD_OK);
		NOMEM(finding_fix(x, "remove the compat directory (e.g. /usr/local/cuda/compat) from LD_LIBRARY_PATH and /etc/ld.so.conf.d, then: sudo ldconfig") == CD_OK);
		NOMEM(finding_fix(x, "or update the host driver so the container's CUDA needs no compat package") == CD_OK);
		return CD_OK;
	case CUDA_ERROR_SYSTEM_NOT_READY:
		x = report_add_finding(r, SEV_ERROR, "system-not-ready", "cuInit",
				       "The system is not initialised yet (error 802): fabric manager not running");
		NOMEM(x);
		NOMEM(finding_evidence(x, "cuInit(0) = %s (%d)", name, d->init_result) == CD_OK);
		NOMEM(finding_why(x, "On NVSwitch systems (HGX/DGX) the GPUs are usable only after nvidia-fabricmanager has set up the fabric; "
				  "until then every CUDA call fails with CUDA_ERROR_SYSTEM_NOT_READY.") == CD_OK);
		NOMEM(finding_fix(x, "sudo systemctl enable --now nvidia-fabricmanager") == CD_OK);
		NOMEM(finding_fix(x, "systemctl status nvidia-fabricmanager   # its version must equal the driver's") == CD_OK);
		return CD_OK;
	case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
		x = report_add_finding(r, SEV_ERROR, "driver-library-mismatch", "cuInit",
				       "The user-space driver and the kernel module are from different releases");
		NOMEM(x);
		NOMEM(finding_evidence(x, "cuInit(0) = %s (%d)", name, d->init_result) == CD_OK);
		if (d->kmod_version)
			NOMEM(finding_evidence(x, "kernel module %s, user-space %s", d->kmod_version, d->version ? d->version : "unknown") == CD_OK);
		NOMEM(finding_why(x, "libcuda talks to the kernel module through an interface private to one driver release, so both must be the same version; "
				  "this happens after a driver upgrade without a reboot.") == CD_OK);
		NOMEM(finding_fix(x, "sudo reboot") == CD_OK);
		return CD_OK;
	default:
		break;
	}
	x = report_add_finding(r, SEV_ERROR, "driver-init-failed", "cuInit", "cuInit failed: %s (%d)", name, d->init_result);
	NOMEM(x);
	NOMEM(finding_evidence(x, "cuInit(0) = %s (%d)", name, d->init_result) == CD_OK);
	if (d->library_path)
		NOMEM(finding_evidence(x, "libcuda: %s", d->library_path) == CD_OK);
	if (known(&d->cuda))
		NOMEM(finding_evidence(x, "cuDriverGetVersion = %d (CUDA %d.%d)", version_to_cuda_int(&d->cuda), d->cuda.major, d->cuda.minor) == CD_OK);
	if (d->init_result == CUDA_ERROR_UNKNOWN) {
		NOMEM(finding_why(x, "cuInit needs the kernel modules nvidia and nvidia_uvm in a sane state; CUDA_ERROR_UNKNOWN usually means nvidia_uvm "
				  "lost its state (typically after suspend/resume) or the GPU has fallen off the bus.") == CD_OK);
		NOMEM(finding_fix(x, "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm") == CD_OK);
		NOMEM(finding_fix(x, "sudo dmesg | grep -i -E 'NVRM|Xid'   # look for Xid 79 (fallen off the bus)") == CD_OK);
	} else if (d->init_result == 34) { /* CUDA_ERROR_STUB_LIBRARY */
		NOMEM(finding_why(x, "The libcuda loaded is the toolkit's link-time stub (lib64/stubs), which has every symbol but no driver behind it; "
				  "programs must load the driver's libcuda.so.1 instead.") == CD_OK);
		NOMEM(finding_fix(x, "remove the toolkit's stubs directory from LD_LIBRARY_PATH (and from /etc/ld.so.conf.d), then: sudo ldconfig") == CD_OK);
	} else {
		NOMEM(finding_why(x, "cuInit is the first call of every CUDA program; when it fails no program can use the GPU.") == CD_OK);
		NOMEM(finding_fix(x, "cudoctor explain %s", name) == CD_OK);
		NOMEM(finding_fix(x, "sudo dmesg | grep -i NVRM") == CD_OK);
	}
	return CD_OK;
}

static int rule_module_mismatch(const struct stack_facts *f, struct report *r)
{
	const struct stack_driver *d = &f->driver;
	struct finding *x;

	if (!d->kmod_version || !d->version || strcmp(d->kmod_version, d->version) == 0)
		return CD_OK;
	if (d->init_called && d->init_result == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
		return CD_OK; /* rule_init said it */
	x = report_add_finding(r, SEV_ERROR, "driver-library-mismatch", "driver",
			       "Kernel module %s and user-space driver %s differ", d->kmod_version, d->version);
	NOMEM(x);
	NOMEM(finding_evidence(x, "/proc/driver/nvidia/version: kernel module %s", d->kmod_version) == CD_OK);
	NOMEM(finding_evidence(x, "user-space driver %s (from %s)", d->version, d->version_source ? d->version_source : "the library") == CD_OK);
	NOMEM(finding_why(x, "libcuda and libnvidia-ml talk to the kernel module through an interface private to one driver release; "
			  "after an upgrade without a reboot the old module stays loaded and NVML reports \"Driver/library version mismatch\".") == CD_OK);
	NOMEM(finding_fix(x, "sudo reboot") == CD_OK);
	NOMEM(finding_fix(x, "or, with no GPU process running: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia nvidia_uvm") == CD_OK);
	return CD_OK;
}

static int rule_nvml(const struct stack_facts *f, struct report *r)
{
	const struct stack_driver *d = &f->driver;
	struct finding *x;

	if (!d->loaded || !d->nvml_failed)
		return CD_OK;
	x = report_add_finding(r, SEV_WARN, "nvml-unavailable", "libnvidia-ml.so.1",
			       "NVML is unavailable: PCI order, health and process facts are missing");
	NOMEM(x);
	if (d->nvml_result != 0)
		NOMEM(finding_evidence(x, "nvmlInit = %s (%d)", d->nvml_error ? d->nvml_error : "error", d->nvml_result) == CD_OK);
	else
		NOMEM(finding_evidence(x, "%s", d->nvml_error ? d->nvml_error : "nvmlInit failed") == CD_OK);
	if (d->nvml_path)
		NOMEM(finding_evidence(x, "libnvidia-ml: %s", d->nvml_path) == CD_OK);
	if (d->nvml_result == 18) { /* NVML_ERROR_LIB_RM_VERSION_MISMATCH */
		NOMEM(finding_why(x, "NVML says \"Driver/library version mismatch\": the NVIDIA kernel module in the running kernel is a different version from the "
				  "user-space driver libraries, typically after a driver upgrade without a reboot; CUDA usually fails as well.") == CD_OK);
		NOMEM(finding_fix(x, "cat /proc/driver/nvidia/version   # the kernel module's version") == CD_OK);
		NOMEM(finding_fix(x, "sudo reboot   # or unload and reload the nvidia kernel modules when no process uses the GPU") == CD_OK);
		return CD_OK;
	}
	if (d->nvml_result == 9) { /* NVML_ERROR_DRIVER_NOT_LOADED */
		NOMEM(finding_why(x, "NVML found no loaded NVIDIA kernel module, so neither NVML nor CUDA can reach a GPU.") == CD_OK);
		NOMEM(finding_fix(x, "sudo modprobe nvidia; sudo dmesg | grep -i nvrm") == CD_OK);
		return CD_OK;
	}
	NOMEM(finding_why(x, "NVML (the library behind nvidia-smi) ships with the driver and reports what the CUDA driver API does not: "
			  "PCI order, ECC, clocks, processes. A failing NVML next to a working libcuda points at a partial driver install or a container without the NVML mount.") == CD_OK);
	NOMEM(finding_fix(x, "nvidia-smi   # fails the same way if NVML is broken") == CD_OK);
	NOMEM(finding_fix(x, "ldconfig -p | grep libnvidia-ml.so.1   # in a container: --gpus all mounts it") == CD_OK);
	NOMEM(finding_fix(x, "export CUDOCTOR_LIBNVML=/path/to/libnvidia-ml.so.1") == CD_OK);
	return CD_OK;
}

/* --- toolkits ----------------------------------------------------------------------- */

/* The newest toolkit in f that the driver can run, for a concrete fix. */
static const struct stack_toolkit *fitting_toolkit(const struct stack_facts *f)
{
	const struct stack_toolkit *best = NULL;

	for (size_t i = 0; i < f->n_toolkits; i++) {
		const struct stack_toolkit *t = &f->toolkits[i];
		if (!known(&t->version) || compare_to_driver(&t->version, &f->driver.cuda) != FITS)
			continue;
		if (!best || version_cmp(&t->version, &best->version) > 0)
			best = t;
	}
	return best;
}

static int rule_toolkit_vs_driver(const struct stack_facts *f, struct report *r)
{
	const struct stack_driver *d = &f->driver;
	char tv[32], dv[32];

	if (!driver_usable(d))
		return CD_OK;
	for (size_t i = 0; i < f->n_toolkits; i++) {
		const struct stack_toolkit *t = &f->toolkits[i];
		enum too_new tn;
		struct finding *x;

		if (!known(&t->version))
			continue;
		tn = compare_to_driver(&t->version, &d->cuda);
		if (tn == FITS)
			continue;
		mm(&t->version, tv, sizeof tv);
		mm(&d->cuda, dv, sizeof dv);
		if (tn == NEWER_MAJOR) {
			x = report_add_finding(r, t->selected ? SEV_ERROR : SEV_WARN, "toolkit-newer-than-driver", t->nvcc,
					       "nvcc %s builds programs this driver (CUDA %s%s%s) cannot run", tv, dv,
					       d->branch ? ", " : "", d->branch ? d->branch : "");
			NOMEM(x);
			NOMEM(finding_evidence(x, "%s reports CUDA %s%s", t->nvcc, tv, t->selected ? " (first nvcc on PATH: builds use it)" : "") == CD_OK);
			NOMEM(driver_evidence(x, d) == CD_OK);
			NOMEM(finding_why(x, "A program built with CUDA %s links the CUDA %d runtime, which refuses a driver older than its major release "
					  "(\"CUDA driver version is insufficient for CUDA runtime version\", error 35). "
					  "nvidia-smi's \"CUDA Version\" is the newest CUDA the driver supports, not an installed toolkit.",
					  tv, t->version.major) == CD_OK);
		} else {
			x = report_add_finding(r, t->selected ? SEV_WARN : SEV_INFO, "toolkit-newer-than-driver", t->nvcc,
					       "nvcc %s is newer than this driver's CUDA %s: programs run, but its PTX cannot be JIT-compiled here", tv, dv);
			NOMEM(x);
			NOMEM(finding_evidence(x, "%s reports CUDA %s", t->nvcc, tv) == CD_OK);
			NOMEM(driver_evidence(x, d) == CD_OK);
			NOMEM(finding_why(x, "Within CUDA %d, minor-version compatibility lets programs built with %s run on this driver, "
					  "but PTX it emits uses a PTX ISA this driver cannot JIT (error 222, \"unsupported toolchain\") and newer APIs return error 36. "
					  "Build SASS for each GPU (-arch=sm_XY) or update the driver.",
					  t->version.major, tv) == CD_OK);
		}
		NOMEM(fix_driver_for(x, &t->version, t->min_driver, t->min_branch) == CD_OK);
		const struct stack_toolkit *ok = fitting_toolkit(f);
		if (ok && t->selected)
			NOMEM(finding_fix(x, "or build with CUDA %s, which this driver runs: export PATH=%s/bin:$PATH",
					  mm(&ok->version, tv, sizeof tv), ok->path) == CD_OK);
		else if (tn == NEWER_MAJOR)
			NOMEM(finding_fix(x, "or install a CUDA %d.x toolkit no newer than %s", d->cuda.major, dv) == CD_OK);
	}
	return CD_OK;
}

/* nvidia-smi's "CUDA Version" read as the toolkit is the most common confusion. */
static int rule_smi_cuda_version(const struct stack_facts *f, struct report *r)
{
	const struct stack_driver *d = &f->driver;
	char tv[32], dv[32];

	if (!driver_usable(d))
		return CD_OK;
	for (size_t i = 0; i < f->n_toolkits; i++) {
		const struct stack_toolkit *t = &f->toolkits[i];
		struct finding *x;

		if (!t->selected || !known(&t->version))
			continue;
		if (compare_to_driver(&t->version, &d->cuda) != FITS)
			return CD_OK; /* toolkit-newer-than-driver explains it */
		if (t->version.major == d->cuda.major && t->version.minor == d->cuda.minor)
			return CD_OK;
		x = report_add_finding(r, SEV_INFO, "driver-cuda-version", "nvidia-smi",
				       "nvidia-smi's \"CUDA Version: %s\" is what the driver supports; the toolkit here is CUDA %s",
				       mm(&d->cuda, dv, sizeof dv), mm(&t->version, tv, sizeof tv));
		NOMEM(x);
		NOMEM(driver_evidence(x, d) == CD_OK);
		NOMEM(finding_evidence(x, "%s reports CUDA %s", t->nvcc, tv) == CD_OK);
		NOMEM(finding_why(x, "The driver runs programs built with any CUDA up to %s; the toolkit decides what you build with. "
				  "The two numbers differing is normal as long as the toolkit is not the newer one.", dv) == CD_OK);
		NOMEM(finding_fix(x, "nothing to fix; a toolkit up to CUDA %s would also run here: nvcc --version shows the one builds use", dv) == CD_OK);
		return CD_OK;
	}
	return CD_OK;
}

bool stack_toolkit_targets(const struct stack_toolkit *t, int cc_major, int cc_minor)
{
	int sm = cc_major * 10 + cc_minor;

	for (size_t i = 0; i < t->n_archs; i++)
		if (t->archs[i] == sm)
			return true;
	return false;
}

static int min_arch(const struct stack_toolkit *t)
{
	int m = 0;

	for (size_t i = 0; i < t->n_archs; i++)
		if (m == 0 || t->archs[i] < m)
			m = t->archs[i];
	return m;
}

/* Can anything this toolkit builds run on CC major.minor? SASS of the same major
 * with a lower minor does, and PTX of any lower arch can be JIT-compiled. */
static bool toolkit_reaches(const struct stack_toolkit *t, int sm)
{
	for (size_t i = 0; i < t->n_archs; i++)
		if (t->archs[i] <= sm)
			return true;
	return false;
}

static const char *gpu_subject(const struct stack_gpu *g, char *buf, size_t n)
{
	if (g->cuda_index >= 0)
		snprintf(buf, n, "GPU %d (%s)", g->cuda_index, g->name ? g->name : "unknown");
	else
		snprintf(buf, n, "GPU pci:%d (%s)", g->pci_index, g->name ? g->name : "unknown");
	return buf;
}

static int rule_toolkit_vs_gpu(const struct stack_facts *f, struct report *r)
{
	char subj[160], tv[32];

	for (size_t gi = 0; gi < f->n_gpus; gi++) {
		const struct stack_gpu *g = &f->gpus[gi];
		int sm = g->cc_major * 10 + g->cc_minor;

		if (g->cc_major <= 0)
			continue;
		for (size_t ti = 0; ti < f->n_toolkits; ti++) {
			const struct stack_toolkit *t = &f->toolkits[ti];
			struct finding *x;

			if (!t->kb_known || t->n_archs == 0 || stack_toolkit_targets(t, g->cc_major, g->cc_minor))
				continue;
			mm(&t->version, tv, sizeof tv);
			gpu_subject(g, subj, sizeof subj);
			if (sm < min_arch(t)) {
				x = report_add_finding(r, t->selected ? SEV_ERROR : SEV_WARN, "arch-dropped-by-toolkit", subj,
						       "CUDA %s no longer supports sm_%d (%s): nvcc %s cannot build for this GPU",
						       tv, sm, g->name ? g->name : "this GPU", t->nvcc);
				NOMEM(x);
				NOMEM(finding_evidence(x, "%s: compute capability %d.%d", subj, g->cc_major, g->cc_minor) == CD_OK);
				NOMEM(finding_evidence(x, "CUDA %s builds sm_%d and newer (kb: toolkits.tsv)", tv, min_arch(t)) == CD_OK);
				NOMEM(finding_why(x, "Machine code (SASS) runs only on its own major architecture and PTX only on GPUs at least as new as its target, "
						  "so nothing a toolkit builds can run on an architecture it has removed: \"nvcc fatal: Unsupported gpu architecture 'compute_%d'\".",
						  sm) == CD_OK);
				if (g->last_toolkit)
					NOMEM(finding_fix(x, "use CUDA %s or older (the last toolkit that builds sm_%d) for code that must run on this GPU", g->last_toolkit, sm) == CD_OK);
				else
					NOMEM(finding_fix(x, "use an older CUDA toolkit (12.x) for code that must run on this GPU") == CD_OK);
				/* which PyTorch wheels still list an arch is not in kb/: say how to check, name none */
				NOMEM(finding_fix(x, "for PyTorch: a wheel built with CUDA %s or older that lists sm_%d: pip install torch --index-url https://download.pytorch.org/whl/cuXYZ, "
						  "then python -c 'import torch; print(torch.cuda.get_arch_list())'",
						  g->last_toolkit ? g->last_toolkit : "12.x", sm) == CD_OK);
				continue;
			}
			bool reaches = toolkit_reaches(t, sm);
			x = report_add_finding(r, (t->selected && !reaches) ? SEV_ERROR : SEV_WARN, "toolkit-cannot-target-gpu", subj,
					       "nvcc %s does not know sm_%d (%s)", tv, sm, g->name ? g->name : "this GPU");
			NOMEM(x);
			NOMEM(finding_evidence(x, "%s: compute capability %d.%d", subj, g->cc_major, g->cc_minor) == CD_OK);
			NOMEM(finding_evidence(x, "%s (CUDA %s) accepts sm_%d .. sm_%d, not sm_%d", t->nvcc, tv, min_arch(t),
					       t->archs[t->n_archs - 1], sm) == CD_OK);
			if (g->first_toolkit)
				NOMEM(finding_evidence(x, "sm_%d needs CUDA %s or newer", sm, g->first_toolkit) == CD_OK);
			NOMEM(finding_why(x, "-arch=sm_%d or -arch=native fails with \"Unsupported gpu architecture\". %s", sm,
					  reaches ? "Code built for an older arch still runs: SASS of the same major with a lower minor, or PTX the driver JIT-compiles at load time (slower start)."
						  : "No arch this toolkit knows can run on this GPU.") == CD_OK);
			if (g->first_toolkit)
				NOMEM(finding_fix(x, "install CUDA %s or newer and put its bin/ first on PATH", g->first_toolkit) == CD_OK);
			NOMEM(finding_fix(x, "meanwhile: nvcc -gencode arch=compute_%d,code=compute_%d ...   # PTX the driver JIT-compiles for this GPU",
					  t->archs[t->n_archs - 1] <= sm ? t->archs[t->n_archs - 1] : min_arch(t),
					  t->archs[t->n_archs - 1] <= sm ? t->archs[t->n_archs - 1] : min_arch(t)) == CD_OK);
		}
	}
	return CD_OK;
}

/* --- runtimes and frameworks -------------------------------------------------------- */

static bool runtime_used(const struct stack_runtime *rt, const struct stack_facts *f)
{
	if (rt->origin == ORIGIN_PIP || rt->origin == ORIGIN_TORCH || rt->origin == ORIGIN_CONDA)
		return true; /* the framework beside it loads it through its RUNPATH */
	if (rt->rank < 0)
		return false;
	for (size_t i = 0; i < f->n_runtimes; i++) {
		const struct stack_runtime *o = &f->runtimes[i];
		if (o != rt && o->rank >= 0 && o->rank < rt->rank && o->soname && rt->soname && strcmp(o->soname, rt->soname) == 0)
			return false;
	}
	return true;
}

static int rule_runtime_vs_driver(const struct stack_facts *f, struct report *r)
{
	const struct stack_driver *d = &f->driver;
	char rv[32], dv[32];

	if (!driver_usable(d))
		return CD_OK;
	mm(&d->cuda, dv, sizeof dv);
	for (size_t i = 0; i < f->n_runtimes; i++) {
		const struct stack_runtime *rt = &f->runtimes[i];
		struct finding *x;

		/* only the runtime's version is a CUDA version (cuDNN 9, NCCL 2 are not) */
		if (!rt->soname || !str_starts_with(rt->soname, "libcudart"))
			continue;
		if (!known(&rt->version) || compare_to_driver(&rt->version, &d->cuda) != NEWER_MAJOR)
			continue;
		mm(&rt->version, rv, sizeof rv);
		x = report_add_finding(r, runtime_used(rt, f) ? SEV_ERROR : SEV_WARN, "runtime-newer-than-driver", rt->path,
				       "CUDA runtime %s (%s) needs a newer driver than this one (CUDA %s)", rv, runtime_origin_name(rt->origin), dv);
		NOMEM(x);
		NOMEM(finding_evidence(x, "%s: CUDA runtime %s", rt->path, rv) == CD_OK);
		NOMEM(driver_evidence(x, d) == CD_OK);
		NOMEM(finding_why(x, "The CUDA runtime checks the driver at its first call and refuses one older than its major release: "
				  "\"CUDA driver version is insufficient for CUDA runtime version\" (cudaErrorInsufficientDriver, 35).") == CD_OK);
		NOMEM(fix_driver_for(x, &rt->version, rt->min_driver, NULL) == CD_OK);
		if (rt->origin == ORIGIN_PIP || rt->origin == ORIGIN_TORCH)
			NOMEM(finding_fix(x, "or install wheels built for CUDA %d.x (e.g. nvidia-cuda-runtime-cu%d)", d->cuda.major, d->cuda.major) == CD_OK);
		else if (rt->from_ld_library_path)
			NOMEM(finding_fix(x, "or drop its directory from LD_LIBRARY_PATH") == CD_OK);
	}
	for (size_t i = 0; i < f->n_frameworks; i++) {
		const struct stack_framework *fw = &f->frameworks[i];
		struct version v;
		struct finding *x;

		if (!fw->cuda || version_parse(fw->cuda, &v) != CD_OK || compare_to_driver(&v, &d->cuda) != NEWER_MAJOR)
			continue;
		x = report_add_finding(r, SEV_ERROR, "runtime-newer-than-driver", fw->path ? fw->path : fw->name,
				       "%s %s is built for CUDA %s; this driver supports CUDA %s", fw->name, fw->version ? fw->version : "",
				       fw->cuda, dv);
		NOMEM(x);
		NOMEM(finding_evidence(x, "%s/version.py: cuda = '%s'", fw->path ? fw->path : fw->name, fw->cuda) == CD_OK);
		NOMEM(driver_evidence(x, d) == CD_OK);
		NOMEM(finding_why(x, "%s loads the CUDA %s runtime it was built with; that runtime refuses a driver older than its major release "
				  "(error 35), so %s.cuda.is_available() is False.", fw->name, fw->cuda, fw->name) == CD_OK);
		NOMEM(fix_driver_for(x, &v, fw->min_driver, NULL) == CD_OK);
		if (strcmp(fw->name, "torch") == 0)
			NOMEM(finding_fix(x, "or pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cuXYZ   # XYZ <= %d%d, what this driver supports",
					  d->cuda.major, d->cuda.minor) == CD_OK);
	}
	return CD_OK;
}

static const char *full(const struct stack_runtime *rt, char *buf, size_t n)
{
	if (rt->version_text && *rt->version_text)
		snprintf(buf, n, "%s", rt->version_text);
	else
		mm(&rt->version, buf, n);
	return buf;
}

static int rule_shadowed(const struct stack_facts *f, struct report *r)
{
	char v1[32], v2[32];

	for (size_t i = 0; i < f->n_runtimes; i++) {
		const struct stack_runtime *a = &f->runtimes[i];

		if (!a->soname || a->version.parts < 2) /* a bare soname major cannot be compared */
			continue;
		for (size_t j = 0; j < f->n_runtimes; j++) {
			const struct stack_runtime *b = &f->runtimes[j];
			const struct stack_runtime *win, *lose;
			struct finding *x;
			bool overrides_wheel;

			if (i == j || !b->soname || strcmp(a->soname, b->soname) != 0 || b->version.parts < 2)
				continue;
			if (version_cmp(&a->version, &b->version) == 0)
				continue;
			/* a wins over b when a comes first on the loader path, or when a is in
			 * LD_LIBRARY_PATH and b is a wheel's copy (LD_LIBRARY_PATH beats RUNPATH) */
			overrides_wheel = a->from_ld_library_path && (b->origin == ORIGIN_PIP || b->origin == ORIGIN_TORCH || b->origin == ORIGIN_CONDA);
			if (!(a->rank >= 0 && b->rank >= 0 && a->rank < b->rank) && !overrides_wheel)
				continue;
			win = a;
			lose = b;
			x = report_add_finding(r, SEV_WARN, "library-shadowed", win->soname,
					       "%s: the loader picks %s (%s) over %s (%s)", win->soname, win->path,
					       full(win, v1, sizeof v1), lose->path, full(lose, v2, sizeof v2));
			NOMEM(x);
			NOMEM(finding_evidence(x, "picked: %s, version %s, %s%s", win->path, v1, runtime_origin_name(win->origin),
					       win->from_ld_library_path ? ", from LD_LIBRARY_PATH" : "") == CD_OK);
			NOMEM(finding_evidence(x, "shadowed: %s, version %s, %s", lose->path, v2, runtime_origin_name(lose->origin)) == CD_OK);
			NOMEM(finding_why(x, "The dynamic loader takes the first file with the wanted soname: LD_LIBRARY_PATH first, then the library's RUNPATH, "
					  "then /etc/ld.so.cache. A program or wheel built against one version then runs with another, which fails with "
					  "undefined symbols or version errors.") == CD_OK);
			if (overrides_wheel || win->from_ld_library_path)
				NOMEM(finding_fix(x, "remove the directory of %s from LD_LIBRARY_PATH", win->path) == CD_OK);
			else
				NOMEM(finding_fix(x, "remove the stale copy or reorder /etc/ld.so.conf.d, then: sudo ldconfig") == CD_OK);
			NOMEM(finding_fix(x, "LD_DEBUG=libs python -c 'import torch' 2>&1 | grep %s   # see which copy loads", win->soname) == CD_OK);
		}
	}
	return CD_OK;
}

static int rule_torch_cpu(const struct stack_facts *f, struct report *r)
{
	bool gpu_here = f->n_gpus > 0 || (f->driver.loaded && f->driver.init_result == CUDA_SUCCESS);

	for (size_t i = 0; i < f->n_frameworks; i++) {
		const struct stack_framework *fw = &f->frameworks[i];
		struct finding *x;

		if (!fw->cpu_only)
			continue;
		x = report_add_finding(r, gpu_here ? SEV_WARN : SEV_INFO, "torch-cpu-only", fw->path ? fw->path : fw->name,
				       "%s %s is a CPU-only build", fw->name, fw->version ? fw->version : "");
		NOMEM(x);
		NOMEM(finding_evidence(x, "%s/version.py: __version__ = '%s', cuda = None", fw->path ? fw->path : fw->name,
				       fw->version ? fw->version : "?") == CD_OK);
		NOMEM(finding_why(x, "A CPU-only wheel contains no CUDA code at all: torch.cuda.is_available() is False and "
				  "tensors on 'cuda' raise \"Torch not compiled with CUDA enabled\", whatever driver and GPU are here.") == CD_OK);
		if (driver_usable(&f->driver))
			NOMEM(finding_fix(x, "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cuXYZ   # XYZ <= %d%d, what this driver supports",
					  f->driver.cuda.major, f->driver.cuda.minor) == CD_OK);
		else
			NOMEM(finding_fix(x, "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cuXYZ   # XYZ: a CUDA version your driver supports (cudoctor kb driver VERSION)") == CD_OK);
	}
	return CD_OK;
}

/* --- platform ----------------------------------------------------------------------- */

/* How many MIG devices a MIG- token names: "MIG-<uuid>" (R470+, any unique prefix, as
 * for GPU- tokens) or the older "MIG-GPU-<gpu uuid>/<GI>/<CI>". -1: the MIG devices are
 * not known for every GPU, so the token cannot be judged. */
static int mig_token_matches(const struct stack_facts *f, const char *tok, size_t *n_mig_total)
{
	int matches = 0;
	const char *slash = strchr(tok, '/');

	*n_mig_total = 0;
	for (size_t g = 0; g < f->n_gpus; g++) {
		if (!f->gpus[g].mig_listed)
			return -1;
		*n_mig_total += f->gpus[g].n_migs;
	}
	for (size_t g = 0; g < f->n_gpus; g++) {
		const struct stack_gpu *gpu = &f->gpus[g];
		for (size_t k = 0; k < gpu->n_migs; k++) {
			const struct stack_mig *m = &gpu->migs[k];
			if (!slash) {
				if (m->uuid && str_starts_with(m->uuid, tok))
					matches++;
				continue;
			}
			/* MIG-GPU-<uuid>/GI/CI */
			size_t ulen = (size_t)(slash - (tok + 4));
			char *end;
			long gi = strtol(slash + 1, &end, 10), ci = -1;
			if (*end == '/')
				ci = strtol(end + 1, &end, 10);
			if (*end || !gpu->uuid || strlen(gpu->uuid) != ulen || strncmp(gpu->uuid, tok + 4, ulen) != 0)
				continue;
			if (m->gpu_instance_id == gi && m->compute_instance_id == ci)
				matches++;
		}
	}
	return matches;
}

static int rule_visible_devices(const struct stack_facts *f, struct report *r)
{
	const struct visible_devices *vd = &f->platform.visible;
	size_t physical = f->n_gpus, visible = 0;
	const char *problem = NULL;
	char why[256] = "";
	struct finding *x;
	long seen[VISIBLE_MAX_TOKENS];
	size_t n_seen = 0;
	bool deliberate = false;

	if (!vd->set)
		return CD_OK;
	if (vd->n == 0) {
		problem = "is empty, which hides every GPU";
	} else {
		for (size_t i = 0; i < vd->n && !problem; i++) {
			const struct visible_token *t = &vd->tok[i];
			switch (t->kind) {
			case VIS_INVALID:
				if (t->text[0] == '-')
					snprintf(why, sizeof why, "token %zu \"%s\" is negative, which ends the list: every later GPU is hidden (often set on purpose to disable GPUs)", i + 1, t->text);
				else
					snprintf(why, sizeof why, "token %zu \"%s\" is neither an index nor a GPU-/MIG- UUID; it and every later token are ignored", i + 1, t->text);
				deliberate = t->text[0] == '-' && i == 0;
				problem = why;
				break;
			case VIS_INDEX:
				for (size_t k = 0; k < n_seen; k++)
					if (seen[k] == t->index) {
						snprintf(why, sizeof why, "index %ld is listed twice, which makes CUDA see no GPU at all", t->index);
						problem = why;
						visible = 0;
					}
				if (problem)
					break;
				if (physical > 0 && (size_t)t->index >= physical) {
					snprintf(why, sizeof why, "index %ld does not exist (GPUs here: 0..%zu); it and every later token are ignored", t->index, physical - 1);
					problem = why;
					break;
				}
				seen[n_seen++] = t->index;
				visible++;
				break;
			case VIS_GPU_UUID:
				if (physical > 0) {
					size_t matches = 0;
					for (size_t g = 0; g < f->n_gpus; g++)
						if (f->gpus[g].uuid && str_starts_with(f->gpus[g].uuid, t->text))
							matches++;
					if (matches != 1) {
						snprintf(why, sizeof why, "\"%s\" %s; it and every later token are ignored", t->text,
							 matches == 0 ? "matches no GPU here" : "matches more than one GPU");
						problem = why;
						break;
					}
				}
				visible++;
				break;
			case VIS_MIG_UUID:
				if (physical > 0) {
					size_t n_mig = 0;
					int matches = mig_token_matches(f, t->text, &n_mig);
					if (matches == 0 || matches > 1) {
						snprintf(why, sizeof why, "\"%s\" %s; it and every later token are ignored", t->text,
							 matches > 1 ? "matches more than one MIG device"
							 : n_mig == 0 ? "matches no MIG device here (no GPU has a MIG instance)"
								      : "matches no MIG device here");
						problem = why;
						break;
					}
				}
				visible++;
				break;
			}
		}
	}
	if (!problem)
		return CD_OK;
	x = report_add_finding(r, (visible == 0 && physical > 0 && !deliberate) ? SEV_ERROR : SEV_WARN, "visible-devices-invalid", "CUDA_VISIBLE_DEVICES",
			       "CUDA_VISIBLE_DEVICES %s", problem);
	NOMEM(x);
	NOMEM(finding_evidence(x, "CUDA_VISIBLE_DEVICES=\"%s\"", vd->raw ? vd->raw : "") == CD_OK);
	if (physical > 0)
		NOMEM(finding_evidence(x, "%zu GPU(s) in the machine, %zu visible to CUDA after this setting", physical, visible) == CD_OK);
	NOMEM(finding_why(x, "CUDA reads CUDA_VISIBLE_DEVICES once, at cuInit, and stops at the first token it cannot resolve; "
			  "GPUs after it are hidden and the remaining ones are renumbered from 0, so 'cuda:1' may then be an invalid device ordinal.") == CD_OK);
	NOMEM(finding_fix(x, "nvidia-smi -L   # the indices and UUIDs that exist (MIG devices as MIG-<uuid>)") == CD_OK);
	NOMEM(finding_fix(x, "export CUDA_VISIBLE_DEVICES=0   # or a GPU-<uuid> from nvidia-smi -L; unset it to see every GPU") == CD_OK);
	return CD_OK;
}

static int rule_device_order(const struct stack_facts *f, struct report *r)
{
	const struct stack_gpu *prev = NULL;
	bool differ = false;
	struct finding *x;

	if (f->n_gpus < 2 || f->platform.visible.set)
		return CD_OK;
	if (f->platform.device_order && strcmp(f->platform.device_order, "PCI_BUS_ID") == 0)
		return CD_OK;
	/* walk in CUDA order; PCI indices must rise */
	for (int ci = 0; ci < (int)f->n_gpus; ci++) {
		const struct stack_gpu *g = NULL;
		for (size_t i = 0; i < f->n_gpus; i++)
			if (f->gpus[i].cuda_index == ci)
				g = &f->gpus[i];
		if (!g)
			continue;
		if (prev && g->pci_index < prev->pci_index)
			differ = true;
		prev = g;
	}
	if (!differ)
		return CD_OK;
	x = report_add_finding(r, SEV_WARN, "device-order-mismatch", "CUDA_DEVICE_ORDER",
			       "CUDA numbers the GPUs differently from nvidia-smi");
	NOMEM(x);
	for (size_t i = 0; i < f->n_gpus; i++) {
		const struct stack_gpu *g = &f->gpus[i];
		NOMEM(finding_evidence(x, "nvidia-smi GPU %d = CUDA device %d: %s (%s)", g->pci_index, g->cuda_index,
				       g->name ? g->name : "?", g->pci_bus_id ? g->pci_bus_id : "?") == CD_OK);
	}
	NOMEM(finding_evidence(x, "CUDA_DEVICE_ORDER=%s", f->platform.device_order ? f->platform.device_order : "(unset: FASTEST_FIRST)") == CD_OK);
	NOMEM(finding_why(x, "CUDA's default order is FASTEST_FIRST while nvidia-smi and NVML use PCI bus order; "
			  "with different GPUs in one machine, 'GPU 0' in nvidia-smi and cuda:0 are then different cards.") == CD_OK);
	NOMEM(finding_fix(x, "export CUDA_DEVICE_ORDER=PCI_BUS_ID") == CD_OK);
	NOMEM(finding_fix(x, "or select GPUs by UUID: export CUDA_VISIBLE_DEVICES=GPU-<uuid>   # from nvidia-smi -L") == CD_OK);
	return CD_OK;
}

static int rule_device_nodes(const struct stack_facts *f, struct report *r)
{
	const struct stack_platform *p = &f->platform;
	bool ctl = false, uvm = false, any_gpu = false, inaccessible = false;
	struct finding *x;

	if (p->wsl || p->n_nodes == 0)
		return CD_OK;
	/* without any driver, no-driver already says everything; with a working cuInit the
	 * nodes it needs (nvidiactl, nvidia-uvm, nvidiaN) were evidently there */
	if (!f->driver.loaded && !f->driver.kmod_version && f->n_gpus == 0)
		return CD_OK;
	if (f->driver.loaded && f->driver.init_called && f->driver.init_result == CUDA_SUCCESS)
		return CD_OK;
	for (size_t i = 0; i < p->n_nodes; i++) {
		const struct device_node *n = &p->nodes[i];
		if (!n->exists)
			continue;
		if (!n->accessible)
			inaccessible = true;
		if (strcmp(n->path, "/dev/nvidiactl") == 0)
			ctl = true;
		else if (strcmp(n->path, "/dev/nvidia-uvm") == 0)
			uvm = true;
		else if (strncmp(n->path, "/dev/nvidia", 11) == 0 && isdigit((unsigned char)n->path[11]))
			any_gpu = true;
	}
	if (ctl && uvm && any_gpu && !inaccessible)
		return CD_OK;
	x = report_add_finding(r, (!ctl || !any_gpu || inaccessible) ? SEV_ERROR : SEV_WARN, "device-nodes", "/dev/nvidia*",
			       "%s", inaccessible ? "NVIDIA device nodes exist but this user cannot open them" : "NVIDIA device nodes are missing");
	NOMEM(x);
	for (size_t i = 0; i < p->n_nodes; i++) {
		const struct device_node *n = &p->nodes[i];
		NOMEM(finding_evidence(x, "%s: %s", n->path, !n->exists ? "missing" : n->accessible ? "ok" : "permission denied") == CD_OK);
	}
	if (!uvm)
		NOMEM(finding_evidence(x, "/dev/nvidia-uvm: missing (module nvidia_uvm not loaded)") == CD_OK);
	NOMEM(finding_why(x, "libcuda reaches the GPU only through /dev/nvidiactl, /dev/nvidia<N> and /dev/nvidia-uvm (unified memory, needed by cuInit); "
			  "a missing or unreadable node makes cuInit fail or hide that GPU.") == CD_OK);
	if (!uvm)
		NOMEM(finding_fix(x, "sudo modprobe nvidia_uvm   # or: sudo nvidia-modprobe -u -c=0") == CD_OK);
	if (inaccessible)
		NOMEM(finding_fix(x, "sudo usermod -aG video $USER   # then log in again") == CD_OK);
	if (p->container)
		NOMEM(finding_fix(x, "docker run --gpus all ...   # the NVIDIA runtime creates the nodes in the container") == CD_OK);
	return CD_OK;
}

static int rule_wsl(const struct stack_facts *f, struct report *r)
{
	const struct stack_platform *p = &f->platform;
	struct finding *x;

	if (!p->wsl)
		return CD_OK;
	if (p->wsl_distro_libcuda) {
		x = report_add_finding(r, SEV_ERROR, "wsl-libcuda", p->wsl_distro_libcuda,
				       "A Linux NVIDIA driver is installed inside WSL2 and shadows the Windows driver's libcuda");
		NOMEM(x);
		NOMEM(finding_evidence(x, "%s", p->wsl_distro_libcuda) == CD_OK);
		NOMEM(finding_why(x, "Under WSL2 the GPU belongs to the Windows driver, which provides libcuda in /usr/lib/wsl/lib; "
				  "a Linux driver's libcuda cannot reach the GPU (there is no NVIDIA kernel module in WSL) and fails cuInit.") == CD_OK);
		NOMEM(finding_fix(x, "sudo apt remove --purge '^nvidia-.*' '^libnvidia-.*'   # never install the Linux driver inside WSL") == CD_OK);
		NOMEM(finding_fix(x, "sudo ldconfig") == CD_OK);
	}
	if (!p->wsl_libcuda1) {
		x = report_add_finding(r, SEV_ERROR, "wsl-libcuda", "/usr/lib/wsl/lib/libcuda.so.1",
				       "WSL2 without the Windows driver's libcuda.so.1");
		NOMEM(x);
		NOMEM(finding_evidence(x, "/usr/lib/wsl/lib%s", p->wsl_lib_dir ? "/libcuda.so.1 is missing" : " does not exist") == CD_OK);
		if (!p->wsl_dxg)
			NOMEM(finding_evidence(x, "/dev/dxg is missing: the GPU is not passed into WSL") == CD_OK);
		NOMEM(finding_why(x, "WSL2 exposes the GPU through /dev/dxg and the Windows NVIDIA driver mounts its libcuda into /usr/lib/wsl/lib; "
				  "without them CUDA has no driver.") == CD_OK);
		NOMEM(finding_fix(x, "install or update the NVIDIA driver on Windows (not inside WSL), then in PowerShell: wsl --update; wsl --shutdown") == CD_OK);
	} else {
		if (!p->wsl_libcuda_unversioned) {
			x = report_add_finding(r, SEV_WARN, "wsl-libcuda", "/usr/lib/wsl/lib",
					       "libcuda.so (unversioned) is not on the linker path: -lcuda and Triton fail");
			NOMEM(x);
			NOMEM(finding_evidence(x, "/usr/lib/wsl/lib/libcuda.so.1 exists but no libcuda.so is in the ld cache or LD_LIBRARY_PATH") == CD_OK);
			NOMEM(finding_why(x, "Programs find libcuda.so.1 at run time, but linking with -lcuda (Triton, torch.compile) needs the unversioned libcuda.so, "
					  "which is in /usr/lib/wsl/lib only if that directory is searched.") == CD_OK);
			NOMEM(finding_fix(x, "echo /usr/lib/wsl/lib | sudo tee /etc/ld.so.conf.d/ld.wsl.conf && sudo ldconfig") == CD_OK);
			NOMEM(finding_fix(x, "or: export LIBRARY_PATH=/usr/lib/wsl/lib:$LIBRARY_PATH") == CD_OK);
		}
		if (!p->wsl_libcuda1_symlink) {
			x = report_add_finding(r, SEV_INFO, "wsl-libcuda", "/usr/lib/wsl/lib/libcuda.so.1",
					       "/usr/lib/wsl/lib/libcuda.so.1 is a copy, not a symbolic link (ldconfig warns about it)");
			NOMEM(x);
			NOMEM(finding_evidence(x, "ldconfig: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link") == CD_OK);
			NOMEM(finding_why(x, "Windows mounts the driver files as plain copies; the warning is harmless for running CUDA programs.") == CD_OK);
			NOMEM(finding_fix(x, "ignore it, or (workaround from the NVIDIA forum, undone by driver updates): cd /usr/lib/wsl/lib && sudo ln -sf libcuda.so.1.1 libcuda.so.1") == CD_OK);
		}
	}
	return CD_OK;
}

/* --- GPU state ------------------------------------------------------------------------- */

static int rule_persistence(const struct stack_facts *f, struct report *r)
{
	char subj[160];

	for (size_t i = 0; i < f->n_gpus; i++) {
		const struct stack_gpu *g = &f->gpus[i];
		struct finding *x;

		if (g->persistence != 0)
			continue;
		gpu_subject(g, subj, sizeof subj);
		x = report_add_finding(r, SEV_INFO, "persistence-off", subj, "Persistence mode is off: every first CUDA call reinitialises the GPU");
		NOMEM(x);
		NOMEM(finding_evidence(x, "NVML persistence mode: disabled") == CD_OK);
		NOMEM(finding_why(x, "Without persistence the driver tears the GPU down when the last client exits, so each new process pays for it again in cuInit (up to seconds).") == CD_OK);
		NOMEM(finding_fix(x, "sudo systemctl enable --now nvidia-persistenced") == CD_OK);
	}
	return CD_OK;
}

static int run_rules(int (*const rules[])(const struct stack_facts *, struct report *), size_t n,
		     const struct stack_facts *f, struct report *r)
{
	for (size_t i = 0; i < n; i++) {
		int rc = rules[i](f, r);
		if (rc != CD_OK)
			return rc;
	}
	return CD_OK;
}

int stack_driver_rules(const struct stack_facts *f, struct report *r)
{
	int (*const rules[])(const struct stack_facts *, struct report *) = {
		rule_no_driver, rule_init, rule_no_device_count, rule_module_mismatch, rule_nvml,
	};

	return run_rules(rules, sizeof rules / sizeof rules[0], f, r);
}

int stack_rules_run(const struct stack_facts *f, struct report *r)
{
	int (*const rules[])(const struct stack_facts *, struct report *) = {
		stack_driver_rules, rule_toolkit_vs_driver, rule_runtime_vs_driver, rule_toolkit_vs_gpu,
		rule_shadowed, rule_torch_cpu, rule_visible_devices, rule_device_order,
		rule_device_nodes, rule_wsl, rule_persistence, rule_smi_cuda_version,
	};

	return run_rules(rules, sizeof rules / sizeof rules[0], f, r);
}

int stack_verdict(const struct stack_facts *f, struct report *r)
{
	const struct stack_driver *d = &f->driver;
	struct finding *x;
	char b[32];
	size_t i, warnings = 0;

	for (i = 0; i < r->n_findings; i++)
		if (r->findings[i].severity >= SEV_WARN)
			warnings++;
	if (warnings || !d->loaded || !d->init_called || d->init_result != CUDA_SUCCESS)
		return CD_OK;
	x = report_add_finding(r, SEV_OK, "stack-consistent", "CUDA stack",
			       "driver, GPUs, toolkits, runtimes and frameworks fit each other");
	NOMEM(x);
	NOMEM(finding_evidence(x, "driver %s runs CUDA up to %s", d->version ? d->version : "(version unknown)",
			       mm(&d->cuda, b, sizeof b)) == CD_OK);
	NOMEM(finding_evidence(x, "%zu GPU(s), %zu toolkit(s), %zu CUDA librar%s, %zu framework(s) checked against it",
			       f->n_gpus, f->n_toolkits, f->n_runtimes, f->n_runtimes == 1 ? "y" : "ies",
			       f->n_frameworks) == CD_OK);
	NOMEM(finding_why(x, "Every layer a CUDA program passes through was found and none asks for more than the layer "
			  "below provides: no toolkit or runtime newer than the driver, no GPU its toolkits cannot target.") == CD_OK);
	return CD_OK;
}
