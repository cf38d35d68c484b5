/* The report header's facts: /etc/os-release, uname, glibc, /proc/cpuinfo, the host name,
 * $CUDOCTOR_NODE and the date. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "os/host.h"
#include "os/env.h"
#include "probe/host.h"
#include "util/err.h"
#include "util/file.h"
#include "util/host_path.h"

#define SMALL_FILE (256 * 1024)

/* The value of KEY= in an os-release text, quotes and escapes as os-release(5) writes them. */
static void os_release_value(const char *text, const char *key, char *out, size_t cap)
{
	size_t klen = strlen(key);

	out[0] = '\0';
	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *v = line + klen + 1;
		char quote = 0;
		size_t n = 0;

		if (strncmp(line, key, klen) != 0 || line[klen] != '=')
			continue;
		if (*v == '"' || *v == '\'')
			quote = *v++;
		for (; *v && *v != '\n' && *v != quote && n + 1 < cap; v++) {
			if (*v == '\\' && quote == '"' && v[1] && v[1] != '\n')
				v++;
			out[n++] = *v;
		}
		out[n] = '\0';
		return;
	}
}

/* /proc/cpuinfo names the model in its first lines; the rest may be cut off. */
static char *read_small(const char *root, const char *path)
{
	char full[4096], err[CD_ERRMSG];
	char *text = NULL;

	if (host_path(full, sizeof full, root, path) != CD_OK || file_read_text(full, SMALL_FILE, &text, NULL, err) != CD_OK)
		return NULL;
	return text;
}

static void os_facts(struct host_facts *h, const char *root)
{
	/* Linux's files: under Wine the Linux host's would be read for Windows */
	char *text = os_is_linux() ? read_small(root, "/etc/os-release") : NULL;
	char name[64], version[64];

	if (!text && !(text = os_is_linux() ? read_small(root, "/usr/lib/os-release") : NULL))
		return;
	os_release_value(text, "PRETTY_NAME", h->os, sizeof h->os);
	os_release_value(text, "ID", h->os_id, sizeof h->os_id);
	os_release_value(text, "VERSION_ID", h->os_version, sizeof h->os_version);
	if (!h->os[0]) {
		os_release_value(text, "NAME", name, sizeof name);
		os_release_value(text, "VERSION", version, sizeof version);
		snprintf(h->os, sizeof h->os, "%s%s%s", name, *name && *version ? " " : "", version);
	}
	free(text);
}

/* The first "model name" (x86) or "Model" (arm64 boards) line's value. */
static void cpu_facts(struct host_facts *h, const char *root)
{
	static const char *const keys[] = { "model name", "Model", "cpu model", NULL };
	char *text = os_is_linux() ? read_small(root, "/proc/cpuinfo") : NULL;

	for (size_t k = 0; text && keys[k] && !h->cpu[0]; k++) {
		for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
			size_t klen = strlen(keys[k]);
			char *colon, *end;

			if (strncmp(line, keys[k], klen) != 0 || (line[klen] != '\t' && line[klen] != ' ' && line[klen] != ':'))
				continue;
			if (!(colon = strchr(line, ':')) || ((end = strchr(line, '\n')) && colon > end))
				continue;
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			end = strchr(colon, '\n');
			snprintf(h->cpu, sizeof h->cpu, "%.*s", (int)(end ? end - colon : (long)strlen(colon)), colon);
			break;
		}
	}
	free(text);
}

static void date_fact(struct host_facts *h)
{
	const char *epoch = os_getenv("SOURCE_DATE_EPOCH");
	time_t now = time(NULL);
	struct tm tm;
	char *end;

	if (epoch && *epoch) {
		long long v = strtoll(epoch, &end, 10);

		if (!*end && v >= 0)
			now = (time_t)v;
	}
	if (gmtime_r(&now, &tm))
		strftime(h->date, sizeof h->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void probe_host(struct host_facts *h, const char *root)
{
	const char *node = os_getenv("CUDOCTOR_NODE");

	memset(h, 0, sizeof(*h));
	os_facts(h, root);
	cpu_facts(h, root);
	os_kernel(h->kernel, sizeof h->kernel, h->machine, sizeof h->machine);
	os_libc_version(h->glibc, sizeof h->glibc);
	os_hostname(h->hostname, sizeof h->hostname);
	snprintf(h->node, sizeof h->node, "%s", node && *node ? node : h->hostname);
	date_fact(h);
}
