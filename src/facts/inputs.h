/* The files a command reads for device code: those named on its command line and those found
 * under a folder, an interpreter's site-packages or Ollama's install (probe/arch_inputs.h
 * finds them; arch and doctor read them). */
#ifndef CUDOCTOR_FACTS_INPUTS_H
#define CUDOCTOR_FACTS_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

struct arch_inputs {
	char **paths;
	bool *explicit_input; /* named on the command line, not found under a folder */
	size_t n, cap;
};

#endif
