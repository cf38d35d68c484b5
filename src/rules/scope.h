/* Whose problem a finding is: the node's health, which a cluster acts on by draining the node,
 * or the environment a job brings (Python, frameworks, toolkits, libraries, the program and
 * its inputs), which draining would not fix. Decided once per id, for every id cudoctor can
 * emit (tests/unit/test_finding_scope.c walks them); fleet's drain lines read it. */
#ifndef CUDOCTOR_RULES_SCOPE_H
#define CUDOCTOR_RULES_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

enum finding_scope {
	SCOPE_UNKNOWN,     /* an id this cudoctor does not know (a newer one's report) */
	SCOPE_NODE,        /* driver, GPU, kernel log and Xid, ECC, device nodes, load tests */
	SCOPE_ENVIRONMENT, /* Python, frameworks, toolkits, libraries, the program, its inputs */
};

/* The scope of id; a case row's id ("wsl-libcuda/copy") is its id's. */
enum finding_scope finding_scope(const char *id);

/* "node", "environment", "unknown": the words the reports use. */
const char *finding_scope_name(enum finding_scope s);

/* Whether an error finding of id is a reason to drain its node: node scope only, so an id of
 * unknown scope never drains one. */
bool finding_scope_drains(const char *id);

/* The table, for its test: the i-th id in order and its scope; NULL past the end. */
const char *finding_scope_at(size_t i, enum finding_scope *scope);

#endif
