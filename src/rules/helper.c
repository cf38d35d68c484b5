/* helper-timeout: a program cudoctor asked (nvcc --version, python3 for its site-packages)
 * did not answer within the limit and was stopped with its process group (probe/spawn.c). */
#include <stdio.h>
#include <string.h>

#include "rules/internal.h"

int rules_helper_timeout(struct report *r, const char *program, const char *args, unsigned ms)
{
	const char *base = strrchr(program, '/') ? strrchr(program, '/') + 1 : program;
	bool oom = false;
	char lim[32];
	struct finding *f;

	snprintf(lim, sizeof lim, "%.3g s", ms / 1000.0);
	f = report_add_finding(r, SEV_WARN, "helper-timeout", program, "%s %s did not answer within %s", base, args,
			       lim);
	oom |= !f;
	oom |= finding_evidence(f, "%s was stopped after %s, with every process it started (its process group); "
				"what it would have told is unknown", program, lim) != CD_OK;
	oom |= finding_why(f, "A program that does not answer is waiting on something outside it: a network or NFS "
			   "mount that hangs, a wrapper script waiting on a licence server or a lock. Whatever "
			   "runs it (a build, a notebook) hangs the same way; cudoctor stops it so the rest of "
			   "the report can be made.") != CD_OK;
	oom |= finding_fix(f, "time %s %s   # does it answer, and how long does it take?", program, args) != CD_OK;
	oom |= finding_fix(f, "CUDOCTOR_HELPER_TIMEOUT=60 cudoctor ...   # if it is only slow: a longer limit, in seconds") != CD_OK;
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
