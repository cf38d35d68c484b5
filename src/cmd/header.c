/* The header every report carries for sharing (docs/json.md "header"), and --anonymize. */
#include <stdlib.h>

#include "cmd/cmd.h"
#include "probe/host.h"

#ifndef CUDOCTOR_VERSION
#define CUDOCTOR_VERSION "0.0.0"
#endif

/* os-release, the host name and CUDOCTOR_NODE are anyone's bytes: safe text, never refused */
static json_t *nonempty(const char *s)
{
	return *s ? report_json_text(s) : json_null();
}

int cmd_share_header(struct report *r, bool anonymize)
{
	struct host_facts h;
	json_t *j;
	int rc;

	probe_host(&h, getenv("CUDOCTOR_HOST_ROOT"));
	j = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b}", "version", CUDOCTOR_VERSION,
		      "os", nonempty(h.os), "os_id", nonempty(h.os_id), "os_version", nonempty(h.os_version),
		      "kernel", nonempty(h.kernel), "machine", nonempty(h.machine), "glibc", nonempty(h.glibc),
		      "cpu", nonempty(h.cpu), "date", nonempty(h.date), "hostname", nonempty(h.hostname),
		      "node", nonempty(h.node), "anonymized", 0);
	if ((rc = report_set_header(r, j)) != CD_OK || !anonymize)
		return rc;
	return report_anonymize(r, &(struct report_anon){ .hostname = h.hostname, .home = getenv("HOME") });
}
