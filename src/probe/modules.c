/* Reads /proc/modules for the GPU drivers loaded. */
#include <string.h>
#include <stdlib.h>

#include "os/host.h"
#include "probe/modules.h"
#include "util/err.h"
#include "util/file.h"
#include "util/host_path.h"

static bool name_is(const char *p, size_t n, const char *name)
{
	return n == strlen(name) && memcmp(p, name, n) == 0;
}

void modules_parse(const char *text, size_t len, struct kernel_modules *out)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		size_t n = 0;

		while (p + n < line_end && p[n] != ' ')
			n++;
		if (name_is(p, n, "nvidia"))
			out->nvidia = true;
		else if (name_is(p, n, "nvidia_uvm"))
			out->nvidia_uvm = true;
		else if (name_is(p, n, "nouveau"))
			out->nouveau = true;
		p = nl ? nl + 1 : end;
	}
}

int modules_probe(struct kernel_modules *out, const char *root, char *err)
{
	char path[4096], why[CD_ERRMSG];
	char *text = NULL;
	size_t len = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if (!os_is_linux() || host_path(path, sizeof path, root, "/proc/modules") != CD_OK)
		return CD_OK;
	/* /proc files report size 0; a machine's module list is a few KiB */
	rc = file_read_text(path, 1u << 20, &text, &len, why);
	if (rc == CD_ENOMEM)
		return cd_fail(err, rc, "%s", why);
	if (rc != CD_OK)
		return CD_OK;
	out->read = true;
	modules_parse(text, len, out);
	free(text);
	return CD_OK;
}
