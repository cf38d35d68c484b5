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
#include "util/str.h"

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

/* KEY=value of scontrol's one-line form into out: up to the next " Word=" for most keys;
 * Reason= runs to the end of its line (it may hold spaces and '=') */
static void field(const char *text, const char *key, char *out, size_t cap)
{
	const char *p = text, *e;
	size_t klen = strlen(key);

	out[0] = '\0';
	for (; (p = strstr(p, key)) != NULL; p += klen)
		if ((p == text || p[-1] == ' ') && p[klen] == '=')
			break;
	if (!p)
		return;
	p += klen + 1;
	e = p + strcspn(p, "\n");
	if (strcmp(key, "Reason") != 0)
		e = p + strcspn(p, " \n");
	snprintf(out, cap, "%.*s", (int)(e - p), p);
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
	char out[8192], quoted[600];
	const char *args[] = { "-o", "show", "node", p->node, NULL };
	bool drained, ours;
	size_t used = 0;
	int rc;

	memset(p, 0, sizeof *p);
	node_name(p->node, sizeof p->node);
	if (!p->node[0])
		return cd_fail(err, CD_EIO, "this node's name is unknown (no SLURMD_NODENAME, no host name)");
	args[3] = p->node;
	if ((rc = cd_run_program("scontrol", args, out, sizeof out, err)) != CD_OK)
		return rc;
	field(out, "State", p->state, sizeof p->state);
	field(out, "Reason", p->reason, sizeof p->reason);
	/* "IDLE+DRAIN", "MIXED+DRAIN", "DRAINED", "DRAINING" */
	drained = strstr(p->state, "DRAIN") != NULL;
	ours = strncmp(p->reason, SLURM_REASON_PREFIX, strlen(SLURM_REASON_PREFIX)) == 0;
	if (n) {
		used = (size_t)snprintf(p->new_reason, sizeof p->new_reason, "%s ", SLURM_REASON_PREFIX);
		for (size_t i = 0; i < n && used < sizeof p->new_reason; i++)
			used += (size_t)snprintf(p->new_reason + used, sizeof p->new_reason - used, "%s%s", i ? "," : "", ids[i]);
		/* Slurm appends " [user@time]" to a reason it shows */
		if (drained && !ours)
			p->action = SLURM_LEFT_ALONE;
		else if (drained && strncmp(p->reason, p->new_reason, strlen(p->new_reason)) == 0 &&
			 (p->reason[strlen(p->new_reason)] == '\0' || p->reason[strlen(p->new_reason)] == ' '))
			p->action = SLURM_NONE;
		else
			p->action = SLURM_DRAIN;
	} else {
		p->action = drained && ours ? SLURM_RESUME : SLURM_NONE;
	}
	if (str_quote_sh(p->node, SHQ_NONE, quoted, sizeof quoted) != CD_OK)
		return cd_fail(err, CD_EIO, "this node's name cannot be put on a command line");
	if (p->action == SLURM_DRAIN) {
		char reason[600];

		if (str_quote_sh(p->new_reason, SHQ_NONE, reason, sizeof reason) != CD_OK)
			return cd_fail(err, CD_EIO, "the drain reason cannot be put on a command line");
		snprintf(p->line, sizeof p->line, "scontrol update NodeName=%s State=DRAIN Reason=%s", quoted, reason);
	} else if (p->action == SLURM_RESUME) {
		snprintf(p->line, sizeof p->line, "scontrol update NodeName=%s State=RESUME", quoted);
	}
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

static const char *action_name(enum slurm_action a)
{
	switch (a) {
	case SLURM_DRAIN: return "drain";
	case SLURM_RESUME: return "resume";
	case SLURM_LEFT_ALONE: return "left alone: drained for another reason";
	case SLURM_NONE: break;
	}
	return "none";
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
	report_field(&s, "action", "action", rv_str(action_name(p->action)));
	report_field(&s, dry_run ? "would run" : "ran", "command", rv_str(p->line[0] ? p->line : NULL));
	report_field(&s, NULL, "dry_run", rv_bool(dry_run));
	report_field(&s, NULL, "done", rv_bool(acted));
	rc = report_rec_end(&s);
	rc = report_rec_end(&top) != CD_OK && rc == CD_OK ? top.rc : rc;
	if (rc == CD_OK && dry_run && p->line[0])
		rc = report_answer(r, "%s", p->line);
	return rc;
}
