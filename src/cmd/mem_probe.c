/* `cudoctor mem probe` (placeholder). */
#include "cmd/mem_internal.h"
#include "util/err.h"

int mem_probe_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	return cd_fail(err, CD_EUNSUPPORTED, "mem probe: not built yet");
}
