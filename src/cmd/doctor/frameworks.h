/* doctor's first answer: will each framework and app found here run on each GPU, and the one
 * command that fixes it when not. */
#ifndef CUDOCTOR_CMD_DOCTOR_FRAMEWORKS_H
#define CUDOCTOR_CMD_DOCTOR_FRAMEWORKS_H

#include <stddef.h>

#include "probe/stack.h"
#include "report/report.h"

/* What the user named besides what doctor finds: --binary FILE and --path DIR, each repeatable. */
struct doctor_apps {
	const char *binaries[16];
	size_t n_binaries;
	const char *paths[16];
	size_t n_paths;
};

/* Finds the device code of every Python framework (probe/python.c's list), Ollama's runners and
 * the apps named, reads only their headers, judges each on every GPU the driver shows
 * (rules/framework.h) and writes the "Will it run" section (text and "will_it_run") and its
 * findings, one per cause (fw_findings). A file that cannot be read is a line, not a failure.
 * CD_OK or CD_ENOMEM. */
int doctor_frameworks(struct report *r, const struct stack_facts *df, const struct doctor_apps *apps, char *err);

#endif
