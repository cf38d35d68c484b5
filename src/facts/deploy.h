/* What the deployment checks collect beyond the driver and platform facts: the kernel log's
 * NVIDIA events, which kernel modules are loaded, and the environment CUDA reads. The probes
 * (probe/kmsg.c, probe/modules.c, probe/deploy.c) fill it; rules/deploy.c judges it. */
#ifndef CUDOCTOR_FACTS_DEPLOY_H
#define CUDOCTOR_FACTS_DEPLOY_H

#include <stdbool.h>
#include <stddef.h>

#include "util/field.h"

enum kmsg_state {
	KMSG_UNREAD,      /* not asked for */
	KMSG_READ,
	KMSG_MISSING,     /* no /dev/kmsg (a container without it, another OS) */
	KMSG_DENIED,      /* the kernel restricts its log to root (kernel.dmesg_restrict) */
	KMSG_FAILED,      /* opened, but reading failed */
};

enum xid_event_kind {
	XID_EVENT_XID,    /* "NVRM: Xid (PCI:0000:18:00): 79, pid=..., ..." */
	XID_EVENT_SXID,   /* "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, ..." */
	XID_EVENT_OFF_BUS /* "NVRM: GPU at PCI:0000:18:00: GPU has fallen off the bus." without a number */
};

/* One kind of event on one device: every line with the same kind, number and device is
 * counted in one event, so a log that repeats an Xid thousands of times stays small. */
struct xid_event {
	enum xid_event_kind kind;
	int xid;                       /* 0 for XID_EVENT_OFF_BUS */
	char pci[24];                  /* the device as logged, "0000:18:00"; "" when none */
	long long pid;                 /* the first line's pid=; -1 when not logged */
	long long first_usec, last_usec; /* since boot, from the record; -1 unknown */
	unsigned long count;
	char text[160];                /* the first line's words after the number, as logged (untrusted) */
};

#define KMSG_MAX_EVENTS 64

struct kmsg_events {
	enum kmsg_state state;
	int sys_errno;                 /* why it was not read, when not KMSG_READ */
	size_t bytes;                  /* of the log read */
	bool log_full;                 /* the read stopped at its bound; older events may be missing */
	size_t n;
	bool truncated;                /* more distinct events than KMSG_MAX_EVENTS */
	struct xid_event ev[KMSG_MAX_EVENTS];
};

struct kernel_modules {
	bool read;                     /* /proc/modules was read */
	bool nvidia, nvidia_uvm, nouveau;
};

/* NVIDIA's display and 3D controllers on the PCI bus, from sysfs: the GPUs the machine has,
 * whatever the driver makes of them (gpud's count beside NVML's). */
#define PCI_GPUS_MAX 64
struct pci_gpus {
	bool read;                    /* /sys/bus/pci/devices could be listed */
	size_t n;                     /* how many, even past PCI_GPUS_MAX */
	char bus_id[PCI_GPUS_MAX][16]; /* "0000:18:00.0", as NVML's bus ids are normalised */
};

/* How many GPUs each view of the machine has: the PCI bus, NVML, CUDA, and what the node
 * should have (check --expect-gpus, else the PCI count); -1 unknown. */
struct gpu_count {
	long long pci, nvml, cuda, expected;
};
extern const struct field_table gpu_count_field_table;

struct deploy_info {
	struct kmsg_events kmsg;
	struct kernel_modules mods;
	struct pci_gpus pci;
	const char *const *env;        /* NAME=value strings, NULL-terminated: the process's environment */
};

#endif
