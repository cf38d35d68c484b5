/* doctor's rules for an AMD machine: KFD up with GPU nodes, every device node openable by the
 * user (rocm-kfd-access, with the group that owns it), HIP seeing what KFD sees, and
 * HSA_OVERRIDE_GFX_VERSION / HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES against the GPUs. */
#include "rules/amd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb/amd.h"
#include "kb/amd_driver.h"
#include "rules/arch.h"
#include "rules/catalogue.h"
#include "util/err.h"

bool rules_amd_present(const struct amd_host *h)
{
	return h->n_gpus || h->amdgpu_module || (h->n_nodes && h->nodes[0].exists);
}

bool rules_amd_only(const struct amd_host *h, const struct gpu_probe *d)
{
	if (!rules_amd_present(h) || h->nvidia_pci_gpus > 0 || h->nvidia_module)
		return false;
	if (d && (d->n_gpus > 0 || (driver_has(d, DF_NVML_DEVICE_COUNT) && d->nvml_device_count > 0) ||
		  (driver_has(d, DF_CUDA_DEVICE_COUNT) && d->cuda_device_count > 0)))
		return false;
	return true;
}

static int kfd_rule(struct report *r, const struct amd_host *h)
{
	struct finding_vars v;
	struct finding *f;

	if (!h->amdgpu_module || h->n_gpus)
		return CD_OK;
	finding_vars_init(&v);
	f = finding_make(r, SEV_CATALOGUE, "amd-kfd-no-gpu", "amdgpu", &v);
	if (!f || finding_evidence(f, "/sys/module/amdgpu/initstate: %s", h->amdgpu_initstate[0] ? h->amdgpu_initstate : "(none)") ||
	    finding_evidence(f, "%s", h->kfd ? "/sys/class/kfd/kfd/topology/nodes has no node with a gfx_target_version"
					     : "no /sys/class/kfd: the driver did not bring up its compute interface"))
		return CD_ENOMEM;
	return CD_OK;
}

static int node_rule(struct report *r, const struct amd_host *h)
{
	const struct amd_node *bad = NULL;
	struct finding_vars v;
	struct finding *f;

	for (size_t i = 0; i < h->n_nodes && !bad; i++)
		if (!h->nodes[i].exists ? h->n_gpus > 0 : !h->nodes[i].opens)
			bad = &h->nodes[i];
	if (!bad)
		return CD_OK;
	finding_vars_init(&v);
	finding_var(&v, "node", "%s", bad->path);
	if (h->user[0])
		finding_var(&v, "user", "%s", h->user);
	if (bad->group[0])
		finding_var(&v, "group", "%s", bad->group);
	finding_var(&v, "gpus", "%zu", h->n_gpus);
	f = finding_make(r, SEV_ERROR, bad->exists ? "rocm-kfd-access" : "rocm-kfd-access/missing", bad->path, &v);
	if (!f)
		return CD_ENOMEM;
	for (size_t i = 0; i < h->n_nodes; i++) {
		const struct amd_node *n = &h->nodes[i];
		int rc = n->exists ? finding_evidence(f, "%s: mode %03o, group %s%s, %s", n->path, n->mode,
						      n->group[0] ? n->group : "?",
						      n->user_in_group == 1 ? " (the user is in it)"
						      : n->user_in_group == 0 ? " (the user is not in it)" : "",
						      n->opens ? "opens" : "the user may not open it")
				   : finding_evidence(f, "%s: missing", n->path);
		if (rc)
			return CD_ENOMEM;
	}
	return CD_OK;
}

static int hip_rule(struct report *r, const struct amd_host *h)
{
	struct finding_vars v;
	struct finding *f;

	if (!h->hip_loaded || !h->n_gpus || (h->hip_device_count > 0 && !h->hip_error))
		return CD_OK;
	finding_vars_init(&v);
	finding_var(&v, "gpus", "%zu", h->n_gpus);
	f = finding_make(r, SEV_CATALOGUE, "amd-hip-no-device", "HIP", &v);
	if (!f || (h->hip_error && finding_evidence(f, "hipGetDeviceCount failed: hipError_t %d", h->hip_error)) ||
	    (h->hip_visible && finding_evidence(f, "HIP_VISIBLE_DEVICES=%s", h->hip_visible)) ||
	    (h->rocr_visible && finding_evidence(f, "ROCR_VISIBLE_DEVICES=%s", h->rocr_visible)))
		return CD_ENOMEM;
	return CD_OK;
}

/* A visibility variable that hides every GPU or names one past the last. */
static int visible_rule(struct report *r, const struct amd_host *h, const char *name, const char *value)
{
	char buf[256];
	size_t named = 0, past = 0;
	struct finding_vars v;
	struct finding *f;

	if (!value || !h->n_gpus)
		return CD_OK;
	snprintf(buf, sizeof buf, "%s", value);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		char *end;
		long k = strtol(tok, &end, 10);
		named++;
		if (*end == 0 && (k < 0 || (size_t)k >= h->n_gpus))
			past++;
	}
	if (named && !past)
		return CD_OK;
	finding_vars_init(&v);
	finding_var(&v, "variable", "%s", name);
	finding_var(&v, "value", "%s", value);
	finding_flag(&v, "named", named > 0);
	finding_var(&v, "last", "%zu", h->n_gpus - 1);
	f = finding_make(r, SEV_CATALOGUE, "amd-visible-devices", name, &v);
	if (!f || finding_evidence(f, "KFD shows %zu GPU%s (indices 0 to %zu)", h->n_gpus, h->n_gpus == 1 ? "" : "s", h->n_gpus - 1))
		return CD_ENOMEM;
	return CD_OK;
}

