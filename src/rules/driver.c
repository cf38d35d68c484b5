/* Driver-layer rules: libcuda loaded, cuInit, the device count, kernel module vs user
 * space, NVML; and the driver facts read as versions, for every layer above. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cuda_types.h"
#include "rules/catalogue.h"
#include "rules/internal.h"
#include "rules/plan.h"
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
enum cuda_fit rules_cuda_fit(const struct version *cuda, const struct version *driver_cuda)
{
	if (cuda->major > driver_cuda->major)
		return CUDA_NEWER_MAJOR;
	if (cuda->major < driver_cuda->major || cuda->minor <= driver_cuda->minor)
		return CUDA_FITS;
	return cuda->major >= 11 ? CUDA_NEWER_MINOR : CUDA_NEWER_MAJOR;
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

void rules_driver_fix_vars(const struct gpu_probe *d, const struct version *need, const char *min_driver,
			   const char *min_branch, struct finding_vars *v)
{
	struct gpu_spec specs[PLAN_MAX_GPUS];
	struct plan_branch_advice a;
	size_t n = plan_specs_of_probe(d, specs, PLAN_MAX_GPUS);
	int branch = min_driver ? atoi(min_driver) : 0;
	char b[32], c[16];

	finding_var(v, "need_cuda", "%s", version_format(need, 2, b, sizeof b));
	finding_flag(v, "past_gpu", false);
	finding_flag(v, "raise_branch", false);
	/* the branch named must support every GPU here (plan's ranges) */
	if (branch >= 100 && n && plan_branch_advice(specs, n, branch, &a) == CD_OK) {
		if (a.past_gpu) {
			finding_flag(v, "past_gpu", true);
			finding_var(v, "gpu_name", "%s", a.gpu->gpu ? a.gpu->gpu->name : a.gpu->label);
			finding_var(v, "gpu_last_branch", "%d", a.gpu_last);
			finding_var(v, "gpu_cuda_max", "%s", version_format(&a.cuda_max, 2, c, sizeof c));
			return;
		}
		if (a.branch > branch) {
			finding_flag(v, "raise_branch", true);
			finding_var(v, "need_branch", "%d", a.branch);
			if (a.gpu && a.gpu->gpu)
				finding_var(v, "gpu_name", "%s", a.gpu->gpu->name);
			return;
		}
	}
	if (min_driver) {
		finding_var(v, "min_driver", "%s", min_driver);
		finding_var(v, "min_driver_branch", "%.3s", min_driver);
		if (min_branch)
			finding_var(v, "min_branch", "%s", min_branch);
	}
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

void rules_driver_vars(const struct gpu_probe *d, struct finding_vars *v)
{
	struct version cuda = rules_driver_cuda(d);
	const char *ver = rules_opt(d->user_driver_version);

	if (ver) {
		finding_var(v, "driver_version", "%s", ver);
		finding_var(v, "driver_branch", "%.*s", (int)strcspn(ver, "."), ver);
	}
	if (rules_known(&cuda))
		rules_cuda_vars(ver, &cuda, v);
}

void rules_cuda_vars(const char *version, const struct version *cuda, struct finding_vars *v)
{
	finding_var(v, "driver_cuda", "%d.%d", cuda->major, cuda->minor);
	finding_var(v, "driver_cuda_digits", "%d%d", cuda->major, cuda->minor);
	finding_var(v, "driver_major", "%d", cuda->major);
	if (version && *version)
		finding_var(v, "driver_text", "driver %s (CUDA %d.%d)", version, cuda->major, cuda->minor);
	else
		finding_var(v, "driver_text", "a driver of CUDA %d.%d", cuda->major, cuda->minor);
}

/* --- verdicts: whether each driver-layer rule fires on these facts, and the values its catalogue
 * row takes; the rules below and explain's matches of the same ids both read them --- */

static const char *init_name(const struct gpu_probe *d)
{
	return d->cuda_init_result_name[0] ? d->cuda_init_result_name : "CUresult";
}

static bool init_failed_with(const struct gpu_probe *d, int code)
{
	return d->cuda_loaded && driver_has(d, DF_CUDA_INIT) && d->cuda_init_result == code;
}

static bool no_driver_verdict(const struct facts *f, struct finding_vars *v, const char **row)
{
	*row = "no-driver";
	if (f->driver->cuda_loaded)
		return false;
	finding_flag(v, "wsl", f->platform->wsl);
	finding_flag(v, "container", f->platform->container);
	return true;
}

