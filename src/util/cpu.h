/* What this processor runs beyond the baseline its code is built for, for the vectorised
 * paths that choose at run time (explain's scanner). */
#ifndef CUDOCTOR_UTIL_CPU_H
#define CUDOCTOR_UTIL_CPU_H

#include <stdbool.h>

/* x86-64 with AVX2 (and the OS saving its registers); false on every other processor. */
bool cpu_has_avx2(void);

#endif
