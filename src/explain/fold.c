/* What is settled once the text has ended: matches that came to share a finding merged, a
 * cause and its consequence folded into the cause, OOMs classified by their numbers, a ROCm
 * text's findings made ROCm's, and a fallback dropped beside any real error. */
#include <string.h>

#include "explain/scan.h"
#include "explain/text_platform.h"
#include "explain/textfacts.h"
#include "util/err.h"

static void drop(struct explain_result *r, size_t i)
{
	memmove(&r->m[i], &r->m[i + 1], (r->n - i - 1) * sizeof(r->m[0]));
	r->n--;
}

static bool present(const struct explain_result *r, const char *prefix)
{
	for (size_t i = 0; i < r->n; i++)
		if (strncmp(r->m[i].finding, prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

static bool is_fallback(const struct explain_match *m)
{
	return m->message && strcmp(m->message->extract, "fallback") == 0 && m->via == VIA_MESSAGE;
}

/* two matches may share a finding after a reclassification: keep the first */
static void merge_same(struct explain_result *r)
{
	for (size_t i = r->n; i-- > 0;)
		for (size_t k = 0; k < i; k++)
			if (strcmp(r->m[k].finding, r->m[i].finding) == 0) {
				r->m[k].count += r->m[i].count;
				r->m[k].invalid_value_launch |= r->m[i].invalid_value_launch;
				if (r->m[i].last_line > r->m[k].last_line) {
					r->m[k].last_line = r->m[i].last_line;
					memcpy(r->m[k].last, r->m[i].last, sizeof(r->m[k].last));
				}
				drop(r, i);
				break;
			}
}

void explain_result_launch_given(struct explain_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (explain_is_invalid_value(&r->m[i]))
			explain_tie_to_launch(&r->m[i]);
	merge_same(r);
}

void explain_result_classify_oom(struct explain_result *r, const char *(*finding_of)(const struct oom_numbers *n))
{
	for (size_t i = 0; i < r->n; i++) {
		struct explain_match *m = &r->m[i];
		const char *id;

		/* a message's own class (XLA's is oom-capacity) gives way to what its numbers prove */
		if (m->has_oom && (strcmp(m->finding, "out-of-memory") == 0 || strncmp(m->finding, "oom-", 4) == 0) &&
		    (id = finding_of(&m->oom.n)) != NULL)
			m->finding = id;
	}
	merge_same(r);
	if (present(r, "oom-"))
		for (size_t i = r->n; i-- > 0;)
			if (strcmp(r->m[i].finding, "out-of-memory") == 0)
				drop(r, i);
}

/* A cause and what it brings about in the same text: the cause is the finding, the
 * consequence's lines are its evidence. code: the consequence only when it is that error
 * (-1: any match of that finding). */
static const struct {
	const char *cause, *consequence;
	int code;
} consequences[] = {
	/* 719 says only that the kernel died; an illegal access (a memcheck report, a 700) says why */
	{ "illegal-address", "kernel-exception", 719 },
	/* the display watchdog's reset ends the kernel; the program then sees 999 or a launch failure */
	{ "launch-timeout", "unknown-error", -1 },
	{ "launch-timeout", "kernel-exception", 719 },
	/* the reset frees every allocation: the next library call (cuDNN's MAPPING_ERROR) fails on it */
	{ "launch-timeout", "cuda-error", -1 },
	/* a JIT that cannot read the PTX: the image the driver then rejects */
	{ "ptx-too-new", "invalid-kernel-image", -1 },
	{ "ptx-too-new", "invalid-ptx", -1 },
	/* XLA's ptxas cannot target the GPU: the driver's JIT then misses kernels (500) */
	{ "toolkit-cannot-target-gpu", "cuda-error", 500 },
	/* a kernel module of another version than libcuda: cuInit then fails with 999 */
	{ "driver-library-mismatch", "unknown-error", -1 },
	/* a cause of the platform's own, and the CUDA or NCCL words it was printed in */
	{ "fabric-manager-state", "cuda-error", -1 },
	{ "fabric-manager-state", "unknown-error", -1 },
	{ "fabric-manager-state", "nccl-cuda-error", -1 },
	{ "win-runtime-dll-missing", "library-missing", -1 },
	{ "hip-sdk-not-on-path", "library-missing", -1 },
	{ "cuda-malloc-async-unsupported", "cuda-error", -1 },
	{ "pinned-host-oom", "out-of-memory", -1 },
	{ "wsl-pinned-memory-limit", "out-of-memory", -1 },
	{ "jetson-nvmap-alloc-limit", "out-of-memory", -1 },
	{ "hyperv-no-gpu-libs", "nvml-unavailable", -1 },
	/* WSL 2 sees no GPU in TCC: NVML's refusal and the missing device are its consequences */
	{ "wsl-tcc-mode", "hyperv-no-gpu-libs", -1 },
	{ "wsl-tcc-mode", "nvml-unavailable", -1 },
	{ "wsl-tcc-mode", "no-device", -1 },
	{ "non-nvidia-platform", "torch-cpu-only", -1 },
	/* HIP's OOM printed beside a generic HIP failure of the same call */
	{ "rocm-out-of-memory", "rocm-error", -1 },
};

static void fold_consequences(struct explain_result *r)
{
	for (size_t c = 0; c < sizeof(consequences) / sizeof(consequences[0]); c++) {
		size_t cause = r->n;

		for (size_t i = 0; i < r->n && cause == r->n; i++)
			if (strcmp(r->m[i].finding, consequences[c].cause) == 0)
				cause = i;
		if (cause == r->n)
			continue;
		for (size_t i = r->n; i-- > 0;) {
			struct explain_match *m = &r->m[i];

			if (strcmp(m->finding, consequences[c].consequence) != 0 ||
			    (consequences[c].code >= 0 && !(m->error && m->error->code == consequences[c].code)))
				continue;
			explain_add_line(&r->m[cause], m->lines[0]);
			if (i < cause)
				cause--;
			drop(r, i);
		}
	}
}

/* HIP mirrors CUDA's error texts ("invalid device function", "out of memory"), so a ROCm text
 * can match CUDA's catalogue: there the CUDA finding becomes the ROCm one it stands for, and any
 * other becomes rocm-error, so no CUDA advice is given for an AMD GPU. */
static const char *rocm_finding_of(const char *id)
{
	if (strncmp(id, "rocm-", 5) == 0)
		return id;
	if (strcmp(id, "no-kernel-image") == 0 || strcmp(id, "partial-kernel-image") == 0)
		return "rocm-gfx-target-missing";
	if (strcmp(id, "out-of-memory") == 0 || strncmp(id, "oom-", 4) == 0)
		return "rocm-out-of-memory";
	return "rocm-error";
}

/* A message that only says the GPU went unused ("no compatible GPUs were discovered") gives
 * way to any error that says why. "cannot find -lcuda" on WSL2 is WSL's missing link. */
int explain_settle(struct explain_scan *sc)
{
	struct explain_result *r = &sc->r;
	size_t others = 0;

	eras_settle(r, &sc->era);
	/* the host fills what the text leaves unsaid only for a text from here (cmd_explain.c, after the
	 * origin is known), so that --offline answers alike everywhere */
	text_platform_settle(&r->platform, sc->windows, sc->linux_seen, false);
	for (size_t i = 0; i < r->n; i++) {
		if (strcmp(r->m[i].finding, "libcuda-link-missing") == 0 && (sc->wsl || r->platform.os == TP_WSL2))
			r->m[i].finding = "wsl-libcuda";
		r->m[i].windows = explain_text_is_windows(sc->windows, sc->linux_seen, sc->wsl);
		r->m[i].embedded_python = sc->embedded;
		r->m[i].rocm = sc->rocm;
		if (sc->rocm) {
			r->m[i].finding = rocm_finding_of(r->m[i].finding);
			r->m[i].error = NULL; /* CUDA's entry for HIP's words would be its evidence */
		} else if (!text_platform_cuda(&r->platform) || r->platform.os == TP_WSL1) {
			r->m[i].finding = text_platform_finding(&r->platform, r->m[i].finding);
			r->m[i].rocm = r->platform.vendor == TP_AMD;
			if (strcmp(r->m[i].finding, "wsl1-no-gpu") == 0 || r->platform.vendor != TP_NVIDIA)
				r->m[i].error = NULL;
		}
	}
	if (premise_settle(r, &sc->premise) != CD_OK)
		return CD_ENOMEM;
	merge_same(r);
	fold_consequences(r);
	explain_text_facts_settle(&r->facts, r, sc->windows, sc->linux_seen, sc->wsl, sc->rocm);
	for (size_t i = 0; i < r->n; i++)
		others += !is_fallback(&r->m[i]);
	if (others)
		for (size_t i = r->n; i-- > 0;)
			if (is_fallback(&r->m[i]))
				drop(r, i);
	return CD_OK;
}

