/* The deployment checks' facts collected at once: the kernel log, the modules loaded and
 * the environment CUDA reads (facts/deploy.h). */
#ifndef CUDOCTOR_PROBE_DEPLOY_H
#define CUDOCTOR_PROBE_DEPLOY_H

#include "facts/deploy.h"

/* root NULL: the host root ($CUDOCTOR_HOST_ROOT). CD_OK, or CD_ENOMEM; a file that cannot
 * be read is a fact in d. */
int deploy_probe(struct deploy_info *d, const char *root, char *err);

#endif
