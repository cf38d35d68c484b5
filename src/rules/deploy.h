/* The deployment checks' judgements (DCGM's level 1, beside doctor's): the kernel log's
 * NVIDIA events, nouveau beside nvidia, and environment variables that change how CUDA
 * behaves. Pure: facts in (facts/deploy.h and the driver's GPUs), verdicts and findings out. */
#ifndef CUDOCTOR_RULES_DEPLOY_H
#define CUDOCTOR_RULES_DEPLOY_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/deploy.h"
#include "facts/facts.h"
#include "report/report.h"

/* The index in gp->gpus of the GPU an event's device names, or -1 (an NVSwitch, a GPU the
 * driver no longer lists, or no device logged). Compares domain, bus and device numbers. */
int deploy_event_gpu(const struct xid_event *e, const struct gpu_probe *gp);

/* The severity an event earns, from the immediate action NVIDIA's Xid catalogue gives the Xid
 * (kb/xid.tsv's bucket, graded in kb/xid_buckets.tsv): info for IGNORE and for Xid 45 (an
 * aborted application), warn for RESTART_APP (the application restarts, the GPU needs no
 * reset), error for a reset, a reboot, a workflow or an Xid the table lacks; Xid 154 is info when the recovery changed to
 * None. A fatal SXid and a GPU fallen off the bus are errors, a non-fatal SXid a warning. */
enum severity deploy_event_severity(const struct xid_event *e);

/* What that grade means for the GPU, in words ("no action needed: ..."); NULL for an SXid,
 * a GPU fallen off the bus or an Xid the table lacks. */
const char *deploy_event_means(const struct xid_event *e);

/* One event as a finding's evidence: the logged line, and the catalogue's meaning and action. */
int deploy_event_evidence(struct finding *f, const struct xid_event *e);

/* What one CUDA environment variable does when set as it is: NULL when it changes nothing
 * worth saying (unset, "0", or not one cudoctor knows). */
struct cuda_env_effect {
	enum severity sev;
	const char *row;      /* its case of cuda-env in the catalogue: what it does, and why that matters */
};
const struct cuda_env_effect *deploy_env_effect(const char *name, const char *value);

/* xid-errors per device named in the log (the GPU's subject where it is one of gp's),
 * kernel-log-unread (only when say_unread: check says it, doctor does not), nouveau-loaded,
 * cuda-env per variable. CD_OK or CD_ENOMEM. */
int rules_deploy(const struct deploy_info *d, const struct gpu_probe *gp, bool say_unread, struct report *r);

/* doctor's rules that are deployment checks too, for check: CUDA_VISIBLE_DEVICES, the
 * /dev/nvidia* nodes, persistence mode. Reads f->driver and f->platform only. */
int rules_deploy_platform(const struct facts *f, struct report *r);

#endif
