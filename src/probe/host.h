/* The machine a report comes from, for its header (facts/host.h). */
#ifndef CUDOCTOR_PROBE_HOST_H
#define CUDOCTOR_PROBE_HOST_H

#include "facts/host.h"

/* Fills h; a field that cannot be read stays "". Never fails. The os-release and cpuinfo
 * files are read from root (NULL: "/"), so a test can point it at a tree of its own. */
void probe_host(struct host_facts *h, const char *root);

#endif
