/* The GPU count's field table (facts/deploy.h): check's gpu_count object and the metrics
 * an alert compares, GPUs seen by each view against GPUs expected. */
#include <stddef.h>

#include "facts/deploy.h"

#define C(m) offsetof(struct gpu_count, m)

static const struct field_metric m_pci = { "cudoctor_gpus_seen", "gauge",
	"GPUs seen, by where they were counted: the PCI bus (sysfs), NVML, CUDA.", 0, "source", "pci" };
static const struct field_metric m_nvml = { "cudoctor_gpus_seen", "gauge", NULL, 0, "source", "nvml" };
static const struct field_metric m_cuda = { "cudoctor_gpus_seen", "gauge", NULL, 0, "source", "cuda" };
static const struct field_metric m_expected = { "cudoctor_gpus_expected", "gauge",
	"GPUs the node should have: check --expect-gpus, else the NVIDIA GPUs on its PCI bus.", 0, NULL, NULL };

static const struct field fields[] = {
	{ .key = "pci", .label = "on the PCI bus", .kind = FK_LLONG, .off = C(pci), .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .flags = FIELD_NEG_UNKNOWN, .unknown = "unknown (sysfs not readable)", .metric = &m_pci },
	{ .key = "nvml", .label = "listed by NVML", .kind = FK_LLONG, .off = C(nvml), .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .flags = FIELD_NEG_UNKNOWN, .unknown = "unknown (NVML not usable)", .metric = &m_nvml },
	{ .key = "cuda", .label = "listed by CUDA", .kind = FK_LLONG, .off = C(cuda), .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .flags = FIELD_NEG_UNKNOWN, .unknown = "unknown (CUDA not usable)", .metric = &m_cuda },
	{ .key = "expected", .label = "expected", .kind = FK_LLONG, .off = C(expected), .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .flags = FIELD_NEG_UNKNOWN, .unknown = "not said", .metric = &m_expected },
};

const struct field_table gpu_count_field_table = {
	.name = "gpu_count",
	.fields = fields,
	.n = sizeof fields / sizeof fields[0],
	.valid_off = -1,
};
