/* Findings re-read by what else the text says (premise.h): one rule per cause whose message is
 * another cause's too, or that no message names. */
#include "explain/premise.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"

static const struct premise_marker markers[] = {
	{ "cudamallocasync", HINT_MALLOC_ASYNC },
	/* ComfyUI and Fooocus start PyTorch with cudaMallocAsync unless told not to */
	{ "comfyui", HINT_ASYNC_APP },
	{ "comfy\\", HINT_ASYNC_APP },
	{ "comfy/", HINT_ASYNC_APP },
	{ "fooocus", HINT_ASYNC_APP },
	/* ComfyUI's words for a node that failed, and its loader and sampler nodes' names */
	{ "error occurred when executing ", HINT_ASYNC_APP },
	{ "checkpointloadersimple", HINT_ASYNC_APP },
	{ "ksampler", HINT_ASYNC_APP },
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
	{ "nvidia-smi ", HINT_SMI_HEADER },
	{ "tf 2.", HINT_TF_VERSION },
	{ "tensorflow==2.", HINT_TF_VERSION },
	{ "tensorflow 2.", HINT_TF_VERSION },
	{ "tensorflow version: 2.", HINT_TF_VERSION },
	{ "tensorflow-gpu==2.", HINT_TF_VERSION },
	{ "gpu is not available", HINT_NO_GPU },
	{ "gpus available:  0", HINT_NO_GPU },
	{ "gpus available: 0", HINT_NO_GPU },
	{ "can't utilize the gpu", HINT_NO_GPU },
	{ "cannot utilize the gpu", HINT_NO_GPU },
	{ "list_physical_devices('gpu') returns []", HINT_NO_GPU },
	{ "cuda not available", HINT_NO_GPU },
	{ "cuda is not available", HINT_NO_GPU },
	{ "can't use the gpu", HINT_NO_GPU },
	{ "cannot use the gpu", HINT_NO_GPU },
	{ "+cpu", HINT_CPU_WHEEL },
	/* NCCL's P2P transport turned off as the workaround of a hang: what PCIe ACS brings about */
	{ "nccl_p2p_disable", HINT_P2P_OFF },
	{ "hangs", HINT_HANG },
	{ "hanging", HINT_HANG },
	{ " hang ", HINT_HANG },
	{ " hang.", HINT_HANG },
	{ "deadlock", HINT_HANG },
	{ "stuck", HINT_HANG },
	{ "freez", HINT_HANG },
	{ "srcvalid+", HINT_ACS_ON },
	/* "INFO[0000] Found 3 CDI devices": the spec is there and nvidia-ctk reads it */
	{ " cdi devices", HINT_CDI_LISTED },
	{ "driver update", HINT_DRIVER_UPDATED },
	{ "drivers update", HINT_DRIVER_UPDATED },
	{ "driver upgrade", HINT_DRIVER_UPDATED },
	{ "drivers upgrade", HINT_DRIVER_UPDATED },
	{ "update the driver", HINT_DRIVER_UPDATED },
	{ "upgrade the driver", HINT_DRIVER_UPDATED },
	{ "updated the driver", HINT_DRIVER_UPDATED },
	{ "upgraded the driver", HINT_DRIVER_UPDATED },
	{ "upgrading the nvidia driver", HINT_DRIVER_UPDATED },
	{ "updating the nvidia driver", HINT_DRIVER_UPDATED },
	{ "upgraded the nvidia driver", HINT_DRIVER_UPDATED },
	{ "updated the nvidia driver", HINT_DRIVER_UPDATED },
	{ "graphics card drivers", HINT_DRIVER_UPDATED },
	{ ":\\", HINT_WIN_PATH },
	{ "nvidia-utils-", HINT_LINUX_DRIVER },
	{ "nvidia-driver-", HINT_LINUX_DRIVER },
	{ "libnvidia-compute-", HINT_LINUX_DRIVER },
	{ " tcc ", HINT_TCC_ROW },
	{ "docker run", HINT_DOCKER_RUN },
	/* the kernel hands page cache back on demand: memory "used" by it is available */
	{ "memavailable", HINT_PAGE_CACHE },
	{ "cached memory", HINT_PAGE_CACHE },
	{ "buff/cache", HINT_PAGE_CACHE },
	{ "file cache", HINT_PAGE_CACHE },
	{ "page cache", HINT_PAGE_CACHE },
	{ "inactive_file", HINT_PAGE_CACHE },
	{ "cannot open source file \"", HINT_OWN_SOURCE },
	{ "dll load failed while importing", HINT_DLL_FAILED },
	{ "(or one of its dependencies)", HINT_DLL_FAILED },
	{ "the specified module could not be found", HINT_DLL_FAILED },
	{ "cuda", HINT_CUDA_NAMED },
	{ "cudnn", HINT_CUDA_NAMED },
};

