/* The load results' field table (check/fields.h): JSON keys under load.gpus[] and their
 * Prometheus metrics, labelled like the GPU facts' metrics (gpu, uuid, name). */
#include <stddef.h>
#include <stdio.h>

#include "check/fields.h"

#define L(m) offsetof(struct check_load_gpu, m)

void check_load_gpu_init(struct check_load_gpu *g, const struct gpu_info *gi)
{
	*g = (struct check_load_gpu){ gi, -1, -1, -1, -1, -1, -1, -1, -1 };
}

/* nvidia-smi's index where NVML saw the GPU, else its CUDA ordinal, as the GPU metrics say */
static bool gpu_label(const void *obj, struct field_value *v)
{
	const struct check_load_gpu *g = obj;
	int i = g->gi ? gpu_pci_index(g->gi) : -1;

	if (i < 0)
		return false;
	v->kind = FV_INT;
	v->i = i;
	return true;
}

static bool uuid_label(const void *obj, struct field_value *v)
{
	const struct check_load_gpu *g = obj;

	if (!g->gi || !g->gi->uuid[0])
		return false;
	v->kind = FV_STR;
	v->s = g->gi->uuid;
	return true;
}

static bool name_label(const void *obj, struct field_value *v)
{
	const struct check_load_gpu *g = obj;

	if (!g->gi || !g->gi->name[0])
		return false;
	v->kind = FV_STR;
	v->s = g->gi->name;
	return true;
}

static const struct field_metric m_mem_bw = { "cudoctor_load_memory_bandwidth_bytes_per_second", "gauge",
	"The load memory test's bandwidth (bytes written plus read back, over its passes).", 0, NULL, NULL };
static const struct field_metric m_mem_errors = { "cudoctor_load_memory_errors", "gauge",
	"64-bit words the load memory test read back wrong in this run.", 0, NULL, NULL };
static const struct field_metric m_gemm = { "cudoctor_load_gemm_flop_per_second", "gauge",
	"The load GEMM stress's sustained rate (the median of its last batches).", 0, NULL, NULL };
static const struct field_metric m_mismatch = { "cudoctor_load_gemm_mismatches", "gauge",
	"GEMM results of the load stress that differed from the reference.", 0, NULL, NULL };
static const struct field_metric m_h2d = { "cudoctor_load_copy_bytes_per_second", "gauge",
	"Pinned host-device copies of the load run, per direction.", 0, "direction", "h2d" };
static const struct field_metric m_d2h = { "cudoctor_load_copy_bytes_per_second", "gauge", NULL, 0, "direction",
					   "d2h" };
static const struct field_metric m_temp = { "cudoctor_load_temperature_max_celsius", "gauge",
	"The hottest GPU temperature sampled under load.", 0, NULL, NULL };
static const struct field_metric m_reasons = { "cudoctor_load_clock_event_reasons", "gauge",
	"NVML's clock event reasons seen under load, OR-ed (a bit mask of NVML_CLOCKS_EVENT_*).", 0, NULL, NULL };

