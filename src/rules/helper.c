/* helper-timeout: a program cudoctor asked (nvcc --version, python3 for its site-packages)
 * did not answer within the limit and was stopped with its process group (probe/spawn.c). */
#include <stdio.h>
#include <string.h>

#include "rules/catalogue.h"
#include "rules/internal.h"

int rules_helper_timeout(struct report *r, const char *program, const char *args, unsigned ms)
{
	const char *base = strrchr(program, '/') ? strrchr(program, '/') + 1 : program;
	bool oom = false;
	char lim[32];
	struct finding_vars v;
	struct finding *f;

	snprintf(lim, sizeof lim, "%.3g s", ms / 1000.0);
	finding_vars_init(&v);
	finding_var(&v, "program_name", "%s", base);
	finding_var(&v, "program", "%s", program);
	finding_var(&v, "args", "%s", args);
	finding_var(&v, "limit", "%s", lim);
	f = finding_make(r, SEV_WARN, "helper-timeout", program, &v);
	oom |= !f;
	oom |= finding_evidence(f, "%s was stopped after %s, with every process it started (its process group); "
				"what it would have told is unknown", program, lim) != CD_OK;
	return rules_status(oom);
}

int rules_toolkit_timeouts(const struct toolkits *ts, struct report *r)
{
	for (size_t i = 0; i < ts->n; i++) {
		const struct toolkit *t = &ts->t[i];
		int rc;

		if (!t->timed_out)
			continue;
		if ((rc = rules_helper_timeout(r, t->nvcc, t->timed_out, t->timeout_ms)) != CD_OK)
			return rc;
	}
	return CD_OK;
}

int rule_helper_timeouts(const struct facts *f, struct report *r)
{
	return rules_toolkit_timeouts(f->toolkits, r);
}
