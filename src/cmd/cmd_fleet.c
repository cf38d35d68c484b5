/* `cudoctor fleet`: many nodes judged together, from --json reports gathered any way
 * (FILE...) or, under mpirun or srun, collected by one leader rank per node and gathered
 * by rank 0 (cmd/fleet/). The judgement itself is src/fleet. */
#include <errno.h>
#include <getopt.h>
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

#define DEFAULT_TIMEOUT_S 300

static const char fleet_help[] =
	"usage: cudoctor [GLOBAL OPTIONS] fleet FILE...\n"
	"       mpirun -n N cudoctor [GLOBAL OPTIONS] fleet [--labs LIST [--quick]] [--nccl] [--timeout S]\n"
	"       srun --mpi=pmix cudoctor [GLOBAL OPTIONS] fleet [...]\n"
	"\n"
	"Judges many nodes at once: what differs between them (driver and its CUDA version, GPU\n"
	"models and counts, toolkit, CUDA runtime, PyTorch, NCCL, MIG, persistence and ECC modes),\n"
	"every node's error and warn findings grouped by id with compact node lists\n"
	"(node[03,17]), outliers in lab numbers by median and MAD, and the Slurm commands that\n"
	"drain the nodes with errors (scontrol update nodename=... state=drain reason=...).\n"
	"\n"
	"With FILE...: reads `cudoctor --json doctor`, `devices` and `lab` reports gathered any\n"
	"way (srun cudoctor --json doctor > $(hostname).json). A report's node is the one it\n"
	"names, else the file name without its extension; several reports of one node merge.\n"
	"A file that is not JSON, truncated, from another tool, or from a newer major version of\n"
	"cudoctor is named and skipped (finding fleet-report-skipped).\n"
	"\n"
	"Under an MPI launcher (no FILE): the ranks of each node elect a leader, which runs doctor\n"
	"and devices (and the labs) on its node; rank 0 gathers the reports and prints the fleet's.\n"
	"Needs the MPI plug-in libcudoctor-fleet-mpi.so (built where mpicc exists), found beside\n"
	"cudoctor, in plugins/ there, in ../lib/cudoctor, or named by CUDOCTOR_FLEET_MPI.\n"
	"  --labs LIST      also run these labs (e.g. bandwidth,host-transfer) on each GPU\n"
	"  --quick          the labs' short runs\n"
	"  --nccl           also a cross-rank NCCL all-reduce, one GPU per rank (its place on\n"
	"                   its host picks the device), floats verified, 1 MiB to 256 MiB within\n"
	"                   free memory: algbw and busbw (x 2(n-1)/n) per size and each rank's\n"
	"                   time; NCCL_NVLS_ENABLE=0 unless set (finding fleet-nccl-failed)\n"
	"  --timeout S      rank 0 waits at most S seconds for the other nodes (default 300);\n"
	"                   nodes that did not report by then are named (fleet-node-missing)\n"
	"  --prometheus DIR also write DIR/NODE.prom per node, for node_exporter's textfile collector\n"
	"  --save FILE      rank 0 writes the report to FILE itself, not to stdout: it survives a\n"
	"                   launcher that ends the job when a rank dies (the global --output would\n"
	"                   be written by every rank)\n"
	"\n"
	"Environment: CUDOCTOR_NODE names this node (default: the host name).\n"
	"Exit status: 0 no error finding on any node, 1 an error finding, 2 usage, 3 cudoctor failed.\n";

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
	FILE *out = o->save ? fopen(o->save, "w") : stdout;
	int rc;

	if (!out)
		return cd_fail(err, CD_EIO, "--save %s: %s", o->save, strerror(errno));
	rc = render_report(r, &g->render, out);
	if (fflush(out) != 0 || (out != stdout && fclose(out) != 0) || rc != CD_OK)
		return cd_fail(err, CD_EIO, "cannot write the report%s%s", o->save ? " to " : "", o->save ? o->save : "");
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
		if (rc == CD_OK) {
			rc = fleet_read_report(&f, mf.data, mf.size, name, ferr);
			file_unmap(&mf);
		}
		if (rc != CD_OK && rc != CD_ENOMEM)
			rc = fleet_skip(&f, files[i], ferr);
	}
	if (rc == CD_OK)
		rc = fleet_judge(&f, &jo, r);
	if (rc == CD_OK && o->prometheus_dir)
		rc = fleet_write_prometheus(&f, o->prometheus_dir, err);
	else if (rc != CD_OK)
		cd_fail(err, rc, "fleet: %s", cd_strerror(rc));
	if (rc == CD_OK && o->save)
		rc = fleet_render(r, o, g, err);
	fleet_free(&f);
	return rc;
}

static int fleet_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	static const struct option opts[] = {
		{ "labs", required_argument, NULL, 'l' }, { "quick", no_argument, NULL, 'q' },
		{ "timeout", required_argument, NULL, 't' }, { "prometheus", required_argument, NULL, 'p' },
		{ "save", required_argument, NULL, 's' }, { "nccl", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct fleet_opts o = { .timeout_s = DEFAULT_TIMEOUT_S };
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		char *end;
		long v;
		switch (c) {
		case 'l':
			if ((rc = parse_labs(&o, optarg, err)) != CD_OK)
				return rc;
			break;
		case 'q': o.quick = true; break;
		case 't':
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 86400)
				return cd_fail(err, CD_EUSAGE, "--timeout wants seconds from 1 to 86400, not '%s'", optarg);
			o.timeout_s = (int)v;
			break;
		case 'p': o.prometheus_dir = optarg; break;
		case 's': o.save = optarg; break;
		case 'n': o.nccl = true; break;
		default:
			return cd_fail(err, CD_EUSAGE, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		if (o.n_labs || o.nccl)
			return cd_fail(err, CD_EUSAGE, "--labs and --nccl run under an MPI launcher; reports given as files are read as they are");
		return read_files(r, argc - optind, argv + optind, &o, g, err);
	}
	if (!fleet_under_launcher())
		return cd_fail(err, CD_EUSAGE, "name --json report files, or start under an MPI launcher "
			       "(mpirun -n N cudoctor fleet, srun --mpi=pmix cudoctor fleet)");
	return fleet_mpi_run(r, &o, g, err);
}

const struct cd_command cmd_fleet = {
	.name = "fleet",
	.summary = "many nodes judged together: from --json reports, or under mpirun / srun",
	.help = fleet_help,
	.needs = NEEDS_DRIVER_GENTLY,
	.run = fleet_run,
};
