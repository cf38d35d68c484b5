/* Findings re-read by what else the text says (premise.h): one rule per cause whose message is
 * another cause's too. */
#include "explain/premise.h"

#include <string.h>

static const struct premise_marker markers[] = {
	{ "cudamallocasync", HINT_MALLOC_ASYNC },
	{ "pin_memory", HINT_PINNED },
	{ "pinned memory", HINT_PINNED },
	{ "pinned host", HINT_PINNED },
	{ "cudahostalloc", HINT_PINNED },
	{ "cudamallochost", HINT_PINNED },
	{ "page-locked", HINT_PINNED },
	{ "wsl", HINT_WSL },
	/* a running container that worked and then lost its GPU, not one that never had it */
	{ "daemon-reload", HINT_LOST_LATER },
	{ "after some time", HINT_LOST_LATER },
	{ "after a while", HINT_LOST_LATER },
	{ "after a few hours", HINT_LOST_LATER },
	{ "after several hours", HINT_LOST_LATER },
	{ "lost gpu", HINT_LOST_LATER },
	{ "lost access", HINT_LOST_LATER },
	{ "loses access", HINT_LOST_LATER },
	{ "lose access", HINT_LOST_LATER },
	{ "randomly", HINT_LOST_LATER },
	/* ComfyUI and Fooocus start PyTorch with cudaMallocAsync unless told not to */
	{ "comfyui", HINT_ASYNC_APP },
	{ "comfy\\", HINT_ASYNC_APP },
	{ "comfy/", HINT_ASYNC_APP },
	{ "fooocus", HINT_ASYNC_APP },
};

const struct premise_marker *premise_markers(size_t *n)
{
	*n = sizeof(markers) / sizeof(markers[0]);
	return markers;
}

static bool is(const struct explain_match *m, const char *id)
{
	return strcmp(m->finding, id) == 0;
}

static bool code_is(const struct explain_match *m, int code)
{
	return m->error && m->error->code == code;
}

static bool message_is(const struct explain_match *m, const char *key)
{
	return m->message && strcmp(m->message->key, key) == 0;
}

static void drop(struct explain_result *r, size_t i)
{
	memmove(&r->m[i], &r->m[i + 1], (r->n - i - 1) * sizeof(r->m[0]));
	r->n--;
}

/* The id m stands for on this platform with these hints, "" to drop it, or m's own. */
static const char *reread(const struct explain_match *m, const struct text_platform *p, unsigned hints)
{
	bool oom = is(m, "out-of-memory") || strncmp(m->finding, "oom-", 4) == 0 ||
		   (is(m, "cuda-error") && code_is(m, 2));

	/* 801 where the async allocator runs is the allocator's */
	if ((hints & (HINT_MALLOC_ASYNC | HINT_ASYNC_APP)) && (is(m, "cuda-error") || is(m, "unknown-error")) && code_is(m, 801))
		return "cuda-malloc-async-unsupported";
	/* an OOM without the device allocator's numbers, where the call was a pinned host one */
	if ((hints & HINT_PINNED) && oom && !m->has_oom)
		return p->os == TP_WSL2 ? "wsl-pinned-memory-limit" : "pinned-host-oom";
	if (is(m, "pinned-host-oom") && p->os == TP_WSL2)
		return "wsl-pinned-memory-limit";
	/* NVML's Unknown Error inside a running container: its device rules were dropped */
	if (is(m, "nvml-unavailable") && message_is(m, "nvml-unknown-error") && p->container && (hints & HINT_LOST_LATER))
		return "container-device-rules-lost";
	/* an SBSA build on a Jetson: its symbols are not in the Jetson's driver */
	if (p->jetson && is(m, "cuda-error") && code_is(m, 500))
		return "jetson-sbsa-mismatch";
	if (p->hyperv && p->os != TP_WINDOWS &&
	    (is(m, "no-driver") || is(m, "nvml-unavailable") || strncmp(m->finding, "wsl-libcuda", 11) == 0))
		return "hyperv-no-gpu-libs";
	if ((is(m, "jetson-sbsa-mismatch") && !p->jetson) || (is(m, "xpu-device-lost") && p->vendor != TP_INTEL))
		return "";
	if (is(m, "hyperv-no-gpu-libs") && !p->hyperv)
		return "";
	if (is(m, "wsl-tcc-mode") && p->os != TP_WSL2 && !(hints & HINT_WSL))
		return "";
	/* "the GPU cannot be used" says which stack only beside another vendor's markers */
	if (is(m, "non-nvidia-platform") && text_platform_cuda(p))
		return "";
	return m->finding;
}

void premise_settle(struct explain_result *r, unsigned hints)
{
	for (size_t i = r->n; i-- > 0;) {
		const char *id = reread(&r->m[i], &r->platform, hints);

		if (!id[0])
			drop(r, i);
		else if (id != r->m[i].finding)
			r->m[i].finding = id;
	}
}
