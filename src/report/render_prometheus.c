/* Prometheus renderer: doctor's and devices' findings and GPU facts as metrics in the text
 * exposition format, for node_exporter's textfile collector (docs/prometheus.md). It reads
 * the report's JSON object, so a metric always says what --json says. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/render.h"
#include "report/render_internal.h"
#include "util/err.h"

/* A label value or HELP text: backslash, double quote (labels only) and newline escaped,
 * as the exposition format asks. */
static void put_escaped(const char *s, bool label, FILE *out)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '"' && label)
			fputs("\\\"", out);
		else
			fputc(*s, out);
	}
}

static void put_family(const char *name, const char *type, const char *help, FILE *out)
{
	fprintf(out, "# HELP %s ", name);
	put_escaped(help, false, out);
	fprintf(out, "\n# TYPE %s %s\n", name, type);
}

/* name{k1="v1",...} value; labels: NULL-terminated name/value pairs, NULL values left out */
static void put_sample(const char *name, const char *const *labels, double value, FILE *out)
{
	bool first = true;

	fputs(name, out);
	for (size_t i = 0; labels && labels[i]; i += 2) {
		if (!labels[i + 1])
			continue;
		fprintf(out, "%s%s=\"", first ? "{" : ",", labels[i]);
		put_escaped(labels[i + 1], true, out);
		fputc('"', out);
		first = false;
	}
	if (!first)
		fputc('}', out);
	if (isnan(value))
		fputs(" NaN\n", out);
	else if (value == floor(value) && fabs(value) < 1e15)
		fprintf(out, " %.0f\n", value);
	else
		fprintf(out, " %.17g\n", value);
}

/* A number, a boolean as 0/1; false when the key is missing or null. */
static bool number_of(const json_t *o, const char *key, double *v)
{
	const json_t *j = json_object_get(o, key);

	if (json_is_number(j))
		*v = json_number_value(j);
	else if (json_is_boolean(j))
		*v = json_is_true(j);
	else
		return false;
	return true;
}

/* One GPU metric from a key of gpus[] (doctor's and devices' objects share key names). */
struct gpu_metric {
	const char *name, *type, *help, *key;
	double scale;
	const char *extra_label, *extra_value; /* one more label, for metrics split by kind */
};

