/* Every --gpu SPEC of a command line, in order, parsed once into a caller's array: the
 * accumulation gencode and plan share. */
#include "cmd/cmd.h"
#include "kb/kb.h"

int cmd_gpu_specs(const struct cli_args *args, int opt_id, struct gpu_spec *specs, size_t max, size_t *n,
		  char *err)
{
	int rc;

	for (size_t i = 0; i < args->n; i++) {
		if (args->v[i].opt->id != opt_id)
			continue;
		if (*n == max)
			return cd_fail(err, CD_EUSAGE, "at most %zu --gpu", max);
		if ((rc = kb_parse_gpu_spec(args->v[i].value, &specs[*n], err)) != CD_OK)
			return rc;
		++*n;
	}
	return CD_OK;
}
