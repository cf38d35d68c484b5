/* `cudoctor mem status` (placeholder until NVML lands). */
#include "cmd/mem_internal.h"
#include "util/err.h"

int mem_status_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	return cd_fail(err, CD_EUNSUPPORTED, "mem status: not built yet");
}
