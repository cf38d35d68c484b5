/* check's watchdog (cmd/check/watchdog.h): it polls its deadline, and at the deadline says
 * which call hung, on stderr and as the summary line on stdout, and ends the process with
 * the status of a node-health error. */
#include "cmd/check/watchdog.h"

#include <stdio.h>
#include <string.h>

#include "cmd/check/slurm.h"
#include "os/clock.h"
#include "os/proc.h"
#include "rules/contract.h"
#include "util/err.h"
#include "util/inflight.h"
#include "util/outfile.h"

#define TIMEOUT_ID "check-timeout"

static void fire(struct check_watchdog *w)
{
	char calls[512], text[700], line[CONTRACT_LINE_MAX + 8], err[CD_ERRMSG];
	const char *ids[] = { TIMEOUT_ID };
	struct slurm_plan plan;
	double age;
	size_t n = inflight_list(calls, sizeof calls, &age);

	if (n)
		fprintf(stderr, "cudoctor check: gave up after %.0f s: %s has not returned (for %.0f s); a hung "
				"driver call is a node-health error\n", w->seconds, calls, age);
	else
		fprintf(stderr, "cudoctor check: gave up after %.0f s: the checks did not finish\n", w->seconds);
	if (w->slurm_drain) {
		if (slurm_plan(ids, 1, &plan, err) != CD_OK)
			fprintf(stderr, "cudoctor check: --slurm-drain: %s\n", err);
		else if (w->dry_run && plan.line[0])
			printf("%s\n", plan.line);
		else if (!w->dry_run && slurm_act(&plan, err) != CD_OK)
			fprintf(stderr, "cudoctor check: --slurm-drain: %s\n", err);
	}
	if (n)
		snprintf(text, sizeof text, "cudoctor: error %s: %s hung (%.0f s)", TIMEOUT_ID, calls, w->seconds);
	else
		snprintf(text, sizeof text, "cudoctor: error %s: no answer in %.0f s", TIMEOUT_ID, w->seconds);
	contract_cut(line, sizeof line, text);
	printf("%s\n", line);
	fflush(stdout);
	fflush(stderr);
	/* --output's file appears whole or not at all: a run cut short leaves the old one */
	outfile_remove_temporaries();
	os_exit_now(contract_exit((enum exit_contract)w->contract, SEV_ERROR, false));
}

static void watch(void *arg)
{
	struct check_watchdog *w = arg;
	double t0 = os_monotonic_s();

	/* where no thread could start, task_start runs this in the caller, before it returns and
	 * sets go: give up watching then rather than block the run */
	while (!atomic_load(&w->go))
		if (os_monotonic_s() - t0 > 1.0)
			return;
		else
			os_sleep_us(1000);
	while (atomic_load(&w->state) == 0) {
		int armed = 0;

		if (os_monotonic_s() >= w->deadline && atomic_compare_exchange_strong(&w->state, &armed, 2)) {
			fire(w);
			return;
		}
		os_sleep_us(20000);
	}
}

int watchdog_start(struct check_watchdog *w)
{
	atomic_store(&w->state, 0);
	atomic_store(&w->go, 0);
	w->deadline = os_monotonic_s() + w->seconds;
	task_start(&w->task, watch, w);
	atomic_store(&w->go, 1);
	w->started = true;
	return CD_OK;
}

void watchdog_stop(struct check_watchdog *w)
{
	int armed = 0;

	if (!w->started)
		return;
	/* lost the race: the watchdog is ending the process; wait for it to */
	if (!atomic_compare_exchange_strong(&w->state, &armed, 1))
		for (;;)
			os_sleep_us(1000000);
	task_wait(&w->task);
	w->started = false;
}
