/* What the text alone says, without this machine: the error's catalogue entry, how its number
 * was read, what the GPU and the arch list it names amount to, the toolkits that build an arch
 * it asks for, and what its Xid numbers mean. */
#include "explain/evidence.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kb/compat.h"
#include "kb/kb.h"
#include "util/err.h"
#include "util/str.h"

size_t explain_offline_evidence(const struct explain_match *m, char lines[][EXPLAIN_EVIDENCE_LINE], size_t max)
{
	size_t n = 0;
	char buf[32], era[400];

	if (m->error) {
		n = str_lines_add(*lines, EXPLAIN_EVIDENCE_LINE, n, max, "%s (%d, %s API): \"%s\"", m->error->name, m->error->code,
			 kb_api_name(m->error->api), m->error->string);
	}
	if (eras_evidence(m, era, sizeof(era)))
		n = str_lines_add(*lines, EXPLAIN_EVIDENCE_LINE, n, max, "%s", era);
	if (m->invalid_value_launch)
		n = str_lines_add(*lines, EXPLAIN_EVIDENCE_LINE, n, max, "an invalid argument at a kernel launch: CUDA 13 reports a block "
			 "beyond the GPU's limits (threads per block, block dimensions) as invalid argument (1), "
			 "where earlier releases said invalid configuration argument (9)");
	if (m->block_threads > 0 && strcmp(m->finding, "launch-out-of-resources") == 0)
		n = str_lines_add(*lines, EXPLAIN_EVIDENCE_LINE, n, max, "the launch's block in the text: %d threads", m->block_threads);
	if (m->gpu_name[0] && m->has_arch) {
		const struct kb_gpu *g = kb_gpu_by_name(m->gpu_name);

		kb_arch_format(m->arch, NULL, buf, sizeof(buf));
		n = str_lines_add(*lines, EXPLAIN_EVIDENCE_LINE, n, max, "the GPU in the text, %s, is CC %s (sm_%d)%s", m->gpu_name, buf,
			 m->arch.num, g ? "" : "");
	}
	if (m->n_supported) {
		char list[200] = "";
		size_t used = 0;
		bool runs = false, jit = false;

		for (size_t k = 0; k < m->n_supported; k++) {
			kb_arch_format(m->supported[k], m->supported_ptx[k] ? "compute_" : "sm_", buf,
				       sizeof(buf));
			if (used < sizeof(list) - 16)
				used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", k ? " " : "",
							 buf);
		}
		if (m->has_arch)
			compat_arch_list((unsigned)m->arch.num, m->supported, m->supported_ptx, m->n_supported, &runs,
					 &jit);
		if (m->has_arch)
			n = str_lines_add(*lines, EXPLAIN_EVIDENCE_LINE, n, max, "this PyTorch was built for %s: %s", list,
				 runs ? "SASS in it runs on this GPU (so the failing kernel is elsewhere, e.g. "
				 "an extension)"
				 : jit ? "no SASS runs on this GPU (SASS runs only on its own major, at or above "
				 "its minor); only its old PTX could be JIT-compiled, and PyTorch does not count "
				 "on that"
				 : "none runs on this GPU (SASS runs only on its own major, at or above its minor)");
	}
	if (m->has_arch && m->message && strcmp(m->message->extract, "nvcc_arch") == 0) {
		const struct kb_toolkit *first, *last;

		kb_arch_format(m->arch, "compute_", buf, sizeof(buf));
		if (kb_arch_toolkit_range(m->arch, &first, &last) == CD_OK)
			n = str_lines_add(*lines, EXPLAIN_EVIDENCE_LINE, n, max, "toolkits that build %s: CUDA %s%s%s", buf, first->release_text,
				 last ? " to " : " and newer", last ? last->release_text : "");
		else
			n = str_lines_add(*lines, EXPLAIN_EVIDENCE_LINE, n, max, "no toolkit in cudoctor's tables builds %s", buf);
	}
	if (m->has_vllm) {
		const double *g = m->vllm_gib;
		double need = g[0] + g[1] + g[2];

		n = str_lines_add(*lines, EXPLAIN_EVIDENCE_LINE, n, max, "vLLM's budget (total GPU memory x "
			 "gpu_memory_utilization) is %.2f GiB: model weights %.2f + non-torch %.2f + activation peak "
			 "%.2f = %.2f GiB, leaving %.2f GiB for the KV cache%s", need + g[3], g[0], g[1], g[2], need, g[3],
			 g[3] <= 0 ? ": the model and its activations alone exceed the budget" : "");
	}
	if (m->ggml_ctx > 0)
		n = str_lines_add(*lines, EXPLAIN_EVIDENCE_LINE, n, max, "the context is %ld tokens (n_ctx): the KV cache and "
			 "the compute buffers grow with it%s", m->ggml_ctx, m->ggml_ctx > 16384 ? "; a smaller one (-c, "
			 "Ollama's num_ctx) needs less" : "");
	if (m->ggml_plan[0])
		n = str_lines_add(*lines, EXPLAIN_EVIDENCE_LINE, n, max, "%s", m->ggml_plan);
	if (m->has_host_mem) {
		const double gib = 1024.0 * 1024.0 * 1024.0, short_by = m->host_need - m->host_avail;
		char verdict[80] = "enough, by these numbers";

		if (short_by > 0)
			snprintf(verdict, sizeof(verdict), "%.1f GiB short (%.1fx what is available)", short_by / gib,
				 m->host_avail > 0 ? m->host_need / m->host_avail : 0.0);
		n = str_lines_add(*lines, EXPLAIN_EVIDENCE_LINE, n, max, "the model needs %.1f GiB of system memory (for "
			 "what is kept off the GPU), %.1f GiB is available: %s", m->host_need / gib, m->host_avail / gib,
			 verdict);
	}
	if (m->has_tgi)
		n += tgi_mem_evidence(&m->tgi, lines[n], EXPLAIN_EVIDENCE_LINE, max - n);
	if (m->has_vram_wait) {
		char held[48] = "";

		if (m->vram_gib > 0)
			snprintf(held, sizeof(held), " (the %.1f GiB its runner held)", m->vram_gib);
		n = str_lines_add(*lines, EXPLAIN_EVIDENCE_LINE, n, max, "Ollama waited %.1f s after a runner exited "
			 "for the GPU's free memory to grow back%s; it had not, so the next model was placed "
			 "with what was free then (fewer layers on the GPU, or none)", m->vram_wait_s, held);
	}
	for (size_t k = 0; k < m->n_xids; k++) {
		const struct kb_xid *x = kb_xid_find(m->xids[k]);

		/* each Xid's own action: the fix lines are the same for every Xid */
		n = str_lines_add(*lines, EXPLAIN_EVIDENCE_LINE, n, max, "Xid %d: %s%s%s (%s)%s%s", m->xids[k],
			 x ? x->name : "not in cudoctor's table", x ? " - " : "", x ? x->meaning : "",
			 x ? x->kind : "?", x ? "; " : "", x ? x->action : "");
	}
	return n;
}