/* cuInit = 100, or a good cuInit followed by a device count of 0 */
static bool no_device_verdict(const struct facts *f, struct finding_vars *v, const char **row)
{
	const struct gpu_probe *d = f->driver;

	*row = "no-device";
	if (!init_failed_with(d, CUDA_ERROR_NO_DEVICE) &&
	    !(init_failed_with(d, CUDA_SUCCESS) && driver_has(d, DF_CUDA_DEVICE_COUNT) && d->cuda_device_count == 0))
		return false;
	finding_flag(v, "visible_set", f->platform->visible.set);
	return true;
}

static bool forward_compat_verdict(const struct facts *f, struct finding_vars *v, const char **row)
{
	(void)v;
	*row = "forward-compat-unsupported";
	return init_failed_with(f->driver, CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE);
}

static bool not_ready_verdict(const struct facts *f, struct finding_vars *v, const char **row)
{
	*row = "system-not-ready";
	if (!init_failed_with(f->driver, CUDA_ERROR_SYSTEM_NOT_READY))
		return false;
	rules_driver_vars(f->driver, v);
	return true;
}

/* cuInit = 803, or a kernel module of another version than the user-space driver */
static bool mismatch_verdict(const struct facts *f, struct finding_vars *v, const char **row)
{
	const struct gpu_probe *d = f->driver;
	const char *kmod = rules_opt(d->kmod_version), *user = rules_opt(d->user_driver_version);
	bool differ = kmod && user && strcmp(kmod, user) != 0;

	*row = "driver-library-mismatch";
	if (!init_failed_with(d, CUDA_ERROR_SYSTEM_DRIVER_MISMATCH) && !differ)
		return false;
	if (differ) {
		finding_var(v, "kmod", "%s", kmod);
		finding_var(v, "user_driver", "%s", user);
	}
	return true;
}

