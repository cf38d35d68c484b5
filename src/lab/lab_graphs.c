/* graphs: launch overhead per tiny kernel, N dependent launches in a stream against
 * the same N captured once into a CUDA graph and replayed. */
#include <stdio.h>

#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/stats.h"
#include "util/err.h"

struct tiny {
	CUfunction f;
	CUdeviceptr counter;
	int n;
	CUgraphExec exec;
};

static int launches(struct lab_ctx *c, void *arg, char *err)
{
	int rc = CD_OK;
	struct tiny *t = arg;
	void *args[] = { &t->counter };
	for (int i = 0; i < t->n; i++)
		TRY(lab_cu(c, c->d->LaunchKernel(t->f, 1, 1, 1, 32, 1, 1, 0, c->s, args, NULL), "cuLaunchKernel", err));
out:
	return rc;
}

static int replay(struct lab_ctx *c, void *arg, char *err)
{
	int rc = CD_OK;
	struct tiny *t = arg;
	TRY(lab_cu(c, c->d->GraphLaunch(t->exec, c->s), "cuGraphLaunch", err));
out:
	return rc;
}

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	struct tiny t = { .n = c->tiny ? 16 : c->quick ? 2000 : 10000 };
	CUgraph g = NULL;
	int nrep = c->quick ? 3 : 5;
	double ms[16];
	unsigned expected = 0, got = 0;
	TRY(lab_fn(c, "lab_tiny", &t.f, err));
	TRY(lab_alloc(c, &t.counter, 4, err));
	TRY(lab_cu(c, c->d->MemsetD32(t.counter, 0, 1), "cuMemsetD32", err));
	TRY(lab_time(c, launches, &t, 1, nrep, ms, err));
	expected += (unsigned)t.n * (unsigned)(nrep + 1);
	double stream_us = lab_stats_of(ms, (size_t)nrep).median * 1e3 / t.n;

	double t0 = lab_now_s();
	TRY(lab_cu(c, c->d->StreamBeginCapture(c->s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture", err));
	rc = launches(c, &t, err);
	CUresult er = c->d->StreamEndCapture(c->s, &g); /* ends the capture even when a launch failed */
	if (rc != CD_OK)
		goto out;
	TRY(lab_cu(c, er, "cuStreamEndCapture", err));
	double capture_ms = (lab_now_s() - t0) * 1e3;
	t0 = lab_now_s();
	TRY(lab_cu(c, c->d->GraphInstantiate(&t.exec, g, 0), "cuGraphInstantiate", err));
	double inst_ms = (lab_now_s() - t0) * 1e3;
	TRY(lab_time(c, replay, &t, 1, nrep, ms, err));
	expected += (unsigned)t.n * (unsigned)(nrep + 1);
	double graph_us = lab_stats_of(ms, (size_t)nrep).median * 1e3 / t.n;
	TRY(lab_sync(c, err));
	TRY(lab_cu(c, c->d->MemcpyDtoH(&got, t.counter, 4), "cuMemcpyDtoH", err));
	if (got != expected) {
		r->wrong_result = true;
		snprintf(r->note, sizeof r->note, "the counter says %u kernels ran, %u were launched", got, expected);
		goto out;
	}
	lab_add(r, "us", stream_us, "per kernel, launched into a stream");
	lab_add(r, "us", graph_us, "per kernel, as a graph node");
	lab_add(r, "x", stream_us / graph_us, "stream / graph");
	lab_add(r, "ms", capture_ms, "capture %d launches (once)", t.n);
	lab_add(r, "ms", inst_ms, "instantiate the graph (once)");
	lab_add(r, "", got, "kernels that ran (counter)");
	lab_plot_bar(&r->plot, "stream", stream_us);
	lab_plot_bar(&r->plot, "graph", graph_us);
	snprintf(r->setup, sizeof r->setup,
		 "%d launches of a 1-block kernel that bumps a counter, back to back in one stream, timed with events "
		 "(device throughput, median of %d); the same %d launches captured into a graph and replayed; the "
		 "counter checks every launch ran",
		 t.n, nrep, t.n);
	snprintf(r->plot.title, sizeof r->plot.title, "Launch overhead per tiny kernel");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "microseconds per kernel");
	judge_graphs(r, stream_us, graph_us);
out:
	if (t.exec)
		c->d->GraphExecDestroy(t.exec);
	if (g)
		c->d->GraphDestroy(g);
	lab_free(c, &t.counter);
	return rc;
}

const struct lab lab_graphs = {
	.name = "graphs",
	.concept = "execution model: launch overhead, CUDA graphs",
	.measures = "microseconds per tiny kernel: stream launches vs graph replay",
	.claim = "every kernel launch costs microseconds of fixed overhead; a CUDA graph submits many kernels at "
		 "once and replays them with less overhead per kernel",
	.lesson = "When a step is many small kernels, capture it once into a CUDA graph (or fuse the kernels); "
		  "launch overhead, not the GPU, is what limits small workloads.",
	.run = run,
};