const struct premise_marker *premise_markers(size_t *n)
{
	*n = sizeof(markers) / sizeof(markers[0]);
	return markers;
}

static void keep(struct premise_line *pl, const char *s, size_t len, size_t no)
{
	if (pl->no)
		return;
	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	snprintf(pl->text, sizeof(pl->text), "%.*s", (int)(len < sizeof(pl->text) ? len : sizeof(pl->text) - 1), s);
	pl->no = no;
}

/* The leading number of "550.163.01" at p, else -1. */
static long branch_at(const char *p)
{
	char *end;
	long v;

	while (*p == ' ')
		p++;
	v = strtol(p, &end, 10);
	return end > p && *end == '.' ? v : -1;
}

/* "| NVIDIA-SMI 550.163.01   Driver Version: 555.85   CUDA Version: 12.5 |": nvidia-smi of
 * another branch than the driver (a Linux driver's tools beside the Windows driver under WSL) */
static bool smi_mismatch(const char *low)
{
	const char *smi = strstr(low, "nvidia-smi "), *drv = strstr(low, "driver version:");
	long a, b;

	if (!smi || !drv)
		return false;
	a = branch_at(smi + 11);
	b = branch_at(drv + 15);
	return a > 0 && b > 0 && a != b;
}

/* the newest "2.NN" on a line that names TensorFlow 2.x */
static int tf_minor(const char *low)
{
	int best = 0;

	for (const char *p = strstr(low, "2."); p; p = strstr(p + 2, "2.")) {
		if (p > low && (isdigit((unsigned char)p[-1]) || p[-1] == '.'))
			continue;
		if (isdigit((unsigned char)p[2])) {
			int minor = atoi(p + 2);

			if (minor > best && minor < 100)
				best = minor;
		}
	}
	return best;
}

/* A Windows path on the line that a loader may not take: square brackets (cuDNN's loader reads
 * them as a wildcard pattern), characters outside ASCII (loaders that take ANSI paths), or past
 * MAX_PATH. s: the line as written, len bytes. */
static bool odd_windows_path(const char *s, size_t len)
{
	for (size_t i = 1; i + 1 < len; i++) {
		size_t end = i + 1, word;
		bool odd = false;

		if (s[i] != ':' || s[i + 1] != '\\' || !isalpha((unsigned char)s[i - 1]) ||
		    (i >= 2 && isalnum((unsigned char)s[i - 2])))
			continue;
		/* the path runs to a quote, " (" or the line's end; spaces may be in it */
		while (end < len && s[end] != '"' && s[end] != '\'' && s[end] != '\n' && s[end] != '\r' &&
		       !(s[end] == ' ' && end + 1 < len && s[end + 1] == '('))
			end++;
		/* only a folder's name counts: a character with a backslash after it in the path, so
		 * that words after an unquoted path are not read as its own */
		for (size_t k = i + 2; k < end && !odd; k++)
			odd = (s[k] == '[' || s[k] == ']' || (unsigned char)s[k] >= 0x80) &&
			      memchr(s + k, '\\', end - k) != NULL;
		/* a path past MAX_PATH, counted to its first space so that a list of paths is not one */
		for (word = 0; i - 1 + word < end && !strchr(" \t\"'", s[i - 1 + word]); word++)
			;
		if (odd || word > 260)
			return true;
		i = end;
	}
	return false;
}

/* "|   0  NVIDIA L40S                  TCC   |   00000000:61:00.0 Off |": Windows' nvidia-smi
 * row of a GPU whose driver model is TCC, the column between the name and the first '|' */
