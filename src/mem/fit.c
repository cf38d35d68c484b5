/* What fits in a memory budget: the largest context and batch (the estimate is
 * monotone in both, so bisection), blocks that fit for partial offload, GPUs
 * needed, and the highest-precision quantisation whose weights fit. */
#include <stdio.h>
#include <string.h>

#include "mem/estimate.h"

#define MAX_SEARCH_CONTEXT (1ull << 24)
#define MAX_SEARCH_BATCH (1ull << 20)

static uint64_t total_at(const struct mem_model *m, const struct mem_opts *base, uint64_t context,
			 uint64_t batch)
{
	struct mem_opts o = *base;
	struct mem_estimate e;
	o.context = context;
	o.batch = batch;
	mem_estimate(m, &o, &e);
	return e.total;
}

/* Largest x in [1, hi] with f(x) <= budget, 0 if none; f is non-decreasing in x. */
static uint64_t bisect(const struct mem_model *m, const struct mem_opts *o, uint64_t budget,
		       bool by_context, uint64_t hi)
{
	uint64_t lo = 0; /* f(lo) fits (0 is a sentinel) */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2;
		uint64_t t = by_context ? total_at(m, o, mid, o->batch) : total_at(m, o, o->context, mid);
		if (t <= budget)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static uint32_t layers_that_fit(const struct mem_model *m, const struct mem_opts *o, uint64_t budget,
				const struct mem_estimate *e)
{
	uint64_t layers = 0;
	for (uint32_t l = 0; l < m->n_layers; l++)
		layers += m->layers[l].weight_bytes;
	uint64_t fixed = e->total - (e->kv + layers); /* everything that is not per block */
	if (fixed > budget)
		return 0;
	uint64_t left = budget - fixed;
	uint32_t n = 0;
	/* llama.cpp offloads from the last block backwards; the per-block cost is what matters */
	for (uint32_t l = m->n_layers; l-- > 0;) {
		uint64_t cost = m->layers[l].weight_bytes + mem_layer_kv(m, o, l, o->context, o->batch);
		if (cost > left)
			break;
		left -= cost;
		n++;
	}
	return n;
}

void mem_fit_search(const struct mem_model *m, const struct mem_opts *o, uint64_t budget,
		    struct mem_fit *f)
{
	struct mem_estimate e;
	memset(f, 0, sizeof *f);
	f->budget = budget;
	mem_estimate(m, o, &e);
	f->fits = e.total <= budget;
	f->fits_known = !f->fits || (e.act_known && (o->train || e.kv_known));
	uint64_t diff = f->fits ? budget - e.total : e.total - budget;
	if (diff > (uint64_t)INT64_MAX)
		diff = (uint64_t)INT64_MAX;
	f->headroom = f->fits ? (int64_t)diff : -(int64_t)diff;
	f->context_matters = e.kv_known || e.act_known;
	if (f->context_matters) {
		uint64_t hi = o->context > MAX_SEARCH_CONTEXT ? o->context : MAX_SEARCH_CONTEXT;
		f->max_context = bisect(m, o, budget, true, hi);
		f->max_batch = bisect(m, o, budget, false, MAX_SEARCH_BATCH);
	}
	if (!o->train && m->n_layers)
		f->layers_fit = f->fits ? m->n_layers : layers_that_fit(m, o, budget, &e);
	/* split by layers: every GPU pays its own context, workspace and activations */
	uint64_t per_gpu_fixed = e.cuda_context + e.workspace + e.activations;
	if (budget > per_gpu_fixed) {
		uint64_t spread = e.total - per_gpu_fixed, room = budget - per_gpu_fixed;
		uint64_t n = (spread + room - 1) / room;
		f->gpus_needed = n ? (unsigned)(n > 4096 ? 4096 : n) : 1;
	}
	if (o->train || !m->params)
		return;
	static const char *const quants[] = {"Q8_0", "Q6_K", "Q5_K", "Q4_K", "Q3_K", "Q2_K"};
	double now_bits = 8.0 * (double)m->weight_bytes / (double)m->params;
	for (size_t i = 0; i < sizeof quants / sizeof quants[0]; i++) {
		double bits = mem_dtype_bits(quants[i]);
		if (bits >= now_bits)
			continue;
		struct mem_opts q = *o;
		q.weight_scale = bits / now_bits;
		mem_estimate(m, &q, &e);
		if (e.total <= budget) {
			snprintf(f->quant_fit, sizeof f->quant_fit, "%s", quants[i]);
			return;
		}
	}
}
