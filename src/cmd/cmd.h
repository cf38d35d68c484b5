/* The command table: one struct per command, defined in src/cmd/<name>.c. */
#ifndef CUDOCTOR_CMD_H
#define CUDOCTOR_CMD_H

#include "report/render.h"
#include "report/report.h"

struct cd_globals {
	struct render_opts render;
	bool stderr_is_tty;  /* progress bars only then */
};

struct cd_command {
	const char *name;
	const char *summary; /* one line for `cudoctor --help` */
	const char *help;    /* full text for `cudoctor NAME --help` */
	/* argv[0] is the command name; getopt_long-ready (set optind = 0 first).
	 * Returns CD_OK (exit code from findings), CD_EUSAGE (exit 2, err says why),
	 * or another negative status (exit 3, err says why). */
	int (*run)(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err);
};

extern const struct cd_command cmd_doctor, cmd_devices, cmd_arch, cmd_explain,
	cmd_gencode, cmd_kb, cmd_mem, cmd_lab, cmd_topo;

#endif
