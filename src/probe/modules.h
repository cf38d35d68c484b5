/* Which kernel modules are loaded, from /proc/modules: the NVIDIA driver's and nouveau,
 * the open-source driver that must not hold the GPU beside it. */
#ifndef CUDOCTOR_PROBE_MODULES_H
#define CUDOCTOR_PROBE_MODULES_H

#include <stddef.h>

#include "facts/deploy.h"

/* Fills out from /proc/modules' text ("nvidia_uvm 1437696 0 - Live 0x..." per line). */
void modules_parse(const char *text, size_t len, struct kernel_modules *out);

/* Reads root's /proc/modules (NULL: the host root); an unreadable file leaves out->read
 * false. CD_OK, or CD_ENOMEM. */
int modules_probe(struct kernel_modules *out, const char *root, char *err);

#endif
