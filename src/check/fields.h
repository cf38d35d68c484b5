/* One GPU's load results as the report writes them: the numbers a row of check's load table
 * holds that have a metric (--format prometheus), each described once with its JSON key. */
#ifndef CUDOCTOR_CHECK_FIELDS_H
#define CUDOCTOR_CHECK_FIELDS_H

#include "facts/gpu.h"
#include "util/field.h"

struct check_load_gpu {
	const struct gpu_info *gi;    /* the GPU: the metrics' gpu, uuid and name labels */
	double mem_bytes_per_s;       /* the memory test's bandwidth; < 0 not measured */
	long long mem_errors;         /* words read back wrong; < 0 not run */
	double gemm_flops;            /* the GEMM stress's sustained FLOP/s; < 0 not run */
	long long gemm_mismatches;    /* < 0 not run */
	double copy_h2d, copy_d2h;    /* pinned copies, bytes/s; < 0 not run */
	int max_temperature_c;        /* the hottest sample under load; < 0 unknown */
	long long clock_event_reasons; /* NVML's reasons seen in any sample under load, OR-ed; < 0 unknown */
};

/* Sets every number unknown, for gi. */
void check_load_gpu_init(struct check_load_gpu *g, const struct gpu_info *gi);

enum check_load_field {
	CLF_GPU,
	CLF_UUID,
	CLF_NAME,
	CLF_MEM_BW,
	CLF_MEM_ERRORS,
	CLF_GEMM_FLOPS,
	CLF_GEMM_MISMATCHES,
	CLF_COPY_H2D,
	CLF_COPY_D2H,
	CLF_MAX_TEMP,
	CLF_REASONS,
	CLF_N
};

extern const struct field_table check_load_gpu_field_table;

/* One GPU's verdict as a health gauge (dcgm-exporter's DCGM_EXP_GPU_HEALTH_STATUS): healthy
 * unless a finding about it is an error. */
struct check_gpu_health {
	const struct gpu_info *gi;
	bool healthy;
};
extern const struct field_table check_gpu_health_field_table;

#endif