static const struct gpu_metric gpu_metrics[] = {
	{ "cudoctor_gpu_memory_total_bytes", "gauge", "Memory of the GPU in bytes.", "memory_total_bytes", 1, NULL, NULL },
	{ "cudoctor_gpu_memory_used_bytes", "gauge", "Memory in use on the GPU in bytes (NVML).", "memory_used_bytes", 1, NULL, NULL },
	{ "cudoctor_gpu_memory_free_bytes", "gauge", "Free memory on the GPU in bytes (NVML).", "memory_free_bytes", 1, NULL, NULL },
	{ "cudoctor_gpu_temperature_celsius", "gauge", "GPU core temperature in degrees Celsius.", "temperature_gpu_c", 1, NULL, NULL },
	{ "cudoctor_gpu_power_draw_watts", "gauge", "Power drawn by the GPU in watts.", "power_draw_mw", 1e-3, NULL, NULL },
	{ "cudoctor_gpu_power_limit_watts", "gauge", "The GPU's power limit in watts.", "power_limit_mw", 1e-3, NULL, NULL },
	{ "cudoctor_gpu_clock_hertz", "gauge", "Current clock of the GPU in hertz, by clock domain.", "clock_sm_mhz", 1e6, "clock", "sm" },
	{ "cudoctor_gpu_clock_hertz", "gauge", NULL, "clock_memory_mhz", 1e6, "clock", "memory" },
	{ "cudoctor_gpu_clock_hertz", "gauge", NULL, "clock_graphics_mhz", 1e6, "clock", "graphics" },
	{ "cudoctor_gpu_pcie_link_generation", "gauge", "Current PCIe generation of the GPU's link.", "pcie_link_gen_current", 1, NULL, NULL },
	{ "cudoctor_gpu_pcie_link_width_lanes", "gauge", "Current PCIe width of the GPU's link in lanes.", "pcie_link_width_current", 1, NULL, NULL },
	{ "cudoctor_gpu_ecc_errors_total", "counter", "ECC errors of the GPU since the driver loaded (volatile) or over its lifetime (aggregate).",
	  "ecc_errors_corrected_volatile", 1, "type", "corrected_volatile" },
	{ "cudoctor_gpu_ecc_errors_total", "counter", NULL, "ecc_errors_uncorrected_volatile", 1, "type", "uncorrected_volatile" },
	{ "cudoctor_gpu_ecc_errors_total", "counter", NULL, "ecc_errors_corrected_aggregate", 1, "type", "corrected_aggregate" },
	{ "cudoctor_gpu_ecc_errors_total", "counter", NULL, "ecc_errors_uncorrected_aggregate", 1, "type", "uncorrected_aggregate" },
	{ "cudoctor_gpu_retired_pages", "gauge", "Memory pages the GPU retired, by cause.", "retired_pages_single_bit_ecc", 1, "cause", "single_bit_ecc" },
	{ "cudoctor_gpu_retired_pages", "gauge", NULL, "retired_pages_double_bit_ecc", 1, "cause", "double_bit_ecc" },
	{ "cudoctor_gpu_remapped_rows", "gauge", "Memory rows the GPU remapped, by kind of error.", "remapped_rows_correctable", 1, "type", "correctable" },
	{ "cudoctor_gpu_remapped_rows", "gauge", NULL, "remapped_rows_uncorrectable", 1, "type", "uncorrectable" },
	{ "cudoctor_gpu_persistence_mode", "gauge", "1 when persistence mode is on.", "persistence_mode", 1, NULL, NULL },
	{ "cudoctor_gpu_mig_mode", "gauge", "1 when MIG mode is on.", "mig_mode_current", 1, NULL, NULL },
	{ "cudoctor_gpu_mig_mode", "gauge", NULL, "mig_mode", 1, NULL, NULL },
	{ "cudoctor_gpu_lost", "gauge", "1 when NVML reports the GPU as lost (fallen off the bus).", "gpu_lost", 1, NULL, NULL },
};

/* The gpu label: nvidia-smi's index where NVML saw the GPU, else the CUDA ordinal. */
static void gpu_label(const json_t *g, char *buf, size_t n)
{
	const char *const keys[] = { "nvml_index", "cuda_ordinal", "index" };

	buf[0] = '\0';
	for (size_t k = 0; k < 3 && !buf[0]; k++)
		if (json_is_integer(json_object_get(g, keys[k])))
			snprintf(buf, n, "%lld", (long long)json_integer_value(json_object_get(g, keys[k])));
}

static void gpu_families(const json_t *gpus, FILE *out)
{
	const size_t n_metrics = sizeof gpu_metrics / sizeof gpu_metrics[0];

	for (size_t m = 0; m < n_metrics; m++) {
		const struct gpu_metric *gm = &gpu_metrics[m];
		bool any = false;

		/* a family's samples stand together under one HELP and TYPE */
		if (!gm->help)
			continue;
		for (size_t k = m; k < n_metrics && (k == m || !gpu_metrics[k].help); k++) {
			for (size_t i = 0; i < json_array_size(gpus); i++) {
				const json_t *g = json_array_get(gpus, i);
				char idx[24];
				double v;

				if (!number_of(g, gpu_metrics[k].key, &v))
					continue;
				gpu_label(g, idx, sizeof idx);
				const char *labels[] = { "gpu", idx[0] ? idx : NULL,
							 "uuid", json_string_value(json_object_get(g, "uuid")),
							 "name", json_string_value(json_object_get(g, "name")),
							 gpu_metrics[k].extra_label, gpu_metrics[k].extra_value, NULL };
				if (!any)
					put_family(gm->name, gm->type, gm->help, out);
				any = true;
				put_sample(gm->name, labels, v * gpu_metrics[k].scale, out);
			}
		}
	}
}

