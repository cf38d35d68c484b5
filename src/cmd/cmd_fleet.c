/* `cudoctor fleet`: many nodes judged together, from --json reports gathered any way
 * (FILE...) or, under mpirun or srun, collected by one leader rank per node and gathered
 * by rank 0 (cmd/fleet/). The judgement itself is src/fleet. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/fleet/fleet.h"
#include "fleet/fleet.h"
#include "fleet/judge.h"
#include "fleet/mpi.h"
#include "lab/lab.h"
#include "util/err.h"
#include "report/render.h"
#include "util/file.h"
#include "util/outfile.h"
#include "util/units.h"
#include "util/utf16.h"

#define DEFAULT_TIMEOUT_S 300

static const char fleet_help[] =
	"Judges many nodes at once: what differs between them (driver and its CUDA version, GPU "
	"models and counts, toolkit, CUDA runtime, PyTorch, NCCL, MIG, persistence and ECC modes), "
	"every node's error and warn findings grouped by id with compact node lists "
	"(node[03,17]), outliers in lab numbers by median and MAD, GPUs whose check load "
	"results lie far below the fleet's (fleet-check-slow), and the Slurm commands that "
	"drain the nodes with errors of their own health (scontrol update nodename=... state=drain "
	"reason=...): the driver, the GPUs, the kernel log's Xids, ECC, device nodes, the load tests. "
	"Errors of the environment a job brings (Python, frameworks, toolkits, libraries) are listed "
	"per node under Environment and never drain a node.\n"
	"\n"
	"With FILE...: reads `cudoctor --json doctor`, `devices`, `lab` and `check` reports gathered any "
	"way (srun cudoctor --json doctor > $(hostname).json; srun cudoctor --json check > "
	"$(hostname).check.json for the load results). A report's node is the one it "
	"names, else the file name without its extension; several reports of one node merge. "
	"A file that is not JSON, truncated, from another tool, or from a newer major version of "
	"cudoctor is named and skipped (finding fleet-report-skipped); one that cannot be opened "
	"(missing, a directory) is too, named on stderr, and the run exits 3, as it does when no "
	"report could be read at all.\n"
	"\n"
	"Under an MPI launcher (no FILE): the ranks of each node elect a leader, which runs doctor "
	"and devices (and the labs, and with --check check's load tests) on its node; rank 0 gathers the reports and prints the fleet's. "
	"Needs the MPI plug-in libcudoctor-fleet-mpi.so (built where mpicc exists), found beside "
	"cudoctor, in plugins/ there, in ../lib/cudoctor, or named by CUDOCTOR_FLEET_MPI.";

static const char fleet_notes[] =
	"Environment: CUDOCTOR_NODE names this node (default: the host name); NCCL_NVLS_ENABLE is 0 "
	"under --nccl unless set.\n"
	"Exit status: 0 no error finding on any node, 1 an error finding, 2 usage, 3 a FILE could not "
	"be opened, no report was read, or cudoctor failed.\n"
	"Linux only: on Windows it says so and exits 2.";

enum { O_LABS = 1, O_QUICK, O_CHECK, O_NCCL, O_ROUNDS, O_NCCL_SIZE, O_TIMEOUT, O_PROMETHEUS, O_SAVE };

static const struct cli_opt fleet_opts[] = {
	{ .id = O_LABS, .long_name = "labs", .arg = CLI_REQUIRED, .metavar = "LIST",
	  .help = "also run these labs (e.g. bandwidth,host-transfer) on each GPU of each node", .complete = CLI_C_LAB },
	{ .id = O_QUICK, .long_name = "quick", .help = "the labs' short runs, and check's load tests in 60 s" },
	{ .id = O_CHECK, .long_name = "check",
	  .help = "also run cudoctor check on each node, its load tests within 5 minutes for all the node's "
		  "GPUs (60 s with --quick), and compare each GPU's memory test, GEMM and copy rates across the "
		  "nodes: a GPU far below the median is fleet-check-slow, with its drain line" },
	{ .id = O_NCCL, .long_name = "nccl", .arg = CLI_OPTIONAL, .metavar = "MODE",
	  .help = "also NCCL across the ranks, one GPU per rank (its place on its host picks the device). "
		  "--nccl (allreduce): one all-reduce of every rank, floats verified, 1 MiB to 256 MiB within "
		  "free memory: algbw and busbw (x 2(n-1)/n) per size and each rank's time. --nccl=pairs: "
		  "rounds of disjoint rank pairs (every pair once over n-1 rounds, n for odd n), each pair "
		  "its own 2-rank communicator and a verified all-reduce of --nccl-size; the pairs ranked "
		  "slowest first, judged by median and MAD among intra-node and among inter-node pairs, and "
		  "the nodes slow in most of their pairs named (fleet-nccl-slow-node). Failures are "
		  "fleet-nccl-failed",
	  .complete = CLI_C_WORDS, .words = "allreduce pairs" },
	{ .id = O_ROUNDS, .long_name = "rounds", .arg = CLI_REQUIRED, .metavar = "K",
	  .help = "--nccl=pairs runs at most K rounds (default: all up to 64 ranks, else 16)" },
	{ .id = O_NCCL_SIZE, .long_name = "nccl-size", .arg = CLI_REQUIRED, .metavar = "SIZE",
	  .help = "bytes each pair of --nccl=pairs all-reduces (e.g. 16MiB; default 64 MiB, less when "
		  "two buffers do not fit in a quarter of the smallest free GPU memory)" },
	{ .id = O_TIMEOUT, .long_name = "timeout", .arg = CLI_REQUIRED, .metavar = "S",
	  .help = "rank 0 waits at most S seconds for the other nodes (default 300), and each MPI "
		  "exchange and NCCL step at most as long; nodes that did not report by then are named "
		  "(fleet-node-missing)" },
	{ .id = CMD_OPT_FORMAT, .long_name = "format", .arg = CLI_REQUIRED, .metavar = "FORMAT",
	  .help = "prometheus: also write NODE.prom per node, for node_exporter's textfile collector, "
		  "into --prometheus DIR or else the current directory, naming each file on stderr; text, "
		  "markdown and json as --markdown and --json",
	  .complete = CLI_C_WORDS, .words = "text markdown json prometheus" },
	{ .id = O_PROMETHEUS, .long_name = "prometheus", .arg = CLI_REQUIRED, .metavar = "DIR",
	  .help = "also write DIR/NODE.prom per node, for node_exporter's textfile collector", .complete = CLI_C_DIR },
	{ .id = O_SAVE, .long_name = "save", .arg = CLI_REQUIRED, .metavar = "FILE",
	  .help = "rank 0 writes the report to FILE itself, not to stdout: it survives a launcher that "
		  "ends the job when a rank dies (the global --output would be written by every rank)",
	  .complete = CLI_C_FILE },
	{ 0 },
};

static int parse_labs(struct fleet_opts *o, char *list, char *err)
{
	for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!lab_find(t))
			return cd_fail(err, CD_EUSAGE, "--labs: no lab named '%s' (cudoctor lab list)", t);
		if (o->n_labs == FLEET_MAX_LABS)
			return cd_fail(err, CD_EUSAGE, "--labs: at most %d labs", FLEET_MAX_LABS);
		o->labs[o->n_labs++] = t;
	}
	return o->n_labs ? CD_OK : cd_fail(err, CD_EUSAGE, "--labs wants a list like bandwidth,host-transfer");
}

int fleet_render(struct report *r, const struct fleet_opts *o, const struct cd_globals *g, char *err)
{
	struct outfile of;
	FILE *out = stdout;
	int rc;

	if (o->save) {
		if ((rc = outfile_open(&of, o->save, "--save", err)) != CD_OK)
			return rc;
		/* rank 0 writes this after the launcher's SIGTERM, and its SIGKILL follows within
		 * milliseconds: an fsync there lost the whole report */
		of.sync = false;
		if (!(out = outfile_stream(&of))) {
			outfile_abort(&of);
			return cd_fail(err, CD_ENOMEM, "out of memory");
		}
	}
	rc = render_report(r, &g->render, out);
	if (fflush(out) != 0 || rc != CD_OK) {
		if (o->save)
			outfile_abort(&of);
		return cd_fail(err, CD_EIO, "cannot write the report%s%s", o->save ? " to " : "", o->save ? o->save : "");
	}
	if (o->save && (rc = outfile_commit(&of, err)) != CD_OK)
		return rc;
	r->self_rendered = true;
	return CD_OK;
}