static bool tcc_row(const char *low)
{
	const char *bar, *tcc;

	while (*low == ' ')
		low++;
	if (*low != '|' || !(bar = strchr(low + 1, '|')) || !(tcc = strstr(low, " tcc ")) || tcc > bar)
		return false;
	for (const char *q = tcc + 5; q < bar; q++)
		if (*q != ' ')
			return false;
	return strstr(bar, "0000") != NULL;
}

/* The file of 'cannot open source file "NAME"' is the program's own: not a header of CUDA or its
 * libraries, not a C++ standard header (a toolkit's own includes), and an ASCII name (a path
 * a compiler cannot take is the install's problem, not the source's). */
static bool own_source(const char *low)
{
	static const char *const cuda[] = { "cuda", "cu", "nv", "sm_", "mma", "vector_", "device_", "math_", "host_",
					    "builtin", "texture_", "surface_", "driver_", "channel_", "cooperative",
					    "crt/", "thrust/", "cub/", "hip/" };
	const char *name = strstr(low, "cannot open source file \""), *end, *base;

	if (!name)
		return false;
	name += strlen("cannot open source file \"");
	if (!(end = strchr(name, '"')) || end == name)
		return false;
	for (const char *q = name; q < end; q++)
		if ((unsigned char)*q >= 0x80)
			return false;
	if (!memchr(name, '.', (size_t)(end - name)))
		return false;
	for (size_t i = 0; i < sizeof(cuda) / sizeof(cuda[0]); i++)
		if (strncmp(name, cuda[i], strlen(cuda[i])) == 0)
			return false;
	for (base = end; base > name && base[-1] != '/' && base[-1] != '\\'; base--)
		;
	for (size_t i = 0; i < sizeof(cuda) / sizeof(cuda[0]); i++)
		if (strncmp(base, cuda[i], strlen(cuda[i])) == 0)
			return false;
	return true;
}

