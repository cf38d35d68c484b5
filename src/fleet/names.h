/* What a report may call a node and a finding. The fleet prints both into shell lines
 * (scontrol, srun) and file names (--prometheus), so a report is read only when they are. */
#ifndef CUDOCTOR_FLEET_NAMES_H
#define CUDOCTOR_FLEET_NAMES_H

#include <stdbool.h>

/* The longest finding id read from a report. */
#define FLEET_ID_MAX 64

/* An RFC 1123 host name: dot-separated labels of letters, digits and '-' (not first or
 * last in a label), each 1 to 63 bytes, at most 253 bytes in all. */
bool fleet_node_name_ok(const char *s);

/* A finding id as docs/findings.md spells them: 1 to FLEET_ID_MAX of a-z, 0-9 and '-'. */
bool fleet_finding_id_ok(const char *s);

#endif
