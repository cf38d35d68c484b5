/* Causes read from what else a report shows: the CDI spec against its engine and its driver,
 * PCIe ACS behind a P2P hang, an install path a loader cannot take, the Linux driver inside
 * WSL 2. Each from a real report's lines with its thread beside it, and the texts that must not
 * give them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "explain/explain.h"
#include "rules/oom.h"
#include "util/err.h"

struct want {
	const char *url, *text, *finding; /* finding NULL: no finding at all */
};

static const struct want cases[] = {
	/* a spec of toolkit 1.19.1 read by Podman 4.9.3's older CDI library */
	{ "https://github.com/NVIDIA/nvidia-container-toolkit/issues/1860",
	  "Run `podman --debug run --rm -ti --device=nvidia.com/gpu=gpu0 ubuntu nvidia-smi -L`\n"
	  "The following error was triggered when refreshing the CDI registry: failed to load CDI Spec failed to parse "
	  "CDI Spec \"/etc/cdi/nvidia.yaml\": failed to unmarshal CDI Spec: error unmarshaling JSON: while decoding "
	  "JSON: json: unknown field \"additionalGids\"\n",
	  "cdi-spec-version-mismatch" },
	{ "https://github.com/NVIDIA/nvidia-container-toolkit/issues/38",
	  "DEBU[0000] The following errors were triggered when creating the CDI registry: map[/etc/cdi/nvidia.yaml:"
	  "[failed to load CDI Spec: failed to parse CDI Spec \"/etc/cdi/nvidia.yaml\": failed to unmarshal CDI Spec: "
	  "error unmarshaling JSON: while decoding JSON: json: unknown field \"hostPath\"]]\n",
	  "cdi-spec-version-mismatch" },
	/* a driver update left the spec naming the old version's files */
	{ "https://github.com/Igalia/webkit-container-sdk/issues/23",
	  "Error: unable to start container \"ecdb2132becbc09015d0bb7d14299693a75a462be160a2a4fc7610d60e0d3f2a\": "
	  "crun: error stat'ing file /lib/x86_64-linux-gnu/libEGL_nvidia.so.535.161.07: No such file or directory: "
	  "OCI runtime attempted to invoke a command that was not found\n",
	  "cdi-spec-stale" },
	/* the same report in words only: Podman, and the host's driver upgraded */
	{ "https://github.com/Igalia/webkit-container-sdk/issues/23",
	  "After upgrading the nvidia driver on the host system, the container failed to restart, leading to "
	  "`wkdev-enter` getting stuck. When starting manually with `podman start wkdev`, `podman` failed\n",
	  "cdi-spec-stale" },
	/* an NCCL hang between two GPUs under bridges with ACS on */
	{ "https://github.com/NVIDIA/nccl/issues/606",
	  "NCCL test hangs between GPU2 and GPU3 all the time\n$ sudo lspci -vvv | grep ACSCtl\n"
	  "                ACSCtl: SrcValid+ TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-\n",
	  "pcie-acs-p2p-blocked" },
	/* simpleP2P's peer copies return garbage */
	{ "https://github.com/aikitoria/open-gpu-kernel-modules/issues/8",
	  "Run kernel on GPU0, taking source data from GPU1 and writing to GPU0...\n"
	  "Copy data back to host from GPU0 and verify results...\n"
	  "Verification error @ element 0: val = nan, ref = 0.000000\n"
	  "Verification error @ element 1: val = nan, ref = 4.000000\n",
	  "pcie-acs-p2p-blocked/verify-failed" },
	/* cuDNN's sub-library is there, under a folder named [Ai] */
	{ "https://github.com/vladmandic/sdnext/issues/1756",
	  "Using VENV: C:\\[Ai]\\VD\\venv\n21:15:23-203219 INFO     Python 3.10.9 on Windows\n"
	  "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!\n",
	  "install-path-unloadable" },
	/* the same message from a plain path stays a missing library */
	{ "https://github.com/Gourieff/comfyui-reactor-node/issues/396",
	  "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!\n\n"
	  "F:\\COMFY>pause\nPress any key to continue . . .\n",
	  "library-missing" },
	/* WSL 2 named, "blocked", no Linux driver in sight (Windows Server, a data-centre GPU):
	 * neither the Hyper-V guest's cause nor WSL's libraries */
	{ "https://github.com/microsoft/WSL/issues/12859",
	  "### Kernel Version\n\n5.15.167.4-microsoft-standard-WSL2\n\n"
	  "Failed to initialize NVML: GPU access blocked by the operating system\n",
	  NULL },
	/* "unresolvable" with no sign that the spec is there: the toolkit's CDI set-up */
	{ "https://github.com/NixOS/nixpkgs/issues/417312",
	  "podman run --rm --device nvidia.com/gpu=all --security-opt=label=disable ubuntu nvidia-smi -L\n"
	  "# Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all\n",
	  "container-toolkit-missing" },
};

static void each_from_its_report(void **state)
{
	char err[CD_ERRMSG];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct explain_result r;

		assert_int_equal(explain_text(cases[i].text, strlen(cases[i].text), &r, err), CD_OK);
		explain_result_classify_oom(&r, oom_finding_of);
		if (!cases[i].finding) {
			if (r.n)
				fail_msg("%s: want nothing, got %s", cases[i].url, r.m[0].finding);
		} else if (r.n != 1 || strcmp(r.m[0].finding, cases[i].finding) != 0) {
			fail_msg("%s: want only %s, got %zu findings, first %s", cases[i].url, cases[i].finding, r.n,
				 r.n ? r.m[0].finding : "none");
		}
		explain_result_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_from_its_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
