/* One node's reports for the fleet: doctor, devices, each asked-for lab on each GPU and
 * check with its load tests when asked, run through the commands themselves, so a node in
 * the fleet reads exactly as `cudoctor --json doctor` reads on it. */
#include "cmd/fleet/fleet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts.h"
#include "report/render.h"
#include "util/err.h"
#include "util/str.h"

#ifndef CUDOCTOR_VERSION
#define CUDOCTOR_VERSION "0.0.0"
#endif

/* The command's option of that long name, for values handed to it as main.c would. */
static const struct cli_opt *opt_named(const struct cd_command *cmd, const char *name)
{
	for (const struct cli_opt *o = cmd->opts; o && o->id; o++)
		if (o->long_name && strcmp(o->long_name, name) == 0)
			return o;
	return NULL;
}

/* Runs one command into a fresh report, with args as its parsed options, and appends its
 * JSON (with the GPU it ran on, gpu >= 0) to reports. */
static int run_command(const struct cd_command *cmd, int argc, char **argv, const struct cli_args *args,
		       const struct cd_globals *g, struct report_rec *reports, int gpu, struct strbuf *failures)
{
	struct cd_globals sub = *g;
	struct report r;
	struct report_rec top;
	char err[CD_ERRMSG] = "";
	int rc;

	if (report_init(&r, cmd->name) != CD_OK)
		return CD_ENOMEM;
	sub.args = args;
	rc = cd_run_judge_driver(g->run, &r, err);
	if (rc == CD_OK)
		rc = cmd->run(&r, argc, argv, &sub, err);
	if (rc == CD_ENOMEM || r.oom) {
		rc = CD_ENOMEM;
		goto out;
	}
	if (rc != CD_OK) {
		sb_printf(failures, "%s%s: %s", failures->len ? "; " : "", cmd->name, *err ? err : cd_strerror(rc));
		rc = CD_OK;
		goto out;
	}
	report_rec_top(&top, &r);
	if (gpu >= 0)
		report_field(&top, NULL, "fleet_gpu", rv_int(gpu));
	TRY(report_rec_end(&top));
	report_rec_push(reports, rv_json(report_to_json(&r)));
	rc = reports->rc == CD_EINTERNAL ? CD_ENOMEM : reports->rc; /* NULL from the renderer: out of memory */
out:
	report_free(&r);
	return rc;
}

static int run_labs(const struct fleet_opts *o, const struct cd_globals *g, struct report_rec *reports,
		    struct strbuf *failures)
{
	const struct gpu_probe *p = &g->run->probe;
	const struct cli_opt *quick = opt_named(&cmd_lab, "quick"), *device = opt_named(&cmd_lab, "device");
	char *argv[FLEET_MAX_LABS + 3], dev[16];
	struct cli_value vals[2];
	int rc = CD_OK;

	if (!device) /* the lab command's table lost --device: say so rather than run GPU 0 only */
		return sb_printf(failures, "%slab: no --device option to run each GPU", failures->len ? "; " : "");
	for (size_t i = 0; i < p->n_gpus && rc == CD_OK; i++) {
		struct cli_args args = { 0 };
		int argc = 0;
		if (p->gpus[i].cuda_ordinal < 0)
			continue;
		snprintf(dev, sizeof dev, "%d", p->gpus[i].cuda_ordinal);
		argv[argc++] = "lab";
		argv[argc++] = "run";
		for (size_t k = 0; k < o->n_labs; k++)
			argv[argc++] = (char *)o->labs[k];
		argv[argc] = NULL;
		vals[args.n++] = (struct cli_value){ device, dev };
		if (o->quick && quick)
			vals[args.n++] = (struct cli_value){ quick, NULL };
		args.v = vals;
		args.cap = args.n;
		rc = run_command(&cmd_lab, argc, argv, &args, g, reports, p->gpus[i].cuda_ordinal, failures);
	}
	return rc;
}

/* check on the whole node, its load tests in their default budget or --quick's */
static int run_check(const struct fleet_opts *o, const struct cd_globals *g, struct report_rec *reports,
		     struct strbuf *failures)
{
	const struct cli_opt *quick = opt_named(&cmd_check, "quick");
	char *argv[] = { "check", NULL };
	struct cli_value val;
	struct cli_args args = { 0 };

	if (o->quick && quick) {
		val = (struct cli_value){ quick, NULL };
		args.v = &val;
		args.n = args.cap = 1;
	}
	return run_command(&cmd_check, 1, argv, &args, g, reports, -1, failures);
}

int fleet_collect_node(const char *node, const struct fleet_opts *o, const struct cd_globals *g, char **json,
		       char *err)
{
	char *doctor_argv[] = { "doctor", NULL }, *devices_argv[] = { "devices", NULL };
	static const struct cli_args none = { 0 };
	json_t *bundle = json_object(); /* the wire format, not a report: no header, no findings */
	struct report_rec b, reports;
	struct strbuf failures;
	char *fail = NULL;
	int rc = CD_OK;

	*json = NULL;
	sb_init(&failures);
	report_rec_json(&b, bundle);
	report_field(&b, NULL, "tool", rv_str("cudoctor"));
	report_field(&b, NULL, "version", rv_str(CUDOCTOR_VERSION));
	report_field(&b, NULL, "command", rv_str("fleet-node"));
	report_field(&b, NULL, "node", rv_str(node));
	report_rec_array(&b, "reports", &reports);
	TRY(reports.rc);
	TRY(run_command(&cmd_doctor, 1, doctor_argv, &none, g, &reports, -1, &failures));
	TRY(run_command(&cmd_devices, 1, devices_argv, &none, g, &reports, -1, &failures));
	if (o->n_labs)
		TRY(run_labs(o, g, &reports, &failures));
	if (o->check)
		TRY(run_check(o, g, &reports, &failures));
	TRY(report_rec_end(&reports));
	if (!(fail = sb_detach(&failures))) {
		rc = CD_ENOMEM;
		goto out;
	}
	report_field(&b, NULL, "failure", rv_str(*fail ? fail : NULL));
	TRY(report_rec_end(&b));
	if (!(*json = json_dumps(bundle, JSON_COMPACT)))
		rc = CD_ENOMEM;
out:
	if (rc == CD_ENOMEM || rc == CD_EINTERNAL)
		cd_fail(err, rc = CD_ENOMEM, "out of memory collecting this node's reports");
	free(fail);
	sb_free(&failures);
	json_decref(bundle);
	return rc;
}
