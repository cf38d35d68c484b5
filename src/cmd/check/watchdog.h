/* check --timeout: a thread that ends the run at its deadline, naming the driver call that
 * has not returned (util/inflight.h), draining the node first under --slurm-drain, so a hung
 * NVML or cuInit is reported instead of waited on. */
#ifndef CUDOCTOR_CMD_CHECK_WATCHDOG_H
#define CUDOCTOR_CMD_CHECK_WATCHDOG_H

#include <stdatomic.h>
#include <stdbool.h>

#include "util/task.h"

struct check_watchdog {
	double seconds;           /* the bound, from the start */
	double deadline;          /* os_monotonic_s() at which it fires */
	int contract;             /* enum exit_contract: the status and summary line it ends with */
	bool slurm_drain, dry_run;
	atomic_int state;         /* 0 armed, 1 stopped by the run, 2 fired */
	atomic_int go;            /* task_start has returned */
	struct task task;
	bool started;
};

/* Arms w for seconds from now. CD_OK. */
int watchdog_start(struct check_watchdog *w);

/* Disarms w before the report is rendered; if it has fired already, never returns (the
 * watchdog ends the process). */
void watchdog_stop(struct check_watchdog *w);

#endif
