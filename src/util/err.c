/* Names for status codes and the one-line error helper every room uses. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/err.h"
#include "util/safetext.h"

const char *cd_strerror(int status)
{
	switch (status) {
	case CD_OK: return "success";
	case CD_ENOMEM: return "out of memory";
	case CD_EIO: return "I/O error";
	case CD_EFORMAT: return "malformed input";
	case CD_ENOTFOUND: return "not found";
	case CD_EUSAGE: return "usage error";
	case CD_EUNSUPPORTED: return "unsupported";
	case CD_EDRIVER: return "driver call failed";
	case CD_ETIMEOUT: return "timed out";
	case CD_EINTERNAL: return "internal error";
	}
	return "unknown error";
}

int cd_fail(char *err, int status, const char *fmt, ...)
{
	char raw[CD_ERRMSG];
	va_list ap;

	if (!err)
		return status;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	/* messages quote inputs (a section or tensor name, a path) and are printed and put in
	 * JSON: always one line of valid UTF-8, whatever the input held or where the cut fell */
	safe_text(err, CD_ERRMSG, raw, strlen(raw), 0);
	return status;
}
