/* The simulated machine shared by the fake libcuda and libnvidia-ml: GPUs in PCI
 * order, parsed from FAKE_GPUS on every call so a test may change it between cases. */
#ifndef CUDOCTOR_FAKE_GPUS_H
#define CUDOCTOR_FAKE_GPUS_H

#include <stdbool.h>

#define FAKE_MAX_GPUS 16

struct fake_gpu {
	char name[96];
	int cc_major, cc_minor;
	unsigned long long memory_bytes;
	int sm_count;
	int pci_domain, pci_bus, pci_device;
	unsigned char uuid[16];
	int index;            /* position in PCI order */
};

/* FAKE_GPUS="NAME:MAJOR.MINOR:SIZE[:SMS];..." (SIZE like 8GiB, 512MiB, 16GB, 1234)
 * Unset: one NVIDIA H200. Set but empty: no GPU. Entries that do not parse are
 * skipped, so a test can check that the library under test survives them.
 * Returns how many GPUs were filled (at most FAKE_MAX_GPUS). */
int fake_gpus_parse(struct fake_gpu out[FAKE_MAX_GPUS]);

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" into buf (>= 41 bytes) */
void fake_uuid_text(const unsigned char uuid[16], char *buf, unsigned long len);

/* Appends name and a newline to the file the environment variable var names (unset or
 * empty: nothing), so a test can count the calls a run made. */
void fake_call_log(const char *var, const char *name);

/* Sleeps ms milliseconds (a real driver's slow calls, for timing the code around them). */
void fake_sleep_ms(long long ms);

/* getenv as an int/unsigned long long with a default (decimal or 0x hex) */
long long fake_env_int(const char *name, long long dflt);

/* Per-GPU overrides "GPU:V1:V2:...;GPU:..." in env var `name`: fills vals for the
 * entry whose GPU index (PCI order) equals gpu; returns how many values, 0 if none. */
int fake_env_gpu_values(const char *name, int gpu, unsigned long long *vals, int max);

/* true if the comma list in env var `name` contains `word` */
bool fake_env_has_word(const char *name, const char *word);
/* The same per GPU: `word` stands for every GPU, `GPU:word` (PCI index) for that one only. */
bool fake_env_has_gpu_word(const char *name, int gpu, const char *word);
/* A value for one GPU: "V" for every GPU, or "GPU:V;GPU:V" per GPU (PCI index); dflt else. */
long long fake_env_gpu_int(const char *name, int gpu, long long dflt);

/* Defaults by compute capability, used where FAKE_GPUS does not say. */
struct fake_cc_defaults {
	int sm_count;
	int smem_per_sm, smem_optin;
	int l2_bytes, bus_width_bits;
	int clock_khz, mem_clock_khz;
	int threads_per_sm, blocks_per_sm;
	int pcie_gen;
};
void fake_cc_defaults(int major, int minor, struct fake_cc_defaults *d);

#endif
