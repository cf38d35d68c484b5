/* What the labs learn or load from this machine beyond their GPU, through probes and rules
 * the lab room does not reach: lab p2p's link theory, lab nccl's libnccl, lab libraries'
 * libcublas. */
#ifndef CUDOCTOR_CMD_LAB_MACHINE_H
#define CUDOCTOR_CMD_LAB_MACHINE_H

#include "lab/lab.h"

/* Sets c's p2p_links, open_nccl and open_cublas. */
void lab_machine_fill(struct lab_ctx *c);

#endif
