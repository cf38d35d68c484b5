/* scontrol's one-line view of a node on arbitrary bytes (rules/slurm.c), then every decision
 * check --slurm-drain can take on it: the fields stay within their buffers as safe text, a
 * drain or resume line is always one shell line, and a node drained for another reason is
 * never drained or resumed. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules/slurm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ids[] = { "xid-errors", "gpu-lost" };
	struct slurm_plan p;

	for (size_t n = 0; n <= 2; n++) {
		memset(&p, 0, sizeof p);
		memcpy(p.node, "gpu17", 6);
		slurm_node_parse(data, size, &p);
		if (!memchr(p.state, '\0', sizeof p.state) || !memchr(p.reason, '\0', sizeof p.reason))
			abort();
		if (!slurm_decide(ids, n, &p))
			abort(); /* "gpu17" and the ids always quote */
		if (strchr(p.line, '\n'))
			abort();
		if (strstr(p.state, "DRAIN") && strncmp(p.reason, SLURM_REASON_PREFIX, strlen(SLURM_REASON_PREFIX)) != 0 &&
		    (p.action == SLURM_DRAIN || p.action == SLURM_RESUME))
			abort();
	}
	return 0;
}
