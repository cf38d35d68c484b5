/* Error codes shared by all library code. Functions that act return CD_OK or a
 * negative CD_E*; when they can say more, they fill a caller's char[CD_ERRMSG]. */
#ifndef CUDOCTOR_ERR_H
#define CUDOCTOR_ERR_H

enum cd_status {
	CD_OK = 0,
	CD_ENOMEM = -1,       /* allocation failed */
	CD_EIO = -2,          /* open/read/stat failed */
	CD_EFORMAT = -3,      /* input is malformed or truncated */
	CD_ENOTFOUND = -4,    /* the thing looked for does not exist */
	CD_EUSAGE = -5,       /* caller gave a bad argument (user input) */
	CD_EUNSUPPORTED = -6, /* well-formed, but a variant we do not handle */
	CD_EDRIVER = -7,      /* an NVIDIA library call failed */
	CD_ETIMEOUT = -8,     /* a helper program did not finish within its time limit */
	CD_EINTERNAL = -9,    /* cudoctor's own bug: a value its libraries refused (a JSON string) */
};

#define CD_ERRMSG 256

/* The code base's one error-propagation macro. Runs `expr` (a call returning CD_OK or a
 * negative CD_E*), keeps its status in the caller's `int rc` and, when it failed, jumps to
 * the caller's `out:` label, where the one cleanup path runs. Spelling the jump out with
 * an if would be the same thing; the macro keeps a run of calls readable. No other macro
 * may return or jump. */
#define TRY(expr)                       \
	do {                            \
		rc = (expr);            \
		if (rc != CD_OK)        \
			goto out;       \
	} while (0)

const char *cd_strerror(int status);

/* Writes a one-line message into err (which holds CD_ERRMSG bytes) if err is
 * not NULL, and returns status so callers can `return cd_fail(err, CD_EIO, ...)`. The
 * message is safe text (util/safetext.h): what it quotes from an input cannot break a line,
 * a terminal or a JSON string. */
int cd_fail(char *err, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
