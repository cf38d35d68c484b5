/* Node names as one compact list in Slurm's hostlist syntax, "node[01-03,07],login1", the
 * form scontrol, sinfo and pdsh take back. */
#ifndef CUDOCTOR_FLEET_HOSTLIST_H
#define CUDOCTOR_FLEET_HOSTLIST_H

#include <stddef.h>

/* names[0..n) in any order, duplicates allowed; *out is malloc'ed ("" for n == 0).
 * Numbers of different digit counts stay in separate brackets ("node[8-9],node[10-11]"),
 * so zero-padding is never lost. O(n log n). CD_OK or CD_ENOMEM. */
int fleet_hostlist(const char *const *names, size_t n, char **out);

struct fleet;
/* The hostlist of the fleet's nodes idx[0..n). */
int fleet_hostlist_of(const struct fleet *f, const size_t *idx, size_t n, char **out);

/* Order for node names: by prefix, then by the trailing number's value ("node2" < "node10"). */
int fleet_name_cmp(const char *a, const char *b);

#endif