/* a failing cuInit no other id names */
static bool init_verdict(const struct facts *f, struct finding_vars *v, const char **row)
{
	const struct gpu_probe *d = f->driver;

	*row = "driver-init-failed";
	if (!d->cuda_loaded || !driver_has(d, DF_CUDA_INIT) || d->cuda_init_result == CUDA_SUCCESS ||
	    d->cuda_init_result == CUDA_ERROR_NO_DEVICE || d->cuda_init_result == CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE ||
	    d->cuda_init_result == CUDA_ERROR_SYSTEM_NOT_READY || d->cuda_init_result == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
		return false;
	finding_var(v, "init_error", "%s (%d)", init_name(d), d->cuda_init_result);
	finding_var(v, "init_error_name", "%s", init_name(d));
	finding_flag(v, "uvm", d->cuda_init_result == CUDA_ERROR_UNKNOWN);
	finding_flag(v, "stub", d->cuda_init_result == 34); /* CUDA_ERROR_STUB_LIBRARY */
	return true;
}

static bool nvml_verdict(const struct facts *f, struct finding_vars *v, const char **row)
{
	const struct gpu_probe *d = f->driver;

	*row = "nvml-unavailable";
	if (!d->cuda_loaded || driver_nvml_ok(d))
		return false;
	finding_flag(v, "rm_mismatch", nvml_result(d) == 18); /* NVML_ERROR_LIB_RM_VERSION_MISMATCH */
	finding_flag(v, "not_loaded", nvml_result(d) == 9);   /* NVML_ERROR_DRIVER_NOT_LOADED */
	finding_flag(v, "container", f->platform->container);
	return true;
}

/* --- rules ------------------------------------------------------------------------ */

int rule_no_driver(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_probe *d = f->driver;
	struct finding_vars v;
	const char *row, *lib;
	struct finding *x;

	finding_vars_init(&v);
	if (!no_driver_verdict(f, &v, &row))
		return CD_OK;
	/* the driver's library on this platform: nvcuda.dll on Windows, which has no /proc */
	lib = catalogue_fallback("driver_library");
	x = finding_make(r, SEV_CATALOGUE, row, lib, &v);
	oom |= !x;
	oom |= finding_evidence(x, "%s", d->cuda_load_error[0] ? d->cuda_load_error : "loading it failed") != CD_OK;
	if (rules_opt(d->kmod_version))
		oom |= finding_evidence(x, "the kernel module %s is loaded (/proc/driver/nvidia/version), so the user-space library is what is missing",
				       rules_opt(d->kmod_version)) != CD_OK;
	else if (strcmp(lib, "libcuda.so.1") == 0)
		oom |= finding_evidence(x, "no NVIDIA kernel module is loaded (/proc/driver/nvidia/version is absent)") != CD_OK;
	if (driver_has(d, DF_NVML_DEVICE_COUNT))
		oom |= finding_evidence(x, "NVML (%s) sees %d GPU(s)%s", nvml_path(d) ? nvml_path(d) : "libnvidia-ml.so.1", d->nvml_device_count,
				       d->nvml_device_count > 0 ? ": the driver is installed but its libcuda is not reachable" : "") != CD_OK;
	return rules_status(oom);
}

static int no_device(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_probe *d = f->driver;
	struct finding_vars v;
	const char *row;
	struct finding *x;

	finding_vars_init(&v);
	if (!no_device_verdict(f, &v, &row))
		return CD_OK;
	x = finding_make(r, SEV_CATALOGUE, row, "cuInit", &v);
	oom |= !x;
	if (init_failed_with(d, CUDA_ERROR_NO_DEVICE))
		oom |= finding_evidence(x, "cuInit(0) = %s (%d)", init_name(d), d->cuda_init_result) != CD_OK;
	else
		oom |= finding_evidence(x, "cuDeviceGetCount = %d", d->cuda_device_count) != CD_OK;
	if (f->platform->visible.set)
		oom |= finding_evidence(x, "CUDA_VISIBLE_DEVICES=\"%s\"", f->platform->visible.raw ? f->platform->visible.raw : "") != CD_OK;
	if (driver_has(d, DF_NVML_DEVICE_COUNT))
		oom |= finding_evidence(x, "NVML sees %d GPU(s)", d->nvml_device_count) != CD_OK;
	return rules_status(oom);
}

int rule_no_device_count(const struct facts *f, struct report *r)
{
	/* cuInit = 100 is rule_init's */
	return init_failed_with(f->driver, CUDA_SUCCESS) ? no_device(f, r) : CD_OK;
}

int rule_init(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_probe *d = f->driver;
	struct version cuda = rules_driver_cuda(d);
	struct finding_vars v;
	const char *row;
	struct finding *x;

	finding_vars_init(&v);
	if (!d->cuda_loaded || !driver_has(d, DF_CUDA_INIT) || d->cuda_init_result == CUDA_SUCCESS)
		return CD_OK;
	if (d->cuda_init_result == CUDA_ERROR_NO_DEVICE)
		return no_device(f, r);
	if (forward_compat_verdict(f, &v, &row)) {
		x = finding_make(r, SEV_CATALOGUE, row, d->cuda_path[0] ? d->cuda_path : "libcuda.so.1", &v);
		oom |= !x;
		oom |= finding_evidence(x, "cuInit(0) = %s (%d)", init_name(d), d->cuda_init_result) != CD_OK;
		if (rules_opt(d->cuda_path))
			oom |= finding_evidence(x, "loaded %s", rules_opt(d->cuda_path)) != CD_OK;
		return rules_status(oom);
	}
	if (not_ready_verdict(f, &v, &row)) {
		x = finding_make(r, SEV_CATALOGUE, row, "cuInit", &v);
		oom |= !x;
		oom |= finding_evidence(x, "cuInit(0) = %s (%d)", init_name(d), d->cuda_init_result) != CD_OK;
		return rules_status(oom);
	}
	if (init_failed_with(d, CUDA_ERROR_SYSTEM_DRIVER_MISMATCH) && mismatch_verdict(f, &v, &row)) {
		x = finding_make(r, SEV_CATALOGUE, row, "cuInit", &v);
		oom |= !x;
		oom |= finding_evidence(x, "cuInit(0) = %s (%d)", init_name(d), d->cuda_init_result) != CD_OK;
		if (rules_opt(d->kmod_version))
			oom |= finding_evidence(x, "kernel module %s, user-space %s", rules_opt(d->kmod_version), rules_opt(d->user_driver_version) ? rules_opt(d->user_driver_version) : "unknown") != CD_OK;
		return rules_status(oom);
	}
	if (!init_verdict(f, &v, &row))
		return CD_OK;
	x = finding_make(r, SEV_CATALOGUE, row, "cuInit", &v);
	oom |= !x;
	oom |= finding_evidence(x, "cuInit(0) = %s (%d)", init_name(d), d->cuda_init_result) != CD_OK;
	if (rules_opt(d->cuda_path))
		oom |= finding_evidence(x, "libcuda: %s", rules_opt(d->cuda_path)) != CD_OK;
	if (rules_known(&cuda))
		oom |= finding_evidence(x, "cuDriverGetVersion = %d (CUDA %d.%d)", version_to_cuda_int(&cuda), cuda.major, cuda.minor) != CD_OK;
	return rules_status(oom);
}

int rule_module_mismatch(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_probe *d = f->driver;
	struct finding_vars v;
	const char *row;
	struct finding *x;

	finding_vars_init(&v);
	if (init_failed_with(d, CUDA_ERROR_SYSTEM_DRIVER_MISMATCH) || !mismatch_verdict(f, &v, &row))
		return CD_OK; /* rule_init said it */
	x = finding_make(r, SEV_CATALOGUE, row, "driver", &v);
	oom |= !x;
	oom |= finding_evidence(x, "/proc/driver/nvidia/version: kernel module %s", rules_opt(d->kmod_version)) != CD_OK;
	oom |= finding_evidence(x, "user-space driver %s (from %s)", rules_opt(d->user_driver_version), d->user_driver_version_source ? d->user_driver_version_source : "the library") != CD_OK;
	return rules_status(oom);
}

int rule_nvml(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_probe *d = f->driver;
	struct finding_vars v;
	const char *row;
	struct finding *x;

	finding_vars_init(&v);
	if (!nvml_verdict(f, &v, &row))
		return CD_OK;
	/* CUDA works: NVML's facts are what is missing */
	x = finding_make(r, SEV_WARN, row, "libnvidia-ml.so.1", &v);
	oom |= !x;
	if (nvml_result(d) != 0)
		oom |= finding_evidence(x, "nvmlInit = %s (%d)", driver_nvml_error(d) ? driver_nvml_error(d) : "error", nvml_result(d)) != CD_OK;
	else
		oom |= finding_evidence(x, "%s", driver_nvml_error(d) ? driver_nvml_error(d) : "nvmlInit failed") != CD_OK;
	if (nvml_path(d))
		oom |= finding_evidence(x, "libnvidia-ml: %s", nvml_path(d)) != CD_OK;
	return rules_status(oom);
}

typedef bool (*machine_verdict_fn)(const struct facts *f, struct finding_vars *v, const char **row);

static const struct {
	const char *id;
	machine_verdict_fn fn;
} verdicts[] = {
	{ "no-driver", no_driver_verdict },
	/* error 35 where libcuda does not load at all (a container started without --gpus): the
	 * runtime found no driver, not an old one */
	{ "runtime-newer-than-driver", no_driver_verdict },
	{ "no-device", no_device_verdict },
	{ "driver-init-failed", init_verdict },
	{ "system-not-ready", not_ready_verdict },
	{ "driver-library-mismatch", mismatch_verdict },
	{ "forward-compat-unsupported", forward_compat_verdict },
	{ "nvml-unavailable", nvml_verdict },
	{ "ecc-errors", rules_ecc_machine_verdict },
	{ "wsl-libcuda", rules_wsl_machine_verdict },
	{ "visible-devices-invalid", rules_visible_machine_verdict },
};

bool rules_machine_vars_known(const char *id)
{
	for (size_t i = 0; i < sizeof verdicts / sizeof verdicts[0]; i++)
		if (strcmp(verdicts[i].id, id) == 0)
			return true;
	return false;
}

bool rules_machine_vars(const char *id, const struct facts *f, struct finding_vars *v, const char **row)
{
	for (size_t i = 0; i < sizeof verdicts / sizeof verdicts[0]; i++)
		if (strcmp(verdicts[i].id, id) == 0)
			return verdicts[i].fn(f, v, row);
	return false;
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
	/* the same three conditions whose failure rule_no_driver, rule_init and
	 * rule_no_device_count report, asked as one yes/no by callers that need no finding */
	return p->cuda_loaded && driver_has(p, DF_CUDA_INIT) && p->cuda_init_result == CUDA_SUCCESS &&
	       !(driver_has(p, DF_CUDA_DEVICE_COUNT) && p->cuda_device_count == 0);
}
