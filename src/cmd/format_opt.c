/* --format FORMAT of doctor and devices (CMD_OPT_FORMAT_ENTRY in cmd.h). */
#include <string.h>

#include "cmd/cmd.h"
#include "util/err.h"

int cmd_format_option(struct report *r, const struct cd_globals *g, char *err)
{
	static const char *const names[] = { [FMT_TEXT] = "text", [FMT_MARKDOWN] = "markdown",
					     [FMT_JSON] = "json", [FMT_PROMETHEUS] = "prometheus" };

	for (size_t i = 0; i < g->args->n; i++) {
		const char *v = g->args->v[i].value;
		int f = -1;

		if (g->args->v[i].opt->id != CMD_OPT_FORMAT)
			continue;
		for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
			if (strcmp(v, names[k]) == 0)
				f = (int)k;
		if (f < 0)
			return cd_fail(err, CD_EUSAGE, "--format must be text, markdown, json or prometheus, not '%.40s'", v);
		/* --json with --format prometheus: two answers to one question */
		if (g->render.format != FMT_TEXT && (int)g->render.format != f)
			return cd_fail(err, CD_EUSAGE, "--format %s conflicts with --%s", v,
				       names[g->render.format]);
		r->format = f;
	}
	return CD_OK;
}
