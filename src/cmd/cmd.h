/* The command table and the run context: one struct per command, defined in
 * src/cmd/cmd_<name>.c; main.c opens what a command's `needs` names, once per run, and
 * hands it over in cd_globals.run. */
#ifndef CUDOCTOR_CMD_H
#define CUDOCTOR_CMD_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/opts.h"
#include "driver/cudrv.h"
#include "driver/nvml.h"
#include "facts/amd.h"
#include "facts/driver.h"
#include "facts/platform.h"
#include "report/render.h"
#include "report/report.h"
#include "util/err.h"
#include "util/safetext.h"

/* The exit status, one table for every command (docs/exit-codes in `cudoctor --help`). */
enum cd_exit {
	CD_EXIT_CLEAN = 0,   /* no finding of severity error */
	CD_EXIT_FINDING = 1, /* at least one finding of severity error */
	CD_EXIT_USAGE = 2,   /* the command line was wrong; one line on stderr says how */
	CD_EXIT_FAILED = 3,  /* an input could not be read, or cudoctor itself failed */
};

/* What main.c sets up before a command runs (git's RUN_SETUP, RUN_SETUP_GENTLY). */
enum cd_needs {
	NEEDS_NONE,          /* nothing: the command probes what it needs itself, if anything */
	NEEDS_DRIVER,        /* the driver opened and judged before the command runs */
	NEEDS_DRIVER_GENTLY, /* the command calls cd_run_driver when a subcommand needs it */
};

/* The driver opened for one run: libcuda and NVML loaded once, cuInit and nvmlInit
 * called once by the GPU probe, the driver rules run once. */
struct cd_run {
	bool opened;                  /* cd_run_open has run */
	bool judged;                  /* the driver findings went into a report */
	struct cudrv *cu;             /* libcuda, cuInit called; NULL when it did not load */
	struct nvml *nv;              /* NVML, nvmlInit called; NULL when it did not load */
	struct gpu_probe probe;       /* the driver facts and every GPU */
	struct platform_info platform;
	bool cuda_usable;             /* libcuda works (rules_cuda_usable); else a finding says why */
	char kb_error[CD_ERRMSG];     /* the kb did not load: the driver facts lack its knowledge */
	struct amd_host *amd;         /* AMD's GPUs, probed on first ask (cd_run_amd); NULL before */
};

/* Opens the driver for this run unless done: loads libcuda and NVML, collects the driver
 * and GPU facts and the platform, and writes the kb's knowledge beside them (facts_add_kb).
 * Driver failures become facts; returns CD_OK, or CD_ENOMEM (err says so). */
int cd_run_open(struct cd_run *run, char *err);
/* cd_run_open, then the driver findings (rules_driver) into r, once per run.
 * CD_OK or CD_ENOMEM. */
int cd_run_driver(struct cd_run *run, struct report *r, char *err);

/* The AMD machine (probe/amd.h: the KFD topology, device nodes, ROCm, HIP where it loads),
 * probed once per run on first ask; NULL when out of memory. */
const struct amd_host *cd_run_amd(struct cd_run *run);

/* Shuts NVML down, unloads both libraries, frees the facts. */
void cd_run_close(struct cd_run *run);

/* For a command that needs the driver on one path only (gencode --native, plan without
 * --gpu): cd_run_driver on a run of its own, the driver findings (no-driver, no-device,
 * driver-init-failed, ...) into r and the driver and GPU facts moved into p (the caller frees
 * them with gpu_probe_free); the libraries are closed again. Whether CUDA can run work is
 * then rules_cuda_usable(p); when it cannot, a finding in r says why. */
int cd_run_driver_once(struct report *r, struct gpu_probe *p, char *err);

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
	const char *html;    /* --html FILE: also write the report as one HTML page */
	bool anonymize;      /* --anonymize: main.c scrubs the report before rendering it */
	/* the values of the command's (and subcommand's) own options, parsed by main.c from
	 * the command's option table, in command-line order */
	const struct cli_args *args;
	/* main.c's tables, for the commands that describe the command line itself
	 * (completion and the man page read them) */
	const struct cd_command *const *commands;
	const struct cli_opt *global_opts;
};

/* A subcommand (`mem estimate`): its own synopsis and options. */
struct cd_subcommand {
	const char *name;
	const char *summary;
	const char *usage;           /* what follows "cudoctor CMD " in the synopsis */
	const struct cli_opt *opts;  /* NULL: none */
	enum cli_complete operands;  /* what a shell completes for its operands */
};

struct cd_command {
	const char *name;
	const char *summary; /* one line for `cudoctor --help` */
	/* `cudoctor NAME --help` is usage, help, the options of opts, then notes. A command
	 * whose opts is NULL parses its own options: help is then its whole text, and the
	 * words main.c does not know reach it in argv. */
	const char *usage;   /* synopsis lines, each starting "cudoctor NAME" */
	const char *help;    /* what the command does */
	const char *notes;   /* after the options: environment, files, see also; may be NULL */
	const struct cli_opt *opts;
	const struct cd_subcommand *subs; /* ended by a NULL name; NULL: none */
	enum cli_complete operands;       /* what a shell completes for the operands */
	const char *operand_words;        /* CLI_C_WORDS: the words, space-separated */
	enum cd_needs needs;
	/* Why the command runs on Linux only, said in one line (exit 2) where it does not; NULL:
	 * it runs on every platform cudoctor is built for. */
	const char *linux_only;
	/* argv[0] is the command name (then the subcommand's, if any), then the operands;
	 * option values are in g->args. Returns CD_OK (exit code from findings), CD_EUSAGE
	 * (exit 2, err says why), or another negative status (exit 3, err says why). */
	int (*run)(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err);
};

/* --format for the commands whose report is also metrics (doctor, devices, fleet): an entry
 * of their option tables, read by main.c before the command runs, which sets r->format
 * (prometheus, or text/markdown/json as their global options) and refuses a second,
 * different format. */
#define CMD_OPT_FORMAT 900
#define CMD_OPT_FORMAT_ENTRY                                                                          \
	{ .id = CMD_OPT_FORMAT, .long_name = "format", .arg = CLI_REQUIRED, .metavar = "FORMAT",         \
	  .help = "prometheus: findings and GPU facts as metrics for node_exporter's textfile "         \
		  "collector (docs/prometheus.md); text, markdown and json as --markdown and --json",   \
	  .complete = CLI_C_WORDS, .words = "text markdown json prometheus" }

/* An input named on the command line could not be read: said on stderr, whatever the format
 * on stdout (the report says it too, where the command shows it), and the run exits 3, so a
 * script never reads a missing file as a clean run. */
static inline void cmd_input_error(struct report *r, const char *command, const char *message)
{
	char line[4 * CD_ERRMSG];

	/* the message names a file, whose name is anyone's bytes */
	safe_text(line, sizeof line, message, strlen(message), 0);
	fprintf(stderr, "cudoctor %s: %s\n", command, line);
	r->exit_override = CD_EXIT_FAILED;
}

extern const struct cd_command cmd_doctor, cmd_devices, cmd_check, cmd_arch, cmd_explain,
	cmd_gencode, cmd_kb, cmd_mem, cmd_lab, cmd_plan, cmd_topo, cmd_completion, cmd_diff, cmd_fleet;

#endif