static int override_rule(struct report *r, const struct amd_host *h)
{
	char gfx[32];
	if (!h->hsa_override || !arch_amd_override_gfx(h->hsa_override, gfx, sizeof gfx))
		return CD_OK;
	for (size_t i = 0; i < h->n_gpus; i++) {
		const struct amd_gpu *g = &h->gpus[i];
		const struct kb_amd_target *a = kb_amd_target_find(g->gfx), *b = kb_amd_target_find(gfx);
		bool family = a && b && a->generic && b->generic && strcmp(a->generic, b->generic) == 0;
		char subject[64];
		struct finding *f;

		if (strcmp(gfx, g->gfx) == 0)
			continue;
		snprintf(subject, sizeof subject, "GPU %zu (%s)", i, g->gfx);
		if (family) {
			struct finding_vars v;

			finding_vars_init(&v);
			finding_var(&v, "override", "%s", h->hsa_override);
			finding_var(&v, "gfx", "%s", g->gfx);
			finding_var(&v, "override_target", "%s", gfx);
			if (!(f = finding_make(r, SEV_CATALOGUE, "amd-override-set", subject, &v)))
				return CD_ENOMEM;
		} else {
			struct finding_vars v;
			finding_vars_init(&v);
			finding_var(&v, "override", "%s", h->hsa_override);
			finding_var(&v, "override_target", "%s", gfx);
			finding_var(&v, "gfx", "%s", g->gfx);
			if (!(f = finding_make(r, SEV_ERROR, "rocm-gfx-override-wrong", subject, &v)) ||
			    finding_evidence(f, "%s is not of %s's family%s%s", gfx, g->gfx, a && a->generic ? " " : "",
					     a && a->generic ? a->generic : ""))
				return CD_ENOMEM;
		}
	}
	return CD_OK;
}

bool rules_amd_window(const struct amd_host *h, struct amd_window *w)
{
	memset(w, 0, sizeof *w);
	if (!h->amdgpu_version[0] || !h->rocm_version[0])
		return false;
	w->judged = true;
	w->driver = kb_amdgpu_driver_of_module(h->amdgpu_version);
	w->inside = w->driver && kb_amdgpu_supports(w->driver, h->rocm_version);
	return w->driver != NULL;
}

/* The installed ROCm outside the DKMS driver's support window (kb/amdgpu_drivers.tsv). The
 * kernel's own amdgpu writes no version: AMD's window is for its DKMS driver, so it stays
 * unjudged there. */
static int window_rule(struct report *r, const struct amd_host *h)
{
	struct amd_window w;
	struct finding_vars v;
	struct finding *f;
	char rel[16];

	if (!rules_amd_window(h, &w) || w.inside)
		return CD_OK;
	/* the fix names only the release's digits: the version file's other text is not pasted */
	snprintf(rel, sizeof rel, "%.*s", (int)strspn(h->rocm_version, "0123456789."), h->rocm_version);
	finding_vars_init(&v);
	finding_var(&v, "rocm", "%s", h->rocm_version);
	finding_var(&v, "rocm_release", "%s", rel);
	finding_var(&v, "driver", "%s", w.driver->driver);
	finding_var(&v, "driver_rocm", "%s", w.driver->rocm_text);
	f = finding_make(r, SEV_WARN, "rocm-driver-window", "amdgpu", &v);
	if (!f || finding_evidence(f, "/sys/module/amdgpu/version: %s (AMD's DKMS driver %s)", h->amdgpu_version, w.driver->driver) ||
	    finding_evidence(f, "%s/.info/version: %s", h->rocm_path[0] ? h->rocm_path : "/opt/rocm", h->rocm_version) ||
	    finding_evidence(f, "AMD supports driver %s with ROCm %s", w.driver->driver, w.driver->rocm_text))
		return CD_ENOMEM;
	return CD_OK;
}

int rules_amd(struct report *r, const struct amd_host *h)
{
	int rc;
	if (!rules_amd_present(h))
		return CD_OK;
	if ((rc = kfd_rule(r, h)) || (rc = node_rule(r, h)) || (rc = hip_rule(r, h)) ||
	    (rc = visible_rule(r, h, "ROCR_VISIBLE_DEVICES", h->rocr_visible)) ||
	    (rc = visible_rule(r, h, "HIP_VISIBLE_DEVICES", h->hip_visible)) || (rc = override_rule(r, h)) ||
	    (rc = window_rule(r, h)))
		return rc;
	return CD_OK;
}
