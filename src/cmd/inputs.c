/* Inputs that could not be read: said on stderr, whatever the format on stdout, and turned
 * into exit 3, so a script never reads a missing file as a clean run. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/safetext.h"

void cmd_input_error(struct report *r, const char *command, const char *message)
{
	char line[4 * CD_ERRMSG];

	/* the message names a file, whose name is anyone's bytes */
	safe_text(line, sizeof line, message, strlen(message), 0);
	fprintf(stderr, "cudoctor %s: %s\n", command, line);
	r->exit_override = CD_EXIT_FAILED;
}
