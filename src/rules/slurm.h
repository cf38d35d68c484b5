/* What check --slurm-drain does with this node: scontrol's view of it read, and the drain or
 * resume decided from the ids that drain it. Pure: cmd/check/slurm.c asks scontrol and acts. */
#ifndef CUDOCTOR_RULES_SLURM_H
#define CUDOCTOR_RULES_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#define SLURM_REASON_PREFIX "cudoctor:"

enum slurm_action { SLURM_NONE, SLURM_DRAIN, SLURM_RESUME, SLURM_LEFT_ALONE };

struct slurm_plan {
	char node[256];           /* $SLURMD_NODENAME, else the short host name */
	char state[128];          /* scontrol's State= ("IDLE+DRAIN"), "" when unknown */
	char reason[512];         /* its Reason=, "" when none (safe text: the admin's words) */
	enum slurm_action action;
	char new_reason[512];     /* SLURM_DRAIN: "cudoctor: xid-errors,gpu-lost" */
	char line[1600];          /* the scontrol line as a shell would run it; "" for none */
};

/* State= and Reason= of `scontrol -o show node`'s output (data, size bytes) into p. */
void slurm_node_parse(const unsigned char *data, size_t size, struct slurm_plan *p);

/* p's action, new reason and line from its node, state and reason, and the n ids (0: the
 * checks passed): drain on ids unless an admin or NHC drained the node for another reason;
 * resume only a node whose reason starts with "cudoctor:". false when the node's name or the
 * reason cannot be put on a shell line (the action is then SLURM_NONE). */
bool slurm_decide(const char *const *ids, size_t n, struct slurm_plan *p);

/* "none", "drain", "resume", "left alone: drained for another reason" */
const char *slurm_action_name(enum slurm_action a);

#endif
