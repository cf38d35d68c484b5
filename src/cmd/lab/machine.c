/* What the labs learn or load from this machine beyond their GPU (lab_ctx's p2p_links,
 * open_nccl, open_cublas): the topology probe and link theory, and libnccl and libcublas
 * looked for where doctor looks for CUDA libraries. */
#include "cmd/lab/machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cublas.h"
#include "driver/nccl.h"
#include "driver/nvml.h"
#include "kb/links.h"
#include "lab/p2p_links.h"
#include "os/env.h"
#include "probe/gpus.h"
#include "probe/cublas_find.h"
#include "probe/nccl_find.h"
#include "probe/python.h"
#include "probe/runtimes.h"
#include "probe/topology.h"
#include "rules/topology.h"
#include "util/err.h"
#include "util/sort.h"

/* The GPU and topology probes, then topo_pair_theory per pair, re-indexed from NVML order to
 * CUDA ordinals; from the run's libraries and facts, nothing loaded again. A missing NVML
 * leaves the NVLink theory unknown (and says why). */
static int p2p_links(const struct lab_ctx *c, struct p2p_links *o, char *err)
{
	const struct nvml *nv = c->nv;
	const struct gpu_probe *p = c->probe;
	int rc = CD_OK;
	struct topo_probe *t = calloc(1, sizeof *t);
	bool have_t = false;

	memset(o, 0, sizeof *o);
	if (!t)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if ((rc = kb_links_load(err)) != CD_OK)
		goto out;
	if (!nv)
		snprintf(o->why_unknown, sizeof o->why_unknown, "%s", p->nvml_load_error[0] ? p->nvml_load_error : "NVML is not available");
	if ((rc = topo_probe_collect(t, p, c->d, nv, NULL, err)) != CD_OK)
		goto out;
	have_t = true;
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
out:
	if (have_t)
		topo_probe_free(t);
	free(t);
	return rc;
}

/* every libnccl the search saw, so a user sees which one ran and which others exist */
static void copies_note(const struct nccl_copies *c, char *note, size_t cap)
{
	size_t used = (size_t)snprintf(note, cap, "libnccl copies found:");

	for (size_t i = 0; i < c->rt.n && used < cap; i++)
		used += (size_t)snprintf(note + used, cap - used, "%s %s (%s)", i ? "," : "", c->rt.r[i].path,
					 c->rt.r[i].version_text[0] ? c->rt.r[i].version_text : "version unknown");
	if (c->rt.n == 0)
		snprintf(note, cap, "libnccl copies found: none");
}

static int open_nccl(struct nccl *nc, char *note, size_t note_cap, char *err)
{
	struct nccl_copies copies;
	int rc = nccl_find(&copies, os_getenv("HOME"), err);

	if (rc != CD_OK)
		return rc;
	rc = nccl_load(nc, (const char *const *)copies.dirs, err);
	copies_note(&copies, note, note_cap);
	nccl_copies_free(&copies);
	return rc;
}

void lab_machine_fill(struct lab_ctx *c)
{
	c->p2p_links = p2p_links;
	c->open_nccl = open_nccl;
	c->open_cublas = cublas_find_load;
}
