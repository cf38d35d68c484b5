/* What the labs learn or load from this machine beyond their GPU, asked of the run context
 * (the parts and rules the lab room does not reach): lab p2p's link theory, lab nccl's
 * libnccl, lab libraries' libcublas, lab host-transfer's sysfs link. */
#ifndef CUDOCTOR_CMD_LAB_MACHINE_H
#define CUDOCTOR_CMD_LAB_MACHINE_H

#include "cmd/cmd.h"
#include "lab/lab.h"

/* Sets c's machine (run), p2p_links, open_nccl, open_cublas and sysfs_link. */
void lab_machine_fill(struct lab_ctx *c, struct cd_run *run);

#endif
