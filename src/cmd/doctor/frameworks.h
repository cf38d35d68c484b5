/* doctor's first answer: will each framework and app found here run on each GPU, and the one
 * command that fixes it when not. */
#ifndef CUDOCTOR_CMD_DOCTOR_FRAMEWORKS_H
#define CUDOCTOR_CMD_DOCTOR_FRAMEWORKS_H

#include <stddef.h>

#include "facts/facts.h"
#include "facts/python.h"
#include "report/report.h"

/* What the user named besides what doctor finds: --binary FILE and --path DIR, each repeatable. */
struct doctor_apps {
	const char *binaries[16];
	size_t n_binaries;
	const char *paths[16];
	size_t n_paths;
};

/* Every app found and its files read, before any GPU is known (so it may run while the driver
 * initialises): the Python frameworks (the run context's Python part, their files by
 * probe/fw_files.h), Ollama's runners and the apps named, each file mapped and read to its fatbin headers only. A
 * file that cannot be read is kept as a line, not a failure. CD_OK or CD_ENOMEM. */
struct scanned_app;
struct doctor_scan {
	struct scanned_app **apps;
	size_t n, cap;
};
int doctor_scan(struct doctor_scan *s, const struct python_info *py, const struct doctor_apps *apps, char *err);
void doctor_scan_free(struct doctor_scan *s);

/* The i-th app scanned (its files read to their headers), or NULL past the last. */
struct fw_app;
const struct fw_app *doctor_scan_app(const struct doctor_scan *s, size_t i);

/* Judges each scanned app on every GPU the driver shows (rules/framework.h) and writes the
 * "Will it run" section (text and "will_it_run") and its findings, one per cause: first the
 * driver's gpu-newer-than-driver for a GPU its branch predates, whatever is installed. CD_OK or
 * CD_ENOMEM. */
/* amd_only: an AMD machine with nothing NVIDIA (its answer is doctor_amd's). */
int doctor_frameworks(struct report *r, const struct facts *f, const struct doctor_scan *s, bool amd_only, char *err);

#endif