static int read_files(struct report *r, int n, char **files, const struct fleet_opts *o, const struct cd_globals *g,
		      char *err)
{
	struct fleet_judge_opts jo = { -1, 0 };
	struct fleet f;
	int rc = CD_OK;

	fleet_init(&f);
	for (int i = 0; i < n && rc == CD_OK; i++) {
		struct mapped_file mf;
		char name[FLEET_NODE_NAME], ferr[CD_ERRMSG];
		fleet_name_from_path(files[i], name, sizeof name);
		rc = file_map(files[i], &mf, ferr);
		if (rc != CD_OK && rc != CD_ENOMEM) {
			/* missing, a directory, unreadable: a mistyped name, which a script must not
			 * read as a clean run; a report that is there but bad is the finding's alone */
			cmd_input_error(r, "fleet", ferr);
			rc = fleet_skip(&f, files[i], file_error_reason(files[i], ferr));
			continue;
		}
		if (rc == CD_OK) {
			char *utf8;
			const unsigned char *json;
			size_t len;

			/* a report cut short while read holds zeros there: JSON refuses them; one a
			 * Windows shell wrote may be UTF-16 */
			rc = utf16_text_as_utf8(mf.data, mf.size, &utf8, &json, &len);
			if (rc == CD_OK)
				rc = fleet_read_report(&f, json, len, name, ferr);
			free(utf8);
			file_unmap(&mf);
		}
		if (rc != CD_OK && rc != CD_ENOMEM)
			rc = fleet_skip(&f, files[i], ferr);
	}
	/* every input skipped: a monitor must not read an empty fleet as a healthy one */
	if (rc == CD_OK && n > 0 && f.n_nodes == 0)
		cmd_input_error(r, "fleet", f.n_skipped == 1 ? "the one report given was skipped; no node was read"
							   : "every report given was skipped; no node was read");
	if (rc == CD_OK)
		rc = fleet_judge(&f, &jo, r);
	if (rc == CD_OK && o->prometheus_dir)
		rc = fleet_write_prometheus(&f, o->prometheus_dir, o->prometheus ? stderr : NULL, err);
	else if (rc != CD_OK)
		cd_fail(err, rc, "fleet: %s", cd_strerror(rc));
	if (rc == CD_OK && o->save)
		rc = fleet_render(r, o, g, err);
	fleet_free(&f);
	return rc;
}

