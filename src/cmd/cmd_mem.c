/* `cudoctor mem`: who holds GPU memory (status), how large a block can be had now
 * (probe), and whether a model fits (estimate). Dispatches to src/cmd/mem/. */
#include <stdlib.h>
#include <string.h>

#include "cmd/mem/internal.h"
#include "util/err.h"

static const char mem_help[] =
	"usage: cudoctor mem status\n"
	"       cudoctor mem probe [--max FRACTION] [--demo]\n"
	"       cudoctor mem estimate FILE|DIR | --params N [--dtype T]\n"
	"                [--context N] [--batch N] [--kv-dtype T] [--runtime torch|llama.cpp]\n"
	"                [--train [--optimizer adam|adamw|sgd|adafactor] [--mixed-precision] [--checkpointing]]\n"
	"                [--gpu SPEC | --gpu-memory SIZE] [--cuda-context SIZE]\n"
	"\n"
	"status    per GPU: total, used and free memory (NVML and the driver), this driver's CUDA\n"
	"          context overhead, every process holding memory, MIG slices\n"
	"probe     the largest block cuMemAlloc can give now and the total in blocks (opt-in:\n"
	"          allocates up to --max (default 0.9) of the free memory, frees it at once)\n"
	"          --demo: fragmentation inside cudoctor's own context, and how a virtual\n"
	"          reservation (cuMemAddressReserve + cuMemMap) avoids it\n"
	"estimate  memory for inference or training from a model's headers: GGUF, safetensors\n"
	"          (file, sharded index or directory), config.json, or --params N --dtype T;\n"
	"          checked against each GPU here, --gpu SPEC or --gpu-memory SIZE\n"
	"\n"
	"FILE is read header-only. Sizes accept KiB/MiB/GiB (binary) and KB/MB/GB (decimal);\n"
	"counts accept 8e9, 7B, 128k. See docs/mem.md for every formula and allowance.\n";

static int mem_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	if (argc < 2)
		return cd_fail(err, CD_EUSAGE, "mem: say status, probe or estimate (cudoctor mem --help)");
	const char *sub = argv[1];
	if (strcmp(sub, "estimate") == 0)
		return mem_estimate_run(r, argc - 1, argv + 1, g, err);
	if (strcmp(sub, "status") == 0)
		return mem_status_run(r, argc - 1, argv + 1, g, err);
	if (strcmp(sub, "probe") == 0)
		return mem_probe_run(r, argc - 1, argv + 1, g, err);
	return cd_fail(err, CD_EUSAGE, "mem: unknown subcommand '%s' (status, probe, estimate)", sub);
}

const struct cd_command cmd_mem = {
	.name = "mem",
	.summary = "GPU memory: who holds it, largest block now, will a model fit",
	.help = mem_help,
	.needs = NEEDS_DRIVER_GENTLY, /* status and probe open the run's driver; estimate does not */
	.run = mem_run,
};
