/* explain's checks on this machine: what the matched error's catalogue row names (driver gpus
 * binary launch nvcc ptx env nodes wsl net ldpath memory kfd), read from the run context's parts (each
 * collected once for every match) and judged (rules/checks.h). */
#ifndef CUDOCTOR_CMD_EXPLAIN_CHECKS_H
#define CUDOCTOR_CMD_EXPLAIN_CHECKS_H

#include <stdbool.h>

#include "cmd/cmd.h"
#include "explain/explain.h"
#include "facts/inputs.h"
#include "rules/arch.h"
#include "rules/checks.h"

struct explain_read;

/* What the user gave explain (its options: --gpu, --driver, --binary, --python, --block, --offline),
 * and the binaries its checks read: each mapped and scanned once however many checks and
 * matches read it. */
struct explain_given {
	bool offline;        /* --offline: only the binary check, and only against named GPUs */
	const char *binary;  /* --binary PATH, or NULL */
	bool binary_bad;     /* --binary is a file but no binary: no fix names it */
	unsigned block;      /* --block N: threads per block the launch used; 0 when not given */
	/* what binaries are judged against: --gpu / --driver, the rest from the run context's
	 * caps (as arch has them) unless offline, once target_done */
	struct arch_target target;
	bool target_done;
	struct explain_read *bins;
	size_t n_bins;
	/* --python: the frameworks' device-code files of that environment (the binary check reads
	 * the one that fails on a GPU when no --binary names one) */
	bool python;
	struct arch_inputs python_files;
};

/* Nothing given yet, and the target of arch_target_init. */
void explain_given_init(struct explain_given *o);
/* Unmaps every binary read. */
void explain_given_free(struct explain_given *o);
/* The binary at path as the checks read it (mapped once per run; its images are scanned
 * only once a check judges them), for the values a match's finding takes from it; NULL when
 * it cannot be mapped (or memory ran out). */
const struct arch_file *explain_given_mapped(struct explain_given *o, const char *path);
/* Runs the checks (space-separated names, the catalogue row's) for match m on the run's
 * machine (offline: only "binary" and "launch", when the target names GPUs). CD_OK or
 * CD_ENOMEM. */
int explain_checks_run(const struct explain_match *m, const char *checks, struct explain_given *o, struct cd_run *run,
		       struct explain_checks *out, char *err);

#endif