void premise_hit(struct premise *ps, unsigned hint, const char *s, const char *low, size_t len, size_t no)
{
	if (hint == HINT_WIN_PATH) {
		if (!ps->odd_path.no && odd_windows_path(s, len))
			keep(&ps->odd_path, s, len, no);
		return;
	}
	if (hint >= HINT_PROSE) {
		enum prose_kind kind = PROSE_GPU;

		for (unsigned h = hint; h > HINT_PROSE; h >>= 1)
			kind++;
		if (prose_arch_hit(&ps->prose, kind, s, low, len)) {
			ps->prose_gpu.no = 0;
			keep(&ps->prose_gpu, s, len, no);
		}
		return;
	}
	if (hint == HINT_OWN_SOURCE && !own_source(low))
		return;
	/* "Found 3 CDI devices", not "unresolvable CDI devices" */
	if (hint == HINT_CDI_LISTED && !strstr(low, "found "))
		return;
	ps->hints |= hint;
	if (hint == HINT_P2P_OFF)
		keep(&ps->p2p_off, s, len, no);
	if (hint == HINT_ACS_ON)
		keep(&ps->acs_on, s, len, no);
	if (hint == HINT_DRIVER_UPDATED)
		keep(&ps->driver_updated, s, len, no);
	if (hint == HINT_LINUX_DRIVER)
		keep(&ps->linux_driver, s, len, no);
	if (hint == HINT_DLL_FAILED)
		keep(&ps->dll_failed, s, len, no);
	if (hint == HINT_TCC_ROW && tcc_row(low))
		keep(&ps->tcc_row, s, len, no);
	if (hint == HINT_DOCKER_RUN)
		for (const char *d = strstr(low, "docker run"); d; d = strstr(d + 10, "docker run")) {
			if (d - low >= 5 && strncmp(d - 5, "sudo ", 5) == 0)
				keep(&ps->sudo_docker, s, len, no);
			else
				ps->plain_docker = true;
		}
	if (hint == HINT_SMI_HEADER && !ps->smi.no && smi_mismatch(low))
		keep(&ps->smi, s, len, no);
	if (hint == HINT_TF_VERSION) {
		int minor = tf_minor(low);

		if (minor > ps->tf_minor) {
			ps->tf_minor = minor;
			ps->tf.no = 0;
			keep(&ps->tf, s, len, no);
		}
	}
	if (hint == HINT_NO_GPU)
		keep(&ps->no_gpu, s, len, no);
	/* "torch 2.0.1+cpu", "Torch 2.0.1+cpu": PyTorch's own version string */
	if (hint == HINT_CPU_WHEEL && strstr(low, "torch") && !ps->cpu_wheel.no)
		keep(&ps->cpu_wheel, s, len, no);
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

/* vLLM's start-up check: "Free memory on device cuda:0 (19.77/22.05 GiB) on startup is less
 * than desired GPU memory utilization (0.9, 19.84 GiB)". How far short it is (GiB), else -1. */
static double vllm_short(const char *line)
{
	const char *f = strstr(line, "device"), *d = strstr(line, "utilization (");
	double fr, tot, u, want;

	if (!f || !d || !(f = strchr(f, '(')) || sscanf(f, "(%lf/%lf", &fr, &tot) != 2 ||
	    sscanf(d + 13, "%lf, %lf", &u, &want) != 2 || want < fr)
		return -1;
	return want - fr;
}

/* The id m stands for on this platform with these hints, "" to drop it, or m's own. */
/* WSL 2 read only from /usr/lib/wsl paths, which a Hyper-V guest with dxgkrnl has too */
static bool wsl_by_path_only(const struct text_platform *p)
{
	return p->os == TP_WSL2 && p->count[TPK_WSL2] == 1 && !p->count[TPK_WSL2_KERNEL] && p->first[TPK_WSL2] &&
	       strcmp(p->first[TPK_WSL2], "/usr/lib/wsl") == 0;
}

static const char *reread(struct explain_match *m, const struct text_platform *p, unsigned hints, bool odd_path)
{
	bool oom = is(m, "out-of-memory") || strncmp(m->finding, "oom-", 4) == 0 ||
		   (is(m, "cuda-error") && code_is(m, 2));

	/* NVRTC could not compile the program's kernel source because a file of its own is missing:
	 * the program's bug, not the CUDA stack's */
	if (is(m, "cuda-error") && m->error && m->error->name &&
	    strcmp(m->error->name, "NVRTC_ERROR_COMPILATION") == 0 && (hints & HINT_OWN_SOURCE))
		return "";
	/* Ollama's pre-load check against free memory, where the text shows the rest is page cache the
	 * kernel would reclaim: the host has the memory, the check miscounts it */
	if (is(m, "host-memory-insufficient") && (hints & HINT_PAGE_CACHE))
		return "";
	/* 801 where the async allocator runs is the allocator's */
	if ((hints & (HINT_MALLOC_ASYNC | HINT_ASYNC_APP)) && (is(m, "cuda-error") || is(m, "unknown-error")) &&
	    code_is(m, 801))
		return "cuda-malloc-async-unsupported";
	/* an OOM without the device allocator's numbers (none at all, or the message's words alone),
	 * where the call was a pinned host one */
	if ((hints & HINT_PINNED) && oom && (!m->has_oom || !m->oom.n.have))
		return p->os == TP_WSL2 ? "wsl-pinned-memory-limit" : "pinned-host-oom";
	if (is(m, "pinned-host-oom") && p->os == TP_WSL2)
		return "wsl-pinned-memory-limit";
	/* llama.cpp's builds of 2023 ("CUDA error 2 at ggml-cuda.cu:N") pinned their host buffers with
	 * cudaMallocHost and stopped at its failure; under WSL 2 its threads (llama.cpp#1230, #1735)
	 * found WSL's pinned limit, fixed by GGML_CUDA_NO_PINNED=1. A device allocation of those builds
	 * reads the same, so this is the likelier cause, not a certain one */
	if (oom && !m->has_oom && p->os == TP_WSL2 && strstr(m->lines[0], "CUDA error 2 at ") &&
	    strstr(m->lines[0], "ggml-cuda.cu"))
		return "wsl-pinned-memory-limit";
	/* NVML's Unknown Error inside a running container that had the GPU: its device rules were dropped */
	if (is(m, "nvml-unavailable") && message_is(m, "nvml-unknown-error") && p->container &&
	    (hints & HINT_LOST_LATER))
		return "container-device-rules-lost";
	/* vLLM short of its start-up budget by less than a CUDA context needs: no other process is
	 * implied, the process's own context grew */
	if (is(m, "oom-other-process") && message_is(m, "vllm-free-below-utilization")) {
		double s = vllm_short(m->lines[0]);

		if (s >= 0 && s < 1.0)
			return "vllm-startup-free-memory";
	}
	/* an SBSA build on a Jetson: its symbols are not in the Jetson's driver */
	if (p->jetson && is(m, "cuda-error") && code_is(m, 500))
		return "jetson-sbsa-mismatch";
	if (p->jetson && is(m, "out-of-memory") && message_is(m, "jetson-nvmap"))
		return "jetson-nvmap-alloc-limit";
	if ((is(m, "jetson-sbsa-mismatch") && !p->jetson) || (is(m, "xpu-device-lost") && p->vendor != TP_INTEL))
		return "";
	if (p->hyperv && p->os != TP_WINDOWS &&
	    (is(m, "no-driver") || is(m, "nvml-unavailable") || strncmp(m->finding, "wsl-libcuda", 11) == 0))
		return "hyperv-no-gpu-libs";
	/* WSL 2 exposes its GPUs only through /usr/lib/wsl/lib's libcuda; cuInit finding none is another
	 * libcuda loaded first (a Linux driver's, a toolkit's stub on the path) */
	if (is(m, "no-device") && p->os == TP_WSL2 && !p->container)
		return "wsl-libcuda";
	/* WSL 2 blocked by the Linux driver's own libraries installed inside it */
	if (is(m, "hyperv-no-gpu-libs") && !p->hyperv && p->os == TP_WSL2 && (hints & HINT_LINUX_DRIVER))
		return "wsl-libcuda/linux-driver";
	/* /usr/lib/wsl alone is also a dxgkrnl guest's: only WSL named drops the guest's cause */
	if (is(m, "hyperv-no-gpu-libs") && !p->hyperv && !wsl_by_path_only(p))
		return "";
	/* the spec is there (nvidia-ctk lists its devices) and the engine still knows none of them */
	if (message_is(m, "cdi-unresolvable") && (hints & HINT_CDI_LISTED))
		return "cdi-spec-version-mismatch";
	/* a DLL that is there, in a folder whose name a loader cannot take */
	if (odd_path && p->os == TP_WINDOWS && (is(m, "library-missing") || is(m, "win-dll-not-found")))
		return "install-path-unloadable";
	if (is(m, "wsl-tcc-mode") && p->os != TP_WSL2 && !(hints & HINT_WSL))
		return "";
	/* "the GPU cannot be used" says which stack only beside another vendor's markers */
	if (is(m, "non-nvidia-platform") && text_platform_cuda(p))
		return "";
	return m->finding;
}

static bool has(const struct explain_result *r, const char *id)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->m[i].finding, id) == 0)
			return true;
	return false;
}

