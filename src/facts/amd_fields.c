/* The AMD facts' field tables: the keys and labels of doctor's and devices' "amd" object
 * (docs/json.md). */
#include <stdio.h>

#include "facts/amd.h"

#define H(m) offsetof(struct amd_host, m)
#define G(m) offsetof(struct amd_gpu, m)
#define N(m) offsetof(struct amd_node, m)

static void module_text(const void *obj, char *buf, size_t len)
{
	const struct amd_host *h = obj;
	if (!h->amdgpu_module)
		snprintf(buf, len, "not loaded");
	else
		snprintf(buf, len, "%s%s%s", h->amdgpu_initstate[0] ? h->amdgpu_initstate : "loaded",
			 h->amdgpu_version[0] ? ", AMD's DKMS driver " : " (the kernel's own driver)", h->amdgpu_version);
}

static void hip_text(const void *obj, char *buf, size_t len)
{
	const struct amd_host *h = obj;
	if (!h->hip_loaded)
		snprintf(buf, len, "not loaded%s%s", h->hip_load_error[0] ? ": " : "", h->hip_load_error);
	else if (h->hip_error)
		snprintf(buf, len, "HIP %d.%d: hipGetDeviceCount failed (hipError_t %d)", h->hip_runtime_version / 10000000,
			 h->hip_runtime_version / 100000 % 100, h->hip_error);
	else
		snprintf(buf, len, "HIP %d.%d, %d device%s", h->hip_runtime_version / 10000000,
			 h->hip_runtime_version / 100000 % 100, h->hip_device_count, h->hip_device_count == 1 ? "" : "s");
}

static const struct field host_fields[] = {
	{ .key = "kfd", .label = "KFD topology", .kind = FK_BOOL, .off = H(kfd), .valid = FIELD_ALWAYS, .views = FIELD_ALL },
	{ .key = "amdgpu_module", .label = "amdgpu module", .kind = FK_BOOL, .off = H(amdgpu_module),
	  .valid = FIELD_ALWAYS, .views = FIELD_ALL, .text = module_text },
	{ .key = "amdgpu_initstate", .kind = FK_CHARS, .off = H(amdgpu_initstate), .valid = FIELD_ALWAYS },
	{ .key = "amdgpu_version", .kind = FK_CHARS, .off = H(amdgpu_version), .valid = FIELD_ALWAYS },
	{ .key = "user", .label = "user", .kind = FK_CHARS, .off = H(user), .valid = FIELD_ALWAYS, .views = FIELD_FULL },
	{ .key = "rocm_version", .label = "ROCm", .kind = FK_CHARS, .off = H(rocm_version), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL, .unknown = "not installed (no /opt/rocm*/.info/version)" },
	{ .key = "rocm_path", .label = "ROCm path", .kind = FK_CHARS, .off = H(rocm_path), .valid = FIELD_ALWAYS,
	  .views = FIELD_FULL },
	{ .key = "hip_library", .label = "libamdhip64", .kind = FK_CHARS, .off = H(hip_library), .valid = FIELD_ALWAYS,
	  .views = FIELD_FULL, .unknown = "not found" },
	{ .key = "hsa_library", .label = "libhsa-runtime64", .kind = FK_CHARS, .off = H(hsa_library),
	  .valid = FIELD_ALWAYS, .views = FIELD_FULL, .unknown = "not found" },
	{ .key = "hip_loaded", .label = "HIP runtime", .kind = FK_BOOL, .off = H(hip_loaded), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL, .text = hip_text },
	{ .key = "hip_runtime_version", .kind = FK_INT, .off = H(hip_runtime_version), .valid = FIELD_ALWAYS,
	  .flags = FIELD_ZERO_UNKNOWN },
	{ .key = "hip_device_count", .kind = FK_INT, .off = H(hip_device_count), .valid = FIELD_ALWAYS,
	  .flags = FIELD_NEG_UNKNOWN },
	{ .key = "hip_error", .kind = FK_INT, .off = H(hip_error), .valid = FIELD_ALWAYS, .flags = FIELD_ZERO_UNKNOWN },
	{ .key = "hsa_override_gfx_version", .label = "HSA_OVERRIDE_GFX_VERSION", .kind = FK_CSTR, .off = H(hsa_override),
	  .valid = FIELD_ALWAYS, .views = FIELD_ALL },
	{ .key = "hip_visible_devices", .label = "HIP_VISIBLE_DEVICES", .kind = FK_CSTR, .off = H(hip_visible),
	  .valid = FIELD_ALWAYS, .views = FIELD_ALL },
	{ .key = "rocr_visible_devices", .label = "ROCR_VISIBLE_DEVICES", .kind = FK_CSTR, .off = H(rocr_visible),
	  .valid = FIELD_ALWAYS, .views = FIELD_ALL },
	{ .key = "hsa_xnack", .label = "HSA_XNACK", .kind = FK_CSTR, .off = H(hsa_xnack), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL },
	{ .key = "nvidia_pci_gpus", .label = "NVIDIA GPUs on the PCI bus", .kind = FK_INT, .off = H(nvidia_pci_gpus),
	  .valid = FIELD_ALWAYS, .views = FIELD_FULL, .flags = FIELD_NEG_UNKNOWN },
	{ .key = "nvidia_module", .kind = FK_BOOL, .off = H(nvidia_module), .valid = FIELD_ALWAYS },
};

