/* Whether a text's numbers support the cause an error-level finding names: where they
 * contradict it, the finding says what the numbers show and lowers its claim. Pure. */
#ifndef CUDOCTOR_RULES_PREMISE_H
#define CUDOCTOR_RULES_PREMISE_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/oom.h"

/* A device out-of-memory whose own numbers show plenty free for the request (free >= request +
 * max(1 GiB, total/10)): not a shortage of the GPU's memory. Writes what the numbers show into
 * why (cap bytes) and returns true; false when the numbers are missing or fit a shortage. */
bool premise_oom_contradicted(const struct oom_numbers *n, char *why, size_t cap);

#endif
