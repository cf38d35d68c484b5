/* The command table and the run context: one struct per command, defined in
 * src/cmd/cmd_<name>.c; main.c opens what a command's `needs` names, once per run, and
 * hands it over in cd_globals.run. */
#ifndef CUDOCTOR_CMD_H
#define CUDOCTOR_CMD_H

#include <stdbool.h>

#include "driver/cudrv.h"
#include "driver/nvml.h"
#include "facts/driver.h"
#include "facts/platform.h"
#include "report/render.h"
#include "report/report.h"
#include "util/err.h"

/* What main.c sets up before a command runs (git's RUN_SETUP, RUN_SETUP_GENTLY). */
enum cd_needs {
	NEEDS_NONE,          /* nothing: the command probes what it needs itself, if anything */
	NEEDS_DRIVER,        /* the driver opened and judged before the command runs */
	NEEDS_DRIVER_GENTLY, /* the command calls cd_run_driver when a subcommand needs it */
};

/* The driver opened for one run: libcuda and NVML loaded once, cuInit and nvmlInit
 * called once by the GPU probe, the driver rules run once. */
struct cd_run {
	bool opened;                  /* cd_run_driver has run */
	struct cudrv *cu;             /* libcuda, cuInit called; NULL when it did not load */
	struct nvml *nv;              /* NVML, nvmlInit called; NULL when it did not load */
	struct gpu_probe probe;       /* the driver facts and every GPU */
	struct platform_info platform;
	bool cuda_usable;             /* libcuda works (rules_cuda_usable); else a finding says why */
};

/* Opens the driver for this run unless done: loads libcuda and NVML, collects the driver
 * and GPU facts and the platform, and adds the driver findings (rules_driver) to r.
 * Driver failures become facts and findings; returns CD_OK, or CD_ENOMEM (err says so). */
int cd_run_driver(struct cd_run *run, struct report *r, char *err);

/* Shuts NVML down, unloads both libraries, frees the facts. */
void cd_run_close(struct cd_run *run);

/* A report line that could not be added (only out of memory fails) marks the report
 * incomplete, which main.c turns into exit 3. */
static inline void cmd_note(struct report *r, int rc)
{
	if (rc != CD_OK)
		r->oom = true;
}

struct cd_globals {
	struct render_opts render;
	bool stderr_is_tty;  /* progress bars only then */
	struct cd_run *run;  /* opened by main.c for NEEDS_DRIVER; on demand otherwise */
};

struct cd_command {
	const char *name;
	const char *summary; /* one line for `cudoctor --help` */
	const char *help;    /* full text for `cudoctor NAME --help` */
	enum cd_needs needs;
	/* argv[0] is the command name; getopt_long-ready (set optind = 0 first).
	 * Returns CD_OK (exit code from findings), CD_EUSAGE (exit 2, err says why),
	 * or another negative status (exit 3, err says why). */
	int (*run)(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err);
};

extern const struct cd_command cmd_doctor, cmd_devices, cmd_arch, cmd_explain,
	cmd_gencode, cmd_kb, cmd_mem, cmd_lab, cmd_fleet;

#endif