static const struct field fields[CLF_N] = {
	[CLF_GPU] = { .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = gpu_label, .prom_label = "gpu",
		      .flags = FIELD_PROM_ID },
	[CLF_UUID] = { .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = uuid_label, .prom_label = "uuid",
		       .flags = FIELD_PROM_ID },
	[CLF_NAME] = { .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = name_label, .prom_label = "name",
		       .flags = FIELD_PROM_ID },
	[CLF_MEM_BW] = { .key = "bandwidth_bytes_per_s", .label = "bandwidth (GB/s)", .kind = FK_DOUBLE,
			 .off = L(mem_bytes_per_s), .valid = FIELD_ALWAYS, .flags = FIELD_NEG_UNKNOWN | FIELD_OMIT,
			 .metric = &m_mem_bw },
	[CLF_MEM_ERRORS] = { .key = "errors", .label = "errors", .kind = FK_LLONG, .off = L(mem_errors),
			     .valid = FIELD_ALWAYS, .flags = FIELD_NEG_UNKNOWN | FIELD_OMIT, .metric = &m_mem_errors },
	[CLF_GEMM_FLOPS] = { .key = "gemm_flops", .label = "TFLOP/s", .kind = FK_DOUBLE, .off = L(gemm_flops),
			     .valid = FIELD_ALWAYS, .flags = FIELD_NEG_UNKNOWN | FIELD_OMIT, .metric = &m_gemm },
	[CLF_GEMM_MISMATCHES] = { .key = "gemm_mismatches", .label = "mismatches", .kind = FK_LLONG,
				  .off = L(gemm_mismatches), .valid = FIELD_ALWAYS,
				  .flags = FIELD_NEG_UNKNOWN | FIELD_OMIT, .metric = &m_mismatch },
	[CLF_COPY_H2D] = { .key = "copy_h2d_bytes_per_s", .label = "H2D / D2H (GB/s)", .kind = FK_DOUBLE,
			   .off = L(copy_h2d), .valid = FIELD_ALWAYS, .flags = FIELD_NEG_UNKNOWN | FIELD_OMIT,
			   .metric = &m_h2d },
	[CLF_COPY_D2H] = { .key = "copy_d2h_bytes_per_s", .kind = FK_DOUBLE, .off = L(copy_d2h), .valid = FIELD_ALWAYS,
			   .flags = FIELD_NEG_UNKNOWN | FIELD_OMIT, .metric = &m_d2h },
	[CLF_MAX_TEMP] = { .key = "max_temperature_c", .kind = FK_INT, .unit = FU_CELSIUS, .off = L(max_temperature_c),
			   .valid = FIELD_ALWAYS, .flags = FIELD_NEG_UNKNOWN, .metric = &m_temp },
	[CLF_REASONS] = { .key = "clock_event_reasons", .kind = FK_LLONG, .off = L(clock_event_reasons),
			  .valid = FIELD_ALWAYS, .flags = FIELD_NEG_UNKNOWN, .metric = &m_reasons },
};

const struct field_table check_load_gpu_field_table = { .name = "load.gpus[]", .fields = fields, .n = CLF_N,
							 .valid_off = -1 };

/* the health gauge's labels: the same GPU label as every GPU metric, its UUID and bus id */
static bool health_gpu(const void *obj, struct field_value *v)
{
	const struct check_gpu_health *h = obj;
	struct check_load_gpu g = { .gi = h->gi };

	return gpu_label(&g, v);
}

static bool health_uuid(const void *obj, struct field_value *v)
{
	const struct check_gpu_health *h = obj;
	struct check_load_gpu g = { .gi = h->gi };

	return uuid_label(&g, v);
}

static bool health_bus(const void *obj, struct field_value *v)
{
	const struct check_gpu_health *h = obj;

	if (!h->gi || !h->gi->pci_bus_id[0])
		return false;
	v->kind = FV_STR;
	v->s = h->gi->pci_bus_id;
	return true;
}

static const struct field_metric m_healthy = { "cudoctor_gpu_healthy", "gauge",
	"1 when no finding about the GPU is an error (check's verdict line), else 0.", 0, NULL, NULL };

static const struct field health_fields[] = {
	{ .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = health_gpu, .prom_label = "gpu", .flags = FIELD_PROM_ID },
	{ .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = health_uuid, .prom_label = "uuid", .flags = FIELD_PROM_ID },
	{ .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = health_bus, .prom_label = "pci_bus_id", .flags = FIELD_PROM_ID },
	{ .key = "healthy", .kind = FK_BOOL, .off = offsetof(struct check_gpu_health, healthy), .valid = FIELD_ALWAYS,
	  .metric = &m_healthy },
};

const struct field_table check_gpu_health_field_table = {
	.name = "gpus[]",
	.fields = health_fields,
	.n = sizeof health_fields / sizeof health_fields[0],
	.valid_off = -1,
};