/* A cause no message names, shown by line pl: a match of its own. */
static int add(struct explain_result *r, const char *id, const struct premise_line *pl)
{
	struct explain_match *m;

	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->m[i].finding, id) == 0)
			return CD_OK;
	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 8;
		struct explain_match *nm = realloc(r->m, ncap * sizeof(*nm));

		if (!nm)
			return CD_ENOMEM;
		r->m = nm;
		r->cap = ncap;
	}
	m = &r->m[r->n++];
	memset(m, 0, sizeof(*m));
	m->finding = id;
	m->via = VIA_MESSAGE;
	m->line = m->last_line = pl->no;
	m->count = 1;
	m->code_seen = -1;
	snprintf(m->lines[0], sizeof(m->lines[0]), "%s", pl->text);
	snprintf(m->last, sizeof(m->last), "%s", pl->text);
	m->n_lines = 1;
	m->windows = r->platform.os == TP_WINDOWS;
	return CD_OK;
}

int premise_settle(struct explain_result *r, const struct premise *ps)
{
	const struct text_platform *p = &r->platform;
	int rc = CD_OK;

	for (size_t i = r->n; i-- > 0;) {
		const char *id = reread(&r->m[i], p, ps->hints, ps->odd_path.no != 0);

		if (!id[0])
			drop(r, i);
		else if (id != r->m[i].finding)
			r->m[i].finding = id;
	}
	/* the NVIDIA hook finds no libnvidia-ml in an engine that cannot see the host's driver: Docker
	 * Desktop's VM on Linux, or the user's docker talking to another engine than sudo's */
	for (size_t i = 0; i < r->n; i++)
		if (is(&r->m[i], "no-driver") && strstr(r->m[i].lines[0], "libnvidia-ml.so") && p->container &&
		    ((p->runtime == TP_DOCKER_DESKTOP && p->os != TP_WINDOWS && p->os != TP_WSL2 && p->os != TP_WSL1) ||
		     (ps->sudo_docker.no && ps->plain_docker)))
			r->m[i].finding = "container-engine-sandboxed";
	/* a DLL of the program's own that Windows cannot load, in a text of its CUDA build, and no
	 * other cause: a CUDA DLL it imports is in no folder Windows searches (the message is
	 * Windows' own, so a text that names no OS is from Windows) */
	if (rc == CD_OK && r->n == 0 && ps->dll_failed.no && (ps->hints & HINT_CUDA_NAMED) &&
	    (p->os == TP_WINDOWS || p->os == TP_OS_UNKNOWN) && text_platform_cuda(p)) {
		rc = add(r, "library-missing", &ps->dll_failed);
		if (rc == CD_OK)
			r->m[r->n - 1].windows = true;
	}
	/* a GPU older than every architecture of the build the text names, and it does not work */
	if (rc == CD_OK && r->n == 0 && ps->prose_gpu.no && text_platform_cuda(p) && prose_arch_no_kernel(&ps->prose)) {
		rc = add(r, "no-kernel-image", &ps->prose_gpu);
		if (rc == CD_OK) {
			r->m[r->n - 1].has_arch = true;
			r->m[r->n - 1].arch = (struct kb_arch){ ps->prose.arch, 0 };
		}
	}
	/* a Linux driver's nvidia-smi beside the Windows driver: installed inside WSL */
	if (ps->smi.no && p->os == TP_WSL2)
		rc = add(r, "wsl-libcuda/linux-driver", &ps->smi);
	/* the host's GPU in TCC in a WSL 2 text: WSL 2 reaches GPUs through WDDM only */
	if (rc == CD_OK && ps->tcc_row.no && p->os == TP_WSL2 && text_platform_cuda(p))
		rc = add(r, "wsl-tcc-mode", &ps->tcc_row);
	/* a CPU-only PyTorch named by its version beside a framework seeing no GPU */
	if (rc == CD_OK && ps->cpu_wheel.no && ps->no_gpu.no && text_platform_cuda(p))
		rc = add(r, "torch-cpu-only", &ps->cpu_wheel);
	/* TensorFlow 2.11 and later have no GPU build for native Windows */
	if (rc == CD_OK && p->os == TP_WINDOWS && ps->tf_minor >= 11 && ps->no_gpu.no)
		rc = add(r, "torch-cpu-only/tf-windows", &ps->no_gpu);
	/* GPUs that hang with NCCL's P2P and work with it off, or under a bridge with ACS on: the text
	 * shows the symptom, so the claim is a warning */
	if (rc == CD_OK && (ps->hints & HINT_HANG) && (ps->p2p_off.no || ps->acs_on.no) && text_platform_cuda(p) &&
	    !has(r, "pcie-acs-p2p-blocked/verify-failed"))
		rc = add(r, "pcie-acs-p2p-blocked", ps->acs_on.no ? &ps->acs_on : &ps->p2p_off);
	/* a CDI engine that lost its GPU after the host's driver changed: the spec names the old files */
	if (rc == CD_OK && ps->driver_updated.no && p->container && (p->runtime == TP_PODMAN || p->hook == TP_HOOK_CDI) &&
	    (ps->no_gpu.no || r->n == 0) && !has(r, "cdi-spec-version-mismatch"))
		rc = add(r, "cdi-spec-stale", &ps->driver_updated);
	return rc;
}
