/* Platform rules: CUDA_VISIBLE_DEVICES against the GPUs and MIG devices here, CUDA's
 * order against nvidia-smi's, the /dev/nvidia* nodes, and WSL2's driver libraries. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cuda_types.h"
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

int rule_visible_devices(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct visible_devices *vd = &f->platform->visible;
	size_t physical = f->driver->n_gpus, visible = 0;
	const char *problem = NULL;
	char why[256] = "";
	struct finding *x;
	long seen[VISIBLE_MAX_TOKENS];
	size_t n_seen = 0;
	bool deliberate = false;

	if (!vd->set)
		return rules_status(oom);
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
		return rules_status(oom);
	x = report_add_finding(r, (visible == 0 && physical > 0 && !deliberate) ? SEV_ERROR : SEV_WARN, "visible-devices-invalid", "CUDA_VISIBLE_DEVICES",
			       "CUDA_VISIBLE_DEVICES %s", problem);
	oom |= !x;
	oom |= finding_evidence(x, "CUDA_VISIBLE_DEVICES=\"%s\"", vd->raw ? vd->raw : "") != CD_OK;
	if (physical > 0)
		oom |= finding_evidence(x, "%zu GPU(s) in the machine, %zu visible to CUDA after this setting", physical, visible) != CD_OK;
	oom |= finding_why(x, "CUDA reads CUDA_VISIBLE_DEVICES once, at cuInit, and stops at the first token it cannot resolve; "
			  "GPUs after it are hidden and the remaining ones are renumbered from 0, so 'cuda:1' may then be an invalid device ordinal.") != CD_OK;
	oom |= finding_fix(x, "nvidia-smi -L   # the indices and UUIDs that exist (MIG devices as MIG-<uuid>)") != CD_OK;
	oom |= finding_fix(x, "export CUDA_VISIBLE_DEVICES=0   # or a GPU-<uuid> from nvidia-smi -L; unset it to see every GPU") != CD_OK;
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
	x = report_add_finding(r, SEV_WARN, "device-order-mismatch", "CUDA_DEVICE_ORDER",
			       "CUDA numbers the GPUs differently from nvidia-smi");
	oom |= !x;
	for (size_t i = 0; i < f->driver->n_gpus; i++) {
		const struct gpu_info *g = &f->driver->gpus[i];
		oom |= finding_evidence(x, "nvidia-smi GPU %d = CUDA device %d: %s (%s)", gpu_pci_index(g), g->cuda_ordinal,
				       gpu_name(g) ? gpu_name(g) : "?", gpu_has(g, GF_PCI_BUS_ID) ? g->pci_bus_id : "?") != CD_OK;
	}
	oom |= finding_evidence(x, "CUDA_DEVICE_ORDER=%s", f->platform->device_order ? f->platform->device_order : "(unset: FASTEST_FIRST)") != CD_OK;
	oom |= finding_why(x, "CUDA's default order is FASTEST_FIRST while nvidia-smi and NVML use PCI bus order; "
			  "with different GPUs in one machine, 'GPU 0' in nvidia-smi and cuda:0 are then different cards.") != CD_OK;
	oom |= finding_fix(x, "export CUDA_DEVICE_ORDER=PCI_BUS_ID") != CD_OK;
	oom |= finding_fix(x, "or select GPUs by UUID: export CUDA_VISIBLE_DEVICES=GPU-<uuid>   # from nvidia-smi -L") != CD_OK;
	return rules_status(oom);
}

int rule_device_nodes(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct platform_info *p = f->platform;
	bool ctl = false, uvm = false, any_gpu = false, inaccessible = false;
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
	x = report_add_finding(r, (!ctl || !any_gpu || inaccessible) ? SEV_ERROR : SEV_WARN, "device-nodes", "/dev/nvidia*",
			       "%s", inaccessible ? "NVIDIA device nodes exist but this user cannot open them" : "NVIDIA device nodes are missing");
	oom |= !x;
	for (size_t i = 0; i < p->n_nodes; i++) {
		const struct device_node *n = &p->nodes[i];
		oom |= finding_evidence(x, "%s: %s", n->path, !n->exists ? "missing" : n->accessible ? "ok" : "permission denied") != CD_OK;
	}
	if (!uvm)
		oom |= finding_evidence(x, "/dev/nvidia-uvm: missing (module nvidia_uvm not loaded)") != CD_OK;
	oom |= finding_why(x, "libcuda reaches the GPU only through /dev/nvidiactl, /dev/nvidia<N> and /dev/nvidia-uvm (unified memory, needed by cuInit); "
			  "a missing or unreadable node makes cuInit fail or hide that GPU.") != CD_OK;
	if (!uvm)
		oom |= finding_fix(x, "sudo modprobe nvidia_uvm   # or: sudo nvidia-modprobe -u -c=0") != CD_OK;
	if (inaccessible)
		oom |= finding_fix(x, "sudo usermod -aG video $USER   # then log in again") != CD_OK;
	if (p->container)
		oom |= finding_fix(x, "docker run --gpus all ...   # the NVIDIA runtime creates the nodes in the container") != CD_OK;
	return rules_status(oom);
}

int rule_wsl(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct platform_info *p = f->platform;
	struct finding *x;

	if (!p->wsl)
		return rules_status(oom);
	if (rules_opt(p->wsl_distro_libcuda)) {
		x = report_add_finding(r, SEV_ERROR, "wsl-libcuda", rules_opt(p->wsl_distro_libcuda),
				       "A Linux NVIDIA driver is installed inside WSL2 and shadows the Windows driver's libcuda");
		oom |= !x;
		oom |= finding_evidence(x, "%s", rules_opt(p->wsl_distro_libcuda)) != CD_OK;
		oom |= finding_why(x, "Under WSL2 the GPU belongs to the Windows driver, which provides libcuda in /usr/lib/wsl/lib; "
				  "a Linux driver's libcuda cannot reach the GPU (there is no NVIDIA kernel module in WSL) and fails cuInit.") != CD_OK;
		oom |= finding_fix(x, "sudo apt remove --purge '^nvidia-.*' '^libnvidia-.*'   # never install the Linux driver inside WSL") != CD_OK;
		oom |= finding_fix(x, "sudo ldconfig") != CD_OK;
	}
	if (!p->wsl_libcuda1) {
		x = report_add_finding(r, SEV_ERROR, "wsl-libcuda", "/usr/lib/wsl/lib/libcuda.so.1",
				       "WSL2 without the Windows driver's libcuda.so.1");
		oom |= !x;
		oom |= finding_evidence(x, "/usr/lib/wsl/lib%s", p->wsl_lib_dir ? "/libcuda.so.1 is missing" : " does not exist") != CD_OK;
		if (!p->wsl_dxg)
			oom |= finding_evidence(x, "/dev/dxg is missing: the GPU is not passed into WSL") != CD_OK;
		oom |= finding_why(x, "WSL2 exposes the GPU through /dev/dxg and the Windows NVIDIA driver mounts its libcuda into /usr/lib/wsl/lib; "
				  "without them CUDA has no driver.") != CD_OK;
		oom |= finding_fix(x, "install or update the NVIDIA driver on Windows (not inside WSL), then in PowerShell: wsl --update; wsl --shutdown") != CD_OK;
	} else {
		if (!p->wsl_libcuda_unversioned) {
			x = report_add_finding(r, SEV_WARN, "wsl-libcuda", "/usr/lib/wsl/lib",
					       "libcuda.so (unversioned) is not on the linker path: -lcuda and Triton fail");
			oom |= !x;
			oom |= finding_evidence(x, "/usr/lib/wsl/lib/libcuda.so.1 exists but no libcuda.so is in the ld cache or LD_LIBRARY_PATH") != CD_OK;
			oom |= finding_why(x, "Programs find libcuda.so.1 at run time, but linking with -lcuda (Triton, torch.compile) needs the unversioned libcuda.so, "
					  "which is in /usr/lib/wsl/lib only if that directory is searched.") != CD_OK;
			oom |= finding_fix(x, "echo /usr/lib/wsl/lib | sudo tee /etc/ld.so.conf.d/ld.wsl.conf && sudo ldconfig") != CD_OK;
			oom |= finding_fix(x, "or: export LIBRARY_PATH=/usr/lib/wsl/lib:$LIBRARY_PATH") != CD_OK;
		}
		if (!p->wsl_libcuda1_symlink) {
			x = report_add_finding(r, SEV_INFO, "wsl-libcuda", "/usr/lib/wsl/lib/libcuda.so.1",
					       "/usr/lib/wsl/lib/libcuda.so.1 is a copy, not a symbolic link (ldconfig warns about it)");
			oom |= !x;
			oom |= finding_evidence(x, "ldconfig: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link") != CD_OK;
			oom |= finding_why(x, "Windows mounts the driver files as plain copies; the warning is harmless for running CUDA programs.") != CD_OK;
			oom |= finding_fix(x, "ignore it, or (workaround from the NVIDIA forum, undone by driver updates): cd /usr/lib/wsl/lib && sudo ln -sf libcuda.so.1.1 libcuda.so.1") != CD_OK;
		}
	}
	return rules_status(oom);
}
