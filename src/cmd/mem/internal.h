/* Shared by the `cudoctor mem` subcommands (src/cmd/mem/). */
#ifndef CUDOCTOR_CMD_MEM_INTERNAL_H
#define CUDOCTOR_CMD_MEM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/cmd.h"

/* A memory budget to check an estimate against: a GPU here (its free memory now)
 * or one named on the command line (its total memory). */
struct mem_target {
	char name[128];
	uint64_t budget;
	uint64_t total;
	const char *basis; /* "free now", "total", "given" */
};

/* --gpu-memory SIZE, every --gpu SPEC (each memory size of each product), or every GPU
 * here (none: *n = 0 and a line in r). */
int mem_targets(struct cd_run *run, const char *const *specs, size_t n_specs, uint64_t gpu_memory,
		struct mem_target **out, size_t *n, struct report *r, char *err);

/* The subcommands' option tables (estimate.c, status.c, probe.c). */
extern const struct cli_opt mem_estimate_opts[], mem_status_opts[], mem_probe_opts[];

int mem_estimate_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err);
int mem_status_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err);
int mem_probe_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err);

#endif
