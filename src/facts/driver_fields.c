/* The driver facts' field tables: every key, label and metric of "driver" and
 * "driver.nvml" (docs/json.md), the one description doctor, devices and the fleet read. */
#include <stdio.h>
#include <string.h>

#include "facts/driver.h"
#include "util/version.h"

#define P(m) offsetof(struct gpu_probe, m)
#define BOTH (FIELD_BRIEF | FIELD_FULL)

/* the result enums are read as FK_INT */
_Static_assert(sizeof(CUresult) == sizeof(int) && sizeof(nvmlReturn_t) == sizeof(int), "results are ints");

static void put_str(struct field_value *v, const char *s)
{
	snprintf(v->buf, sizeof v->buf, "%s", s);
	v->kind = FV_STR;
	v->s = v->buf;
}

static bool cuda_version(const void *obj, struct field_value *v)
{
	const struct gpu_probe *p = obj;
	struct version c;

	if (!p->cuda_loaded || p->cuda_driver_version <= 0)
		return false;
	c = version_from_cuda_int(p->cuda_driver_version);
	version_format(&c, 2, v->buf, sizeof v->buf);
	v->kind = FV_STR;
	v->s = v->buf;
	return true;
}

static void cuda_version_text(const void *obj, char *buf, size_t len)
{
	struct field_value v = { .s = "" };

	cuda_version(obj, &v);
	snprintf(buf, len, "%s: the newest CUDA this driver runs (nvidia-smi's \"CUDA Version\"), not an installed toolkit",
		 v.s);
}

static void version_text(const void *obj, char *buf, size_t len)
{
	const struct gpu_probe *p = obj;

	snprintf(buf, len, "%s (from %s)", p->user_driver_version,
		 p->user_driver_version_source ? p->user_driver_version_source : "?");
}

/* "PATH (how)", or "not loaded: why": what a library line says. */
static bool library_line(struct field_value *v, bool loaded, const char *path, const char *how, const char *error,
			 const char *init_error)
{
	if (loaded)
		snprintf(v->buf, sizeof v->buf, "%s (%s)%s%s", path, how[0] ? how : "loaded", init_error ? ": " : "",
			 init_error ? init_error : "");
	else
		snprintf(v->buf, sizeof v->buf, "not loaded: %s", error[0] ? error : "-");
	v->kind = FV_STR;
	v->s = v->buf;
	return true;
}

static bool libcuda_line(const void *obj, struct field_value *v)
{
	const struct gpu_probe *p = obj;

	return library_line(v, p->cuda_loaded, p->cuda_path, p->cuda_how,
			    p->cuda_load_error[0] ? p->cuda_load_error : "libcuda.so.1 not loaded", NULL);
}

static bool nvml_line(const void *obj, struct field_value *v)
{
	const struct gpu_probe *p = obj;
	const char *why = driver_nvml_error(p);

	return library_line(v, p->nvml_loaded, p->nvml_path, p->nvml_how, p->nvml_load_error,
			    driver_nvml_ok(p) ? NULL : why ? why : "-");
}

static bool cuda_load_error(const void *obj, struct field_value *v)
{
	const struct gpu_probe *p = obj;

	if (p->cuda_loaded)
		return false;
	put_str(v, p->cuda_load_error[0] ? p->cuda_load_error : "libcuda.so.1 not loaded");
	return true;
}

static bool nvml_load_error(const void *obj, struct field_value *v)
{
	const struct gpu_probe *p = obj;

	if (p->nvml_loaded || !p->nvml_load_error[0])
		return false;
	put_str(v, p->nvml_load_error);
	return true;
}

static bool nvml_ok(const void *obj, struct field_value *v)
{
	v->kind = FV_BOOL;
	v->b = driver_nvml_ok(obj);
	return true;
}

static void init_text(const void *obj, char *buf, size_t len)
{
	const struct gpu_probe *p = obj;

	snprintf(buf, len, "%s (%d)", p->cuda_init_result_name[0] ? p->cuda_init_result_name : "?", (int)p->cuda_init_result);
}

static bool kernel_module(const void *obj, struct field_value *v)
{
	const struct gpu_probe *p = obj;

	if (!p->kmod_looked)
		return false; /* not a fact of this platform: no line */
	if (!driver_has(p, DF_KMOD))
		put_str(v, "not loaded (/proc/driver/nvidia/version absent)");
	else
		snprintf(v->buf, sizeof v->buf, "%s%s", driver_has(p, DF_KMOD_VERSION) ? p->kmod_version : "unknown version",
			 p->kmod_open ? " (open kernel module)" : "");
	v->kind = FV_STR;
	v->s = v->buf;
	return true;
}

static void compat_text(const void *obj, char *buf, size_t len)
{
	(void)obj;
	snprintf(buf, len, "yes: a cuda-compat libcuda runs on an older kernel driver (data-center GPUs and Jetson only)");
}

/* NVML's list "nvmlInit (not nvmlInit_v2) nvmlX (not nvmlX_v2)", one item per entry */
static bool nvml_fallbacks(const void *obj, struct field_value *v)
{
	const struct gpu_probe *p = obj;
	size_t used = 0;

	v->buf[0] = '\0';
	for (const char *s = p->nvml_fallbacks; *s && used + 1 < sizeof v->buf;) {
		const char *close = strchr(s, ')');
		size_t n = close ? (size_t)(close - s + 1) : strlen(s);
		int k = snprintf(v->buf + used, sizeof v->buf - used, "%s%.*s", used ? ";" : "", (int)n, s);

		used += k > 0 ? (size_t)k : 0;
		s += n;
		while (*s == ' ')
			s++;
	}
	v->kind = FV_LIST;
	v->s = v->buf;
	v->seps = ";";
	return true;
}

