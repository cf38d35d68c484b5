/* Platform rules: CUDA_VISIBLE_DEVICES against the GPUs and MIG devices here, CUDA's
 * order against nvidia-smi's, the /dev/nvidia* nodes, and WSL2's driver libraries. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cuda_types.h"
#include "rules/catalogue.h"
#include "rules/internal.h"
#include "util/err.h"
#include "util/str.h"

/* How many MIG devices a MIG- token names: "MIG-<uuid>" (R470+, any unique prefix, as
 * for GPU- tokens) or the older "MIG-GPU-<gpu uuid>/<GI>/<CI>". -1: the MIG devices are
 * not known for every GPU, so the token cannot be judged. */
/* The MIG devices of g are known: MIG mode off (none), or on and listed. */
static bool mig_listed(const struct gpu_info *g)
{
	return gpu_has(g, GF_MIG_MODE) && (!g->mig_mode_current || gpu_has(g, GF_MIG_DEVICES));
}

static size_t n_migs(const struct gpu_info *g)
{
	return gpu_has(g, GF_MIG_MODE) && g->mig_mode_current && gpu_has(g, GF_MIG_DEVICES) ? g->n_mig_devices : 0;
}

static const char *gpu_uuid(const struct gpu_info *g)
{
	return gpu_has(g, GF_UUID) ? g->uuid : NULL;
}

static int mig_token_matches(const struct facts *f, const char *tok, size_t *n_mig_total)
{
	int matches = 0;
	const char *slash = strchr(tok, '/');

	*n_mig_total = 0;
	for (size_t g = 0; g < f->driver->n_gpus; g++) {
		if (!mig_listed(&f->driver->gpus[g]))
			return -1;
		*n_mig_total += n_migs(&f->driver->gpus[g]);
	}
	for (size_t g = 0; g < f->driver->n_gpus; g++) {
		const struct gpu_info *gpu = &f->driver->gpus[g];
		for (size_t k = 0; k < n_migs(gpu); k++) {
			const struct gpu_mig_device *m = &gpu->mig_devices[k];
			if (!slash) {
				if (m->uuid[0] && str_starts_with(m->uuid, tok))
					matches++;
				continue;
			}
			/* MIG-GPU-<uuid>/GI/CI */
			size_t ulen = (size_t)(slash - (tok + 4));
			char *end;
			long gi = strtol(slash + 1, &end, 10), ci = -1;
			if (*end == '/')
				ci = strtol(end + 1, &end, 10);
			if (*end || !gpu_uuid(gpu) || strlen(gpu->uuid) != ulen || strncmp(gpu->uuid, tok + 4, ulen) != 0)
				continue;
			if (m->gpu_instance_id == gi && m->compute_instance_id == ci)
				matches++;
		}
	}
	return matches;
}

/* What CUDA_VISIBLE_DEVICES leaves visible, and the first token that hides GPUs it should not. */
struct visible_verdict {
	size_t physical, visible;
	bool deliberate;          /* a leading negative token: GPUs hidden on purpose */
	char problem[256];
};

static bool visible_verdict(const struct facts *f, struct visible_verdict *out)
{
	const struct visible_devices *vd = &f->platform->visible;
	size_t physical = f->driver->n_gpus, visible = 0;
	const char *problem = NULL;
	char why[256] = "";
	long seen[VISIBLE_MAX_TOKENS];
	size_t n_seen = 0;
	bool deliberate = false;

	if (!vd->set)
		return false;
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
					for (size_t g = 0; g < f->driver->n_gpus; g++)
						if (gpu_uuid(&f->driver->gpus[g]) && str_starts_with(f->driver->gpus[g].uuid, t->text))
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
		return false;
	out->physical = physical;
	out->visible = visible;
	out->deliberate = deliberate;
	snprintf(out->problem, sizeof out->problem, "%s", problem);
	return true;
}

bool rules_visible_machine_verdict(const struct facts *f, struct finding_vars *v, const char **row)
{
	struct visible_verdict vv;

	*row = "visible-devices-invalid";
	if (!visible_verdict(f, &vv))
		return false;
	finding_var(v, "visible_problem", "%s", vv.problem);
	return true;
}

/* visible-devices-invalid's finding from its verdict */

int rule_visible_devices(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct visible_devices *vd = &f->platform->visible;
	struct visible_verdict vv;
	struct finding_vars v;
	struct finding *x;

	if (!visible_verdict(f, &vv))
		return CD_OK;
	finding_vars_init(&v);
	finding_var(&v, "visible_problem", "%s", vv.problem);
	x = finding_make(r, (vv.visible == 0 && vv.physical > 0 && !vv.deliberate) ? SEV_ERROR : SEV_WARN,
			 "visible-devices-invalid", "CUDA_VISIBLE_DEVICES", &v);
	oom |= !x;
	oom |= finding_evidence(x, "CUDA_VISIBLE_DEVICES=\"%s\"", vd->raw ? vd->raw : "") != CD_OK;
	if (vv.physical > 0)
		oom |= finding_evidence(x, "%zu GPU(s) in the machine, %zu visible to CUDA after this setting", vv.physical,
				       vv.visible) != CD_OK;
	return rules_status(oom);
}

