/* Inputs that could not be read: said on stderr, whatever the format on stdout, and turned
 * into exit 3, so a script never reads a missing file as a clean run. */
#include <stdio.h>

#include "cmd/cmd.h"

void cmd_input_error(struct report *r, const char *command, const char *message)
{
	fprintf(stderr, "cudoctor %s: %s\n", command, message);
	r->exit_override = CD_EXIT_FAILED;
}