static void gpu_info(const json_t *gpus, FILE *out)
{
	for (size_t i = 0; i < json_array_size(gpus); i++) {
		const json_t *g = json_array_get(gpus, i);
		char idx[24];

		gpu_label(g, idx, sizeof idx);
		const char *labels[] = { "gpu", idx[0] ? idx : NULL,
					 "uuid", json_string_value(json_object_get(g, "uuid")),
					 "name", json_string_value(json_object_get(g, "name")),
					 "compute_capability", json_string_value(json_object_get(g, "compute_capability")),
					 "pci_bus_id", json_string_value(json_object_get(g, "pci_bus_id")), NULL };
		if (i == 0)
			put_family("cudoctor_gpu_info", "gauge", "A GPU this report saw; its facts are in the labels.", out);
		put_sample("cudoctor_gpu_info", labels, 1, out);
	}
}

/* doctor says driver.version and driver.cuda_version; devices driver_version and
 * libcuda.cuda_version */
static void driver_info(const json_t *root, FILE *out)
{
	const json_t *d = json_object_get(root, "driver"), *cu = json_object_get(root, "libcuda");
	const char *version = json_string_value(json_object_get(d, "version"));
	const char *cuda = json_string_value(json_object_get(d, "cuda_version"));
	double loaded;

	if (!version)
		version = json_string_value(json_object_get(root, "driver_version"));
	if (!cuda)
		cuda = json_string_value(json_object_get(cu, "cuda_version"));
	if (number_of(d, "loaded", &loaded) || number_of(cu, "loaded", &loaded)) {
		put_family("cudoctor_driver_loaded", "gauge", "1 when libcuda.so.1 was loaded.", out);
		put_sample("cudoctor_driver_loaded", NULL, loaded, out);
	}
	if (version || cuda) {
		const char *labels[] = { "version", version, "cuda", cuda, NULL };

		put_family("cudoctor_driver_info", "gauge",
			   "The NVIDIA driver: its version and the newest CUDA it runs.", out);
		put_sample("cudoctor_driver_info", labels, 1, out);
	}
}

static void findings(const struct report *r, FILE *out)
{
	size_t by_sev[4] = { 0 };

	put_family("cudoctor_findings", "gauge",
		   "Findings of this report by id and severity (ids are listed in docs/findings.md).", out);
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct finding *f = &r->findings[i];
		size_t n = 0;
		bool seen = false;

		by_sev[f->severity]++;
		for (size_t k = 0; k < i && !seen; k++)
			seen = strcmp(r->findings[k].id, f->id) == 0 && r->findings[k].severity == f->severity;
		if (seen)
			continue;
		for (size_t k = i; k < r->n_findings; k++)
			n += strcmp(r->findings[k].id, f->id) == 0 && r->findings[k].severity == f->severity;
		const char *labels[] = { "id", f->id, "severity", severity_name(f->severity), NULL };
		put_sample("cudoctor_findings", labels, (double)n, out);
	}
	put_family("cudoctor_findings_by_severity", "gauge", "How many findings of each severity this report has.", out);
	for (int s = SEV_ERROR; s >= SEV_OK; s--) {
		const char *labels[] = { "severity", severity_name((enum severity)s), NULL };

		put_sample("cudoctor_findings_by_severity", labels, (double)by_sev[s], out);
	}
}

int render_prometheus(const struct report *r, const struct render_opts *o, FILE *out)
{
	json_t *root = report_to_json(r);
	const char *version;

	(void)o;
	if (!root)
		return CD_ENOMEM;
	version = json_string_value(json_object_get(root, "version"));
	put_family("cudoctor_up", "gauge", "1: cudoctor ran to the end and wrote this report.", out);
	{
		const char *labels[] = { "command", r->command, NULL };

		put_sample("cudoctor_up", labels, 1, out);
	}
	put_family("cudoctor_build_info", "gauge", "The cudoctor that wrote this report.", out);
	{
		const char *labels[] = { "version", version, NULL };

		put_sample("cudoctor_build_info", labels, 1, out);
	}
	findings(r, out);
	driver_info(root, out);
	gpu_info(json_object_get(root, "gpus"), out);
	gpu_families(json_object_get(root, "gpus"), out);
	json_decref(root);
	return ferror(out) ? CD_EIO : CD_OK;
}
