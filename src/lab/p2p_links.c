/* lab p2p's link theory: the GPU and topology probes, then topo_pair_theory per pair,
 * re-indexed from NVML order to CUDA ordinals. */
#include "lab/p2p_links.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/nvml.h"
#include "kb/links.h"
#include "probe/gpus.h"
#include "rules/topology.h"
#include "util/err.h"

int p2p_links_collect(const struct cudrv *cu, const struct nvml *nv, const struct gpu_probe *p,
		      struct p2p_links *o, char *err)
{
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
	if ((rc = topo_probe_collect(t, p, cu, nv, NULL, err)) != CD_OK)
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