static const struct field_metric loaded_metric = {
	"cudoctor_driver_loaded", "gauge", "1 when libcuda.so.1 was loaded.", 0, NULL, NULL,
};

static const struct field driver_fields[] = {
	{ .key = "version", .label = "driver version", .kind = FK_CHARS, .off = P(user_driver_version),
	  .valid = DF_VERSION, .views = BOTH, .text = version_text, .unknown = "unknown", .prom_label = "version" },
	{ .key = "version_source", .kind = FK_CSTR, .off = P(user_driver_version_source), .valid = DF_VERSION },
	{ .key = "cuda_version", .label = "CUDA (driver API)", .kind = FK_CALC, .valid = DF_CUDA_VERSION, .views = BOTH,
	  .get = cuda_version, .text = cuda_version_text, .prom_label = "cuda" },
	{ .key = "cuda_version_int", .kind = FK_INT, .off = P(cuda_driver_version), .valid = DF_CUDA_VERSION },
	{ .key = "branch", .label = "branch", .kind = FK_CHARS, .off = P(kb_branch), .valid = DF_BRANCH, .views = BOTH },
	{ .label = "libcuda", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = BOTH, .get = libcuda_line },
	{ .key = "loaded", .kind = FK_BOOL, .off = P(cuda_loaded), .valid = FIELD_ALWAYS, .metric = &loaded_metric },
	{ .key = "library_path", .kind = FK_CHARS, .off = P(cuda_path), .valid = FIELD_ALWAYS },
	{ .key = "how", .kind = FK_CHARS, .off = P(cuda_how), .valid = FIELD_ALWAYS },
	{ .key = "load_error", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = cuda_load_error },
	{ .key = "missing_symbols", .label = "missing in libcuda", .kind = FK_WORDS, .off = P(cuda_missing),
	  .valid = FIELD_ALWAYS, .views = FIELD_FULL, .flags = FIELD_QUIET },
	{ .key = "init_result", .kind = FK_INT, .off = P(cuda_init_result), .valid = DF_CUDA_INIT },
	{ .key = "init_result_name", .label = "cuInit", .kind = FK_CHARS, .off = P(cuda_init_result_name),
	  .valid = DF_CUDA_INIT, .views = BOTH, .text = init_text },
	{ .key = "device_count", .label = "CUDA devices", .kind = FK_INT, .off = P(cuda_device_count),
	  .valid = DF_CUDA_DEVICE_COUNT, .views = FIELD_FULL },
	{ .key = "forward_compat", .label = "forward compatibility", .kind = FK_BOOL, .off = P(compat_lib),
	  .valid = FIELD_ALWAYS, .views = BOTH, .flags = FIELD_QUIET, .text = compat_text },
	{ .label = "kernel module", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = BOTH, .get = kernel_module },
	{ .key = "kernel_module_version", .kind = FK_CHARS, .off = P(kmod_version), .valid = DF_KMOD_VERSION },
	{ .key = "kernel_module_open", .kind = FK_BOOL, .off = P(kmod_open), .valid = FIELD_ALWAYS },
	{ .label = "NVML", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = BOTH, .get = nvml_line },
	{ .key = "nvml_ok", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = nvml_ok },
};

const struct field_table driver_field_table = {
	"driver", driver_fields, sizeof driver_fields / sizeof driver_fields[0], P(valid),
	"cudoctor_driver_info", "The NVIDIA driver: its version and the newest CUDA it runs.",
};

static const struct field nvml_fields[] = {
	{ .key = "loaded", .kind = FK_BOOL, .off = P(nvml_loaded), .valid = FIELD_ALWAYS },
	{ .key = "library_path", .kind = FK_CHARS, .off = P(nvml_path), .valid = FIELD_ALWAYS },
	{ .key = "how", .kind = FK_CHARS, .off = P(nvml_how), .valid = FIELD_ALWAYS },
	{ .key = "load_error", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = nvml_load_error },
	{ .key = "missing_symbols", .label = "missing in NVML", .kind = FK_WORDS, .off = P(nvml_missing),
	  .valid = FIELD_ALWAYS, .views = FIELD_FULL, .flags = FIELD_QUIET },
	{ .key = "fallbacks", .label = "older NVML entry points", .kind = FK_CALC, .valid = FIELD_ALWAYS,
	  .views = FIELD_FULL, .flags = FIELD_QUIET, .get = nvml_fallbacks },
	{ .key = "init_result", .kind = FK_INT, .off = P(nvml_init_result), .valid = DF_NVML_INIT },
	{ .key = "init_result_name", .label = "nvmlInit", .kind = FK_CHARS, .off = P(nvml_init_result_name),
	  .valid = DF_NVML_INIT, .views = FIELD_FULL },
	{ .key = "init_result_text", .kind = FK_CHARS, .off = P(nvml_init_result_text), .valid = DF_NVML_INIT },
	{ .key = "version", .label = "NVML version", .kind = FK_CHARS, .off = P(nvml_version), .valid = DF_NVML_VERSION,
	  .views = FIELD_FULL },
	{ .key = "cuda_version_int", .kind = FK_INT, .off = P(nvml_cuda_driver_version), .valid = DF_NVML_CUDA_VERSION },
	{ .key = "device_count", .label = "NVML devices", .kind = FK_INT, .off = P(nvml_device_count),
	  .valid = DF_NVML_DEVICE_COUNT, .views = FIELD_FULL },
};

const struct field_table driver_nvml_field_table = {
	"driver.nvml", nvml_fields, sizeof nvml_fields / sizeof nvml_fields[0], P(valid), NULL, NULL,
};
