/* The kb's knowledge written beside the collected facts once, so rules and renderers
 * read one place: each driver version's branch, each GPU's toolkit range, each toolkit's
 * arch list and driver floor, each runtime's and framework's driver floor. */
#ifndef CUDOCTOR_FACTS_KB_H
#define CUDOCTOR_FACTS_KB_H

#include <stddef.h>

#include "facts/driver.h"
#include "facts/python.h"
#include "facts/runtime.h"
#include "facts/toolkit.h"

/* Fills the kb fields of every fact given (any pointer may be NULL; runtimes is an array
 * of n_runtime_sets). Returns CD_OK, or the kb's load error with err saying why and
 * every kb field left empty: the rules then run without the kb's knowledge. */
int facts_add_kb(struct gpu_probe *p, struct toolkits *tk, struct runtimes *runtimes,
		 size_t n_runtime_sets, struct python_info *py, char *err);

#endif
