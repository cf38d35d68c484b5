/* Names for status codes and the one-line error helper every room uses. */
#include <stdarg.h>
#include <stdio.h>

#include "util/err.h"

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
	}
	return "unknown error";
}

int cd_fail(char *err, int status, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return status;
	va_start(ap, fmt);
	vsnprintf(err, CD_ERRMSG, fmt, ap);
	va_end(ap);
	return status;
}
