/* The AMD machine's judgements (doctor): the amdgpu driver and KFD, the device nodes and their
 * groups, HIP against KFD, and the ROCm environment variables judged against the GPUs. Pure:
 * the facts of facts/amd.h in, findings out. */
#ifndef CUDOCTOR_RULES_AMD_H
#define CUDOCTOR_RULES_AMD_H

#include "facts/amd.h"
#include "facts/driver.h"
#include "kb/amd_driver.h"
#include "report/report.h"

/* Whether the facts show an AMD GPU machine: a KFD GPU node, the amdgpu module, or /dev/kfd. */
bool rules_amd_present(const struct amd_host *h);
/* An AMD machine with nothing NVIDIA: AMD shows, and there is no NVIDIA GPU on the PCI bus, no
 * NVIDIA kernel module and no GPU that CUDA or NVML sees. There the NVIDIA driver's absence is a
 * fact ("no NVIDIA GPU"), not a finding. d may be NULL (not collected). */
bool rules_amd_only(const struct amd_host *h, const struct gpu_probe *d);
/* The ROCm user space against AMD's support window of the DKMS amdgpu driver
 * (kb/amdgpu_drivers.tsv). judged: both versions known; driver: the table's line of the
 * module's version (NULL: not in the table); inside: that line supports the ROCm release. */
struct amd_window {
	bool judged, inside;
	const struct kb_amdgpu_driver *driver;
};
/* True when the driver's line is known (then inside says the verdict). */
bool rules_amd_window(const struct amd_host *h, struct amd_window *w);
/* The findings of h into r. CD_OK or CD_ENOMEM. */
int rules_amd(struct report *r, const struct amd_host *h);

#endif