const struct field_table amd_host_field_table = {
	"amd", host_fields, sizeof host_fields / sizeof host_fields[0], -1, NULL, NULL,
};

static const struct field gpu_fields[] = {
	{ .key = "node", .label = "KFD node", .kind = FK_INT, .off = G(node), .valid = FIELD_ALWAYS, .views = FIELD_ALL },
	{ .key = "gfx", .label = "target", .kind = FK_CHARS, .off = G(gfx), .valid = FIELD_ALWAYS, .views = FIELD_ALL },
	{ .key = "gfx_target_version", .kind = FK_UINT, .off = G(gfx_target_version), .valid = FIELD_ALWAYS },
	{ .key = "product", .label = "product", .kind = FK_CHARS, .off = G(product), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL },
	{ .key = "vram_bytes", .label = "VRAM", .kind = FK_LLONG, .unit = FU_BYTES, .off = G(vram_bytes),
	  .valid = FIELD_ALWAYS, .views = FIELD_ALL, .flags = FIELD_NEG_UNKNOWN, .unknown = "-" },
	{ .key = "compute_units", .label = "compute units", .kind = FK_UINT, .off = G(cu_count), .valid = FIELD_ALWAYS,
	  .views = FIELD_FULL, .flags = FIELD_ZERO_UNKNOWN },
	{ .key = "simd_count", .kind = FK_UINT, .off = G(simd_count), .valid = FIELD_ALWAYS },
	{ .key = "vendor_id", .kind = FK_UINT, .off = G(vendor_id), .valid = FIELD_ALWAYS },
	{ .key = "device_id", .label = "PCI device", .kind = FK_UINT, .off = G(device_id), .valid = FIELD_ALWAYS,
	  .views = FIELD_FULL },
	{ .key = "revision_id", .kind = FK_UINT, .off = G(revision_id), .valid = FIELD_ALWAYS },
	{ .key = "render_minor", .kind = FK_INT, .off = G(render_minor), .valid = FIELD_ALWAYS, .flags = FIELD_NEG_UNKNOWN },
	{ .key = "card", .label = "DRM card", .kind = FK_CHARS, .off = G(card), .valid = FIELD_ALWAYS, .views = FIELD_FULL },
};

const struct field_table amd_gpu_field_table = {
	"amd.gpus[]", gpu_fields, sizeof gpu_fields / sizeof gpu_fields[0], -1, NULL, NULL,
};

static const struct field node_fields[] = {
	{ .key = "path", .label = "node", .kind = FK_CHARS, .off = N(path), .valid = FIELD_ALWAYS, .views = FIELD_ALL },
	{ .key = "exists", .label = "exists", .kind = FK_BOOL, .off = N(exists), .valid = FIELD_ALWAYS, .views = FIELD_ALL },
	{ .key = "group", .label = "group", .kind = FK_CHARS, .off = N(group), .valid = FIELD_ALWAYS, .views = FIELD_ALL },
	{ .key = "user_in_group", .label = "user in group", .kind = FK_INT, .unit = FU_YESNO, .off = N(user_in_group),
	  .valid = FIELD_ALWAYS, .views = FIELD_ALL, .flags = FIELD_NEG_UNKNOWN },
	{ .key = "opens", .label = "user may open", .kind = FK_BOOL, .off = N(opens), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL },
	{ .key = "accessible", .kind = FK_BOOL, .off = N(accessible), .valid = FIELD_ALWAYS },
	{ .key = "mode", .kind = FK_UINT, .off = N(mode), .valid = FIELD_ALWAYS },
	{ .key = "gid", .kind = FK_UINT, .off = N(gid), .valid = FIELD_ALWAYS },
};

const struct field_table amd_node_field_table = {
	"amd.nodes[]", node_fields, sizeof node_fields / sizeof node_fields[0], -1, NULL, NULL,
};