int rule_device_order(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_info *prev = NULL;
	bool differ = false;
	struct finding *x;

	if (f->driver->n_gpus < 2 || f->platform->visible.set)
		return rules_status(oom);
	if (f->platform->device_order && strcmp(f->platform->device_order, "PCI_BUS_ID") == 0)
		return rules_status(oom);
	/* walk in CUDA order; PCI indices must rise */
	for (int ci = 0; ci < (int)f->driver->n_gpus; ci++) {
		const struct gpu_info *g = NULL;
		for (size_t i = 0; i < f->driver->n_gpus; i++)
			if (f->driver->gpus[i].cuda_ordinal == ci)
				g = &f->driver->gpus[i];
		if (!g)
			continue;
		if (prev && gpu_pci_index(g) < gpu_pci_index(prev))
			differ = true;
		prev = g;
	}
	if (!differ)
		return rules_status(oom);
	x = finding_make(r, SEV_WARN, "device-order-mismatch", "CUDA_DEVICE_ORDER", NULL);
	oom |= !x;
	for (size_t i = 0; i < f->driver->n_gpus; i++) {
		const struct gpu_info *g = &f->driver->gpus[i];
		oom |= finding_evidence(x, "nvidia-smi GPU %d = CUDA device %d: %s (%s)", gpu_pci_index(g), g->cuda_ordinal,
				       gpu_name(g) ? gpu_name(g) : "?", gpu_has(g, GF_PCI_BUS_ID) ? g->pci_bus_id : "?") != CD_OK;
	}
	oom |= finding_evidence(x, "CUDA_DEVICE_ORDER=%s", f->platform->device_order ? f->platform->device_order : "(unset: FASTEST_FIRST)") != CD_OK;
	return rules_status(oom);
}

int rule_device_nodes(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct platform_info *p = f->platform;
	bool ctl = false, uvm = false, any_gpu = false, inaccessible = false;
	struct finding_vars v;
	struct finding *x;

	if (p->wsl || p->n_nodes == 0)
		return rules_status(oom);
	/* without any driver, no-driver already says everything; with a working cuInit the
	 * nodes it needs (nvidiactl, nvidia-uvm, nvidiaN) were evidently there */
	if (!f->driver->cuda_loaded && !rules_opt(f->driver->kmod_version) && f->driver->n_gpus == 0)
		return rules_status(oom);
	if (f->driver->cuda_loaded && driver_has(f->driver, DF_CUDA_INIT) && f->driver->cuda_init_result == CUDA_SUCCESS)
		return rules_status(oom);
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
		return rules_status(oom);
	finding_vars_init(&v);
	finding_flag(&v, "inaccessible", inaccessible);
	finding_flag(&v, "uvm", uvm);
	finding_flag(&v, "container", p->container);
	x = finding_make(r, (!ctl || !any_gpu || inaccessible) ? SEV_ERROR : SEV_WARN, "device-nodes", "/dev/nvidia*", &v);
	oom |= !x;
	for (size_t i = 0; i < p->n_nodes; i++) {
		const struct device_node *n = &p->nodes[i];
		oom |= finding_evidence(x, "%s: %s", n->path, !n->exists ? "missing" : n->accessible ? "ok" : "permission denied") != CD_OK;
	}
	if (!uvm)
		oom |= finding_evidence(x, "/dev/nvidia-uvm: missing (module nvidia_uvm not loaded)") != CD_OK;
	return rules_status(oom);
}

/* WSL2's driver libraries, most serious case first: a Linux driver inside WSL, no libcuda.so.1,
 * no unversioned libcuda.so for the linker, a copied libcuda.so.1. */
static const char *wsl_case(const struct platform_info *p, size_t k)
{
	const char *cases[4];
	size_t n = 0;

	if (rules_opt(p->wsl_distro_libcuda))
		cases[n++] = "wsl-libcuda/linux-driver";
	if (!p->wsl_libcuda1)
		cases[n++] = "wsl-libcuda/no-libcuda";
	else {
		if (!p->wsl_libcuda_unversioned)
			cases[n++] = "wsl-libcuda/unversioned";
		if (!p->wsl_libcuda1_symlink)
			cases[n++] = "wsl-libcuda/copy";
	}
	return p->wsl && k < n ? cases[k] : NULL;
}

bool rules_wsl_machine_verdict(const struct facts *f, struct finding_vars *v, const char **row)
{
	(void)v;
	*row = wsl_case(f->platform, 0);
	return *row != NULL;
}

int rule_wsl(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct platform_info *p = f->platform;
	const char *row;
	struct finding *x;

	for (size_t k = 0; (row = wsl_case(p, k)) != NULL; k++) {
		if (strcmp(row, "wsl-libcuda/linux-driver") == 0) {
			x = finding_make(r, SEV_CATALOGUE, row, rules_opt(p->wsl_distro_libcuda), NULL);
			oom |= !x;
			oom |= finding_evidence(x, "%s", rules_opt(p->wsl_distro_libcuda)) != CD_OK;
		} else if (strcmp(row, "wsl-libcuda/no-libcuda") == 0) {
			x = finding_make(r, SEV_CATALOGUE, row, "/usr/lib/wsl/lib/libcuda.so.1", NULL);
			oom |= !x;
			oom |= finding_evidence(x, "/usr/lib/wsl/lib%s", p->wsl_lib_dir ? "/libcuda.so.1 is missing" : " does not exist") != CD_OK;
			if (!p->wsl_dxg)
				oom |= finding_evidence(x, "/dev/dxg is missing: the GPU is not passed into WSL") != CD_OK;
		} else if (strcmp(row, "wsl-libcuda/unversioned") == 0) {
			x = finding_make(r, SEV_CATALOGUE, row, "/usr/lib/wsl/lib", NULL);
			oom |= !x;
			oom |= finding_evidence(x, "/usr/lib/wsl/lib/libcuda.so.1 exists but no libcuda.so is in the ld cache or LD_LIBRARY_PATH") != CD_OK;
		} else {
			x = finding_make(r, SEV_CATALOGUE, row, "/usr/lib/wsl/lib/libcuda.so.1", NULL);
			oom |= !x;
			oom |= finding_evidence(x, "ldconfig: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link") != CD_OK;
		}
	}
	return rules_status(oom);
}
