/* Target names: parsing "sm_90a" / "9.0" and printing them back. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "kb/arch_name.h"
#include "util/err.h"
#include "util/str.h"

int kb_arch_parse(const char *text, struct kb_arch *out)
{
	const char *p = text;
	int major = 0, minor = 0, num = 0, digits = 0;

	memset(out, 0, sizeof(*out));
	if (!text)
		return CD_EFORMAT;
	if (strncmp(p, "sm_", 3) == 0 || strncmp(p, "SM_", 3) == 0)
		p += 3;
	else if (strncmp(p, "compute_", 8) == 0)
		p += 8;
	else if (strncmp(p, "lto_", 4) == 0)
		p += 4;
	if (!isdigit((unsigned char)*p))
		return CD_EFORMAT;
	while (isdigit((unsigned char)*p) && digits < 4) {
		num = num * 10 + (*p++ - '0');
		digits++;
	}
	if (*p == '.') {
		/* "9.0", "12.1": a compute capability */
		if (digits > 2 || !isdigit((unsigned char)p[1]) || isdigit((unsigned char)p[2]))
			return CD_EFORMAT;
		major = num;
		minor = p[1] - '0';
		p += 2;
		num = major * 10 + minor;
		if (major < 1)
			return CD_EFORMAT;
	} else if (digits < 2 || digits > 3) {
		return CD_EFORMAT;
	}
	if (*p == 'a' || *p == 'f' || *p == 'A' || *p == 'F') {
		out->suffix = (char)tolower((unsigned char)*p);
		p++;
	}
	if (*p != '\0')
		return CD_EFORMAT;
	if (num < 10)
		return CD_EFORMAT;
	out->num = num;
	return CD_OK;
}

void kb_arch_format(struct kb_arch a, const char *prefix, char *buf, size_t n)
{
	if (!n)
		return;
	if (!prefix)
		snprintf(buf, n, "%d.%d", kb_arch_major(a), kb_arch_minor(a));
	else if (a.suffix)
		snprintf(buf, n, "%s%d%c", prefix, a.num, a.suffix);
	else
		snprintf(buf, n, "%s%d", prefix, a.num);
}

int kb_arch_cmp(struct kb_arch a, struct kb_arch b)
{
	char x[24], y[24];

	/* what str_natcmp makes of two names "sm_N" + a suffix that is not a digit, without
	 * formatting them: listings sort thousands of images by arch (cuFFT: 40% of arch's time) */
	if (a.num >= 0 && b.num >= 0 && !isdigit((unsigned char)a.suffix) && !isdigit((unsigned char)b.suffix)) {
		if (a.num != b.num)
			return a.num < b.num ? -1 : 1;
		return (unsigned char)a.suffix < (unsigned char)b.suffix ? -1 : (unsigned char)a.suffix > (unsigned char)b.suffix;
	}
	kb_arch_format(a, "sm_", x, sizeof x);
	kb_arch_format(b, "sm_", y, sizeof y);
	return str_natcmp(x, y);
}

int kb_arch_qsort_cmp(const void *a, const void *b)
{
	return kb_arch_cmp(*(const struct kb_arch *)a, *(const struct kb_arch *)b);
}
