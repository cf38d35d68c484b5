/* `cudoctor mem`: who holds GPU memory (status), how large a block can be had now
 * (probe), and whether a model fits (estimate). Dispatches to src/cmd/mem/. */
#include <stdlib.h>
#include <string.h>

#include "cmd/mem/internal.h"
#include "util/err.h"

static const char mem_help[] =
	"Who holds GPU memory, how large a block can be had now, and whether a model fits. "
	"FILE is read header-only. Sizes accept KiB/MiB/GiB (binary) and KB/MB/GB (decimal); "
	"counts accept 8e9, 7B, 128k. See docs/mem.md for every formula and allowance. -q prints a "
	"line per GPU (status: used, free of total, processes; probe: the largest block; estimate: "
	"fits or not) and the warn and error findings.";

static const struct cd_subcommand mem_subs[] = {
	{ .name = "status", .usage = "status [--oom FILE]", .opts = mem_status_opts,
	  .summary = "per GPU: total, used and free memory (NVML and the driver), this driver's CUDA "
		     "context overhead, every process holding memory, MIG slices" },
	{ .name = "probe", .usage = "probe [--max FRACTION] [--demo] [--device N]", .opts = mem_probe_opts,
	  .summary = "the largest block cuMemAlloc can give now and the total in blocks (opt-in: "
		     "allocates up to --max of the free memory and frees it at once)" },
	{ .name = "estimate", .opts = mem_estimate_opts, .operands = CLI_C_FILE,
	  .usage = "estimate FILE|DIR|OLLAMA_NAME | --params N [--dtype T] [--layers N --kv-heads N --head-dim N]\n"
		   "       [--hidden N] [--vocab N] [--trained-context N] [--context N] [--batch N]\n"
		   "       [--kv-dtype T] [--runtime torch|llama.cpp] [--train [--optimizer NAME]\n"
		   "       [--mixed-precision] [--checkpointing]] [--gpu SPEC... | --gpu-memory SIZE]\n"
		   "       [--cuda-context SIZE]",
	  .summary = "memory for inference or training from a model's headers: GGUF, safetensors "
		     "(file, sharded index or directory), config.json, a model Ollama has pulled by its name "
		     "(llama3:8b: the GGUF blob its manifest names, under OLLAMA_MODELS or ~/.ollama/models), "
		     "or --params N --dtype T (and its shape "
		     "by hand); checked "
		     "against each GPU here, each --gpu SPEC or --gpu-memory SIZE" },
	{ 0 },
};

static int mem_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	if (argc < 2)
		return cd_fail(err, CD_EUSAGE, "say status, probe or estimate");
	const char *sub = argv[1];
	if (strcmp(sub, "estimate") == 0)
		return mem_estimate_run(r, argc - 1, argv + 1, g, err);
	if (strcmp(sub, "status") == 0)
		return mem_status_run(r, argc - 1, argv + 1, g, err);
	if (strcmp(sub, "probe") == 0)
		return mem_probe_run(r, argc - 1, argv + 1, g, err);
	return cd_fail(err, CD_EUSAGE, "unknown subcommand '%.60s' (status, probe, estimate)", sub);
}

const struct cd_command cmd_mem = {
	.name = "mem",
	.summary = "GPU memory: who holds it, largest block now, will a model fit",
	.usage = "cudoctor mem status [--oom FILE]\n"
		 "       cudoctor mem probe [--max FRACTION] [--demo] [--device N]\n"
		 "       cudoctor mem estimate FILE|DIR | --params N [OPTIONS]",
	.help = mem_help,
	.subs = mem_subs,
	.needs = NEEDS_DRIVER_GENTLY, /* status and probe open the run's driver; estimate does not */
	.run = mem_run,
};