static int parse_int(const char *opt, const char *v, long lo, long hi, int *out, char *err)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || end == v || *end || x < lo || x > hi)
		return cd_fail(err, CD_EUSAGE, "%s wants a whole number from %ld to %ld, not '%.40s'", opt, lo, hi, v);
	*out = (int)x;
	return CD_OK;
}

static int parse_opts(struct fleet_opts *o, struct report *r, const struct cd_globals *g, char *err)
{
	bool rounds = false, size = false;
	int rc = CD_OK;

	for (size_t i = 0; i < g->args->n && rc == CD_OK; i++) {
		char *v = (char *)g->args->v[i].value; /* --labs splits its own copy of argv's word */
		uint64_t bytes;
		switch (g->args->v[i].opt->id) {
		case O_LABS: rc = parse_labs(o, v, err); break;
		case O_QUICK: o->quick = true; break;
		case O_CHECK: o->check = true; break;
		case O_NCCL:
			o->nccl = true;
			o->pairs = v && strcmp(v, "pairs") == 0;
			if (v && !o->pairs && strcmp(v, "allreduce") != 0)
				rc = cd_fail(err, CD_EUSAGE, "--nccl is allreduce or pairs, not '%.40s'", v);
			break;
		case O_ROUNDS:
			rounds = true;
			rc = parse_int("--rounds", v, 1, 100000, &o->rounds, err);
			break;
		case O_NCCL_SIZE:
			size = true;
			if (units_parse_size(v, &bytes) != CD_OK || bytes < 4 || bytes > ((uint64_t)16 << 30))
				rc = cd_fail(err, CD_EUSAGE, "--nccl-size wants a size from 4 bytes to 16GiB (e.g. 64MiB), not '%.40s'", v);
			o->nccl_size = (size_t)bytes;
			break;
		case O_TIMEOUT: rc = parse_int("--timeout", v, 1, 86400, &o->timeout_s, err); break;
		case O_PROMETHEUS: o->prometheus_dir = v; break;
		case O_SAVE: o->save = v; break;
		default: break; /* --format: read by main.c into r->format */
		}
	}
	if (rc == CD_OK && (rounds || size) && !o->pairs)
		rc = cd_fail(err, CD_EUSAGE, "--rounds and --nccl-size are for --nccl=pairs");
	if (rc == CD_OK && r->format == FMT_PROMETHEUS) {
		/* the fleet's own report stays in the command line's format; the metrics are files */
		o->prometheus = true;
		r->format = -1;
		if (!o->prometheus_dir)
			o->prometheus_dir = ".";
	}
	return rc;
}

static int fleet_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct fleet_opts o = { .timeout_s = DEFAULT_TIMEOUT_S };
	int rc;

	if ((rc = parse_opts(&o, r, g, err)) != CD_OK)
		return rc;
	if (argc > 1) {
		if (o.n_labs || o.nccl || o.check)
			return cd_fail(err, CD_EUSAGE, "--labs, --check and --nccl run under an MPI launcher; reports given as "
				       "files are read as they are (check reports' load results are compared)");
		return read_files(r, argc - 1, argv + 1, &o, g, err);
	}
	if (!fleet_under_launcher())
		return cd_fail(err, CD_EUSAGE, "name --json report files, or start under an MPI launcher "
			       "(mpirun -n N cudoctor fleet, srun --mpi=pmix cudoctor fleet)");
	return fleet_mpi_run(r, &o, g, err);
}

const struct cd_command cmd_fleet = {
	.name = "fleet",
	.summary = "many nodes judged together: from --json reports, or under mpirun / srun",
	.usage = "cudoctor [GLOBAL OPTIONS] fleet FILE...\n"
		 "       cudoctor [GLOBAL OPTIONS] fleet [--labs LIST] [--check] [--quick] [--nccl[=pairs]] [--timeout S] "
		 "(under mpirun -n N or srun --mpi=pmix)",
	.help = fleet_help,
	.notes = fleet_notes,
	.opts = fleet_opts,
	.operands = CLI_C_FILE,
	.needs = NEEDS_DRIVER_GENTLY,
	.linux_only = "its nodes are Linux hosts started by mpirun or srun",
	.run = fleet_run,
};
