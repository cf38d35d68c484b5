/* Dotted versions as users and NVIDIA write them, and the driver API's integer encoding. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/err.h"
#include "util/version.h"

static int read_part(const char **p, int *out)
{
	long v = 0;

	if (!isdigit((unsigned char)**p))
		return CD_EFORMAT;
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		if (v > INT_MAX / 10)
			return CD_EFORMAT;
		(*p)++;
	}
	*out = (int)v;
	return CD_OK;
}

int version_parse(const char *text, struct version *v)
{
	const char *p = text;
	int *parts[3];
	int i;

	memset(v, 0, sizeof(*v));
	if (!text)
		return CD_EFORMAT;
	parts[0] = &v->major;
	parts[1] = &v->minor;
	parts[2] = &v->patch;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == 'v' || *p == 'V')
		p++;
	for (i = 0; i < 3; i++) {
		if (read_part(&p, parts[i]))
			return i == 0 ? CD_EFORMAT : CD_OK;
		v->parts = i + 1;
		if (*p != '.' || !isdigit((unsigned char)p[1]))
			break;
		p++;
	}
	return CD_OK;
}

int version_cmp(const struct version *a, const struct version *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	if (a->patch != b->patch)
		return a->patch < b->patch ? -1 : 1;
	return 0;
}

struct version version_from_cuda_int(int v)
{
	struct version out = { v / 1000, (v % 1000) / 10, 0, 2 };
	return out;
}

int version_to_cuda_int(const struct version *v)
{
	return v->major * 1000 + v->minor * 10;
}

const char *version_format(const struct version *v, int max_parts, char *buf, size_t n)
{
	int parts = v->parts < max_parts ? v->parts : max_parts;
	bool driver = v->major >= 100;

	if (parts <= 0)
		snprintf(buf, n, "unknown");
	else if (parts == 1)
		snprintf(buf, n, "%d", v->major);
	else if (parts == 2)
		snprintf(buf, n, driver ? "%d.%02d" : "%d.%d", v->major, v->minor);
	else
		snprintf(buf, n, driver ? "%d.%02d.%02d" : "%d.%d.%d", v->major, v->minor, v->patch);
	return buf;
}

bool version_of_dll_name(const char *name, const char *family, struct version *v)
{
	size_t fl = strlen(family), k = 0;
	const char *p = name + fl;
	unsigned n = 0;

	if (strncasecmp(name, family, fl) != 0)
		return false;
	if (strncmp(p, "64_", 3) == 0 || strncmp(p, "32_", 3) == 0)
		p += 3;
	else if (*p == '_')
		p++;
	else
		return false;
	for (; *p >= '0' && *p <= '9' && k < 4; p++, k++)
		n = n * 10 + (unsigned)(*p - '0');
	if (strncmp(p, "_0", 2) == 0)
		p += 2;
	if (!k || strcasecmp(p, ".dll") != 0)
		return false;
	memset(v, 0, sizeof(*v));
	if (n >= 20) {
		v->major = (int)(n / 10);
		v->minor = (int)(n % 10);
		v->parts = 2;
	} else {
		v->major = (int)n;
		v->parts = 1;
	}
	return v->major >= 7;
}
