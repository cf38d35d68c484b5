/* What the labs learn or load from this machine beyond their GPU (lab_ctx's p2p_links,
 * open_nccl, open_cublas, sysfs_link), asked of the run context: its topology part and link
 * theory, and libnccl and libcublas looked for where doctor looks for CUDA libraries. */
#include "cmd/lab/machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cublas.h"
#include "driver/nccl.h"
#include "driver/nvml.h"
#include "facts/topology.h"
#include "kb/links.h"
#include "lab/p2p_links.h"
#include "rules/topology.h"
#include "util/err.h"

/* The topology part, then topo_pair_theory per pair, re-indexed from NVML order to CUDA
 * ordinals; from the run's libraries and facts, nothing loaded again. A missing NVML leaves
 * the NVLink theory unknown (and says why). */
static int p2p_links(const struct lab_ctx *c, struct p2p_links *o, char *err)
{
	const struct gpu_probe *p = c->probe;
	const struct topo_probe *t;
	int rc;

	memset(o, 0, sizeof *o);
	if ((rc = kb_links_load(err)) != CD_OK)
		return rc;
	if (!c->nv)
		snprintf(o->why_unknown, sizeof o->why_unknown, "%s", p->nvml_load_error[0] ? p->nvml_load_error : "NVML is not available");
	if ((rc = cd_run_topology(c->machine, &t, err)) != CD_OK)
		return rc;
	for (size_t a = 0; a < t->n_gpus; a++)
		for (size_t b = 0; b < t->n_gpus; b++) {
			int ca = t->gpus[a].cuda_ordinal, cb = t->gpus[b].cuda_ordinal;
			const struct topo_pair *pair = topo_pair_of(t, a, b);
			struct topo_theory th;
			if (a == b || !pair || ca < 0 || cb < 0 || ca >= TOPO_MAX_GPUS || cb >= TOPO_MAX_GPUS)
				continue;
			topo_cell(t, a, b, o->cell[ca][cb], sizeof o->cell[ca][cb]);
			topo_pair_theory(t, pair, &th);
			if (!th.known)
				continue;
			o->bps[ca][cb] = th.gbs * 1e9;
			snprintf(o->text[ca][cb], sizeof o->text[ca][cb], "%s", th.text);
		}
	return CD_OK;
}

static int open_nccl(const struct lab_ctx *c, struct nccl *nc, char *note, size_t note_cap, char *err)
{
	return cd_run_load_nccl(c->machine, nc, note, note_cap, err);
}

static int open_cublas(const struct lab_ctx *c, struct cublas *b, char *err)
{
	return cd_run_load_cublas(c->machine, b, err);
}

static int sysfs_link(const struct lab_ctx *c, int *gen, int *width)
{
	char err[CD_ERRMSG];

	return cd_run_sysfs_link(c->machine, c->ordinal, gen, width, err);
}

void lab_machine_fill(struct lab_ctx *c, struct cd_run *run)
{
	c->machine = run;
	c->p2p_links = p2p_links;
	c->open_nccl = open_nccl;
	c->open_cublas = open_cublas;
	c->sysfs_link = sysfs_link;
}
