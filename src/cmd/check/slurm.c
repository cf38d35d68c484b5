/* check --slurm-drain (cmd/check/slurm.h): the node's state read and changed through
 * scontrol, the one interface Slurm gives a HealthCheckProgram. */
#include "cmd/check/slurm.h"

#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "os/env.h"
#include "os/host.h"
#include "rules/scope.h"
#include "util/err.h"

size_t slurm_drain_ids(const struct report *r, const char **ids, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_findings; i++) {
		const struct finding *f = &r->findings[i];
		bool seen = false;

		if (f->severity != SEV_ERROR || !finding_scope_drains(f->id))
			continue;
		for (size_t k = 0; k < n && !seen; k++)
			seen = strcmp(ids[k], f->id) == 0;
		if (!seen && n < max)
			ids[n++] = f->id;
	}
	return n;
}

static void node_name(char *out, size_t cap)
{
	const char *env = os_getenv("SLURMD_NODENAME");

	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return;
	}
	/* hostname -s: NodeName is the short name on almost every cluster */
	if (!os_hostname(out, cap))
		out[0] = '\0';
	out[strcspn(out, ".")] = '\0';
}

int slurm_plan(const char *const *ids, size_t n, struct slurm_plan *p, char *err)
{
	char out[8192];
	const char *args[] = { "-o", "show", "node", NULL, NULL };
	int rc;

	memset(p, 0, sizeof *p);
	node_name(p->node, sizeof p->node);
	if (!p->node[0])
		return cd_fail(err, CD_EIO, "this node's name is unknown (no SLURMD_NODENAME, no host name)");
	args[3] = p->node;
	if ((rc = cd_run_program("scontrol", args, out, sizeof out, err)) != CD_OK)
		return rc;
	slurm_node_parse((const unsigned char *)out, strlen(out), p);
	if (!slurm_decide(ids, n, p))
		return cd_fail(err, CD_EIO, "this node's name or the drain reason cannot be put on a command line");
	return CD_OK;
}

int slurm_act(const struct slurm_plan *p, char *err)
{
	char node_arg[300], reason_arg[600], out[4096];
	const char *drain[] = { "update", node_arg, "State=DRAIN", reason_arg, NULL };
	const char *resume[] = { "update", node_arg, "State=RESUME", NULL };

	snprintf(node_arg, sizeof node_arg, "NodeName=%s", p->node);
	snprintf(reason_arg, sizeof reason_arg, "Reason=%s", p->new_reason);
	if (p->action == SLURM_DRAIN)
		return cd_run_program("scontrol", drain, out, sizeof out, err);
	if (p->action == SLURM_RESUME)
		return cd_run_program("scontrol", resume, out, sizeof out, err);
	return CD_OK;
}

int slurm_put(struct report *r, const struct slurm_plan *p, bool dry_run, bool acted)
{
	struct report_rec top, s;
	int rc;

	report_rec_top(&top, r);
	report_rec_section(&top, "Slurm (--slurm-drain%s)", dry_run ? " --dry-run" : "");
	report_rec_object(&top, "slurm", &s);
	report_field(&s, "node", "node", rv_str(p->node));
	report_field(&s, "state", "state", rv_str(p->state[0] ? p->state : NULL));
	report_field(&s, "reason", "reason", rv_str(p->reason[0] ? p->reason : NULL));
	report_field(&s, "action", "action", rv_str(slurm_action_name(p->action)));
	report_field(&s, dry_run ? "would run" : "ran", "command", rv_str(p->line[0] ? p->line : NULL));
	report_field(&s, NULL, "dry_run", rv_bool(dry_run));
	report_field(&s, NULL, "done", rv_bool(acted));
	rc = report_rec_end(&s);
	rc = report_rec_end(&top) != CD_OK && rc == CD_OK ? top.rc : rc;
	if (rc == CD_OK && dry_run && p->line[0])
		rc = report_answer(r, "%s", p->line);
	return rc;
}
