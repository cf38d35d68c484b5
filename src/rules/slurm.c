/* check --slurm-drain's decision (rules/slurm.h): scontrol's one-line form read, and what a
 * health check may do to the node. */
#include "rules/slurm.h"

#include <stdio.h>
#include <string.h>

#include "util/err.h"
#include "util/safetext.h"
#include "util/str.h"

/* KEY=value of one line of scontrol's one-line form: up to the next space for most keys;
 * Reason= runs to the end of its line (it may hold spaces and '=') */
static void field(const char *text, size_t size, const char *key, char *out, size_t cap)
{
	size_t klen = strlen(key), at = 0, end;

	out[0] = '\0';
	for (; at + klen < size; at++)
		if ((at == 0 || text[at - 1] == ' ') && memcmp(text + at, key, klen) == 0 && text[at + klen] == '=')
			break;
	if (at + klen >= size)
		return;
	at += klen + 1;
	for (end = at; end < size && text[end] != '\n' && (text[end] != ' ' || strcmp(key, "Reason") == 0); end++)
		;
	safe_text(out, cap, text + at, end - at, 0);
}

void slurm_node_parse(const unsigned char *data, size_t size, struct slurm_plan *p)
{
	field((const char *)data, size, "State", p->state, sizeof p->state);
	field((const char *)data, size, "Reason", p->reason, sizeof p->reason);
}

bool slurm_decide(const char *const *ids, size_t n, struct slurm_plan *p)
{
	/* "IDLE+DRAIN", "MIXED+DRAIN", "DRAINED", "DRAINING" */
	bool drained = strstr(p->state, "DRAIN") != NULL;
	bool ours = strncmp(p->reason, SLURM_REASON_PREFIX, strlen(SLURM_REASON_PREFIX)) == 0;
	char node[600], reason[600];
	size_t used, len;

	p->action = SLURM_NONE;
	p->line[0] = p->new_reason[0] = '\0';
	if (n) {
		used = (size_t)snprintf(p->new_reason, sizeof p->new_reason, "%s ", SLURM_REASON_PREFIX);
		for (size_t i = 0; i < n && used < sizeof p->new_reason; i++)
			used += (size_t)snprintf(p->new_reason + used, sizeof p->new_reason - used, "%s%s", i ? "," : "", ids[i]);
		len = strlen(p->new_reason);
		/* Slurm shows a reason with " [user@time]" after it */
		if (drained && !ours)
			p->action = SLURM_LEFT_ALONE;
		else if (!(drained && strncmp(p->reason, p->new_reason, len) == 0 &&
			   (p->reason[len] == '\0' || p->reason[len] == ' ')))
			p->action = SLURM_DRAIN;
	} else if (drained && ours) {
		p->action = SLURM_RESUME;
	}
	if (p->action != SLURM_DRAIN && p->action != SLURM_RESUME)
		return true;
	if (str_quote_sh(p->node, SHQ_NONE, node, sizeof node) != CD_OK ||
	    (p->action == SLURM_DRAIN && str_quote_sh(p->new_reason, SHQ_NONE, reason, sizeof reason) != CD_OK)) {
		p->action = SLURM_NONE;
		return false;
	}
	if (p->action == SLURM_DRAIN)
		snprintf(p->line, sizeof p->line, "scontrol update NodeName=%s State=DRAIN Reason=%s", node, reason);
	else
		snprintf(p->line, sizeof p->line, "scontrol update NodeName=%s State=RESUME", node);
	return true;
}

const char *slurm_action_name(enum slurm_action a)
{
	switch (a) {
	case SLURM_DRAIN: return "drain";
	case SLURM_RESUME: return "resume";
	case SLURM_LEFT_ALONE: return "left alone: drained for another reason";
	case SLURM_NONE: break;
	}
	return "none";
}
