/* explain's checks on this machine: what the matched error's catalogue row names (driver gpus
 * binary launch nvcc ptx env nodes wsl ldpath memory) probed once for every match, read and
 * judged (rules/checks.h). */
#ifndef CUDOCTOR_CMD_EXPLAIN_CHECKS_H
#define CUDOCTOR_CMD_EXPLAIN_CHECKS_H

#include <stdbool.h>

#include "explain/explain.h"
#include "facts/driver.h"
#include "facts/platform.h"
#include "facts/toolkit.h"
#include "rules/arch.h"
#include "rules/checks.h"

/* What the machine looks like, probed once and shared by every match. */
struct explain_env {
	bool gpus_probed, toolkits_probed, platform_probed, target_probed;
	struct gpu_probe gpus;
	struct toolkits toolkits;
	struct platform_info platform;
	/* what binaries are judged against: --gpu / --driver, the rest from this machine
	 * (probe/gpu_caps, as arch does) unless offline */
	struct arch_target target;
	bool offline;        /* --offline: only the binary check, and only against named GPUs */
	const char *binary;  /* --binary PATH, or NULL */
	bool binary_bad;     /* --binary is a file but no binary: no fix names it */
	unsigned block;      /* --block N: threads per block the launch used; 0 when not given */
};

/* An env with no probe made yet and the target of arch_target_init. */
void explain_env_init(struct explain_env *env);
void explain_env_free(struct explain_env *env);
/* Probes the driver and GPUs, and the platform, unless done. CD_OK or CD_ENOMEM. */
int explain_env_probe_driver(struct explain_env *env, char *err);
/* Runs the checks (space-separated names, the catalogue row's) for match m (offline: only
 * "binary" and "launch", when the target names GPUs). CD_OK or CD_ENOMEM. */
int explain_checks_run(const struct explain_match *m, const char *checks, struct explain_env *env,
		       struct explain_checks *out, char *err);

#endif
