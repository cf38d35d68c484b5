/* The command table and the run context: one struct per command, defined in
 * src/cmd/cmd_<name>.c; the run context (run.c) collects the machine for every command of
 * the run, handed over in cd_globals.run; main.c judges the driver first for a command whose
 * `needs` say so. */
#ifndef CUDOCTOR_CMD_H
#define CUDOCTOR_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/opts.h"
#include "driver/cudrv.h"
#include "driver/nvml.h"
#include "facts/amd.h"
#include "facts/driver.h"
#include "facts/platform.h"
#include "report/render.h"
#include "report/report.h"
#include "util/err.h"
#include "util/safetext.h"

/* The exit status, one table for every command (docs/exit-codes in `cudoctor --help`). */
enum cd_exit {
	CD_EXIT_CLEAN = 0,   /* no finding of severity error */
	CD_EXIT_FINDING = 1, /* at least one finding of severity error */
	CD_EXIT_USAGE = 2,   /* the command line was wrong; one line on stderr says how */
	CD_EXIT_FAILED = 3,  /* an input could not be read, or cudoctor itself failed */
};

/* What main.c sets up before a command runs (git's RUN_SETUP, RUN_SETUP_GENTLY). */
enum cd_needs {
	NEEDS_NONE,          /* nothing: the command asks the run context for what it needs, if anything */
	NEEDS_DRIVER,        /* the driver collected and judged before the command runs */
	NEEDS_DRIVER_GENTLY, /* the command calls cd_run_judge_driver when a subcommand needs it */
};

/* The run context: the one machine context of a run (main.c's, one per process). Each part
 * of the machine is collected the first time a command asks for it and remembered for the
 * run, so every command and every check in it reads the same facts, and nothing is probed
 * or loaded twice: the driver (libcuda and NVML loaded once, cuInit called once, the kb's
 * knowledge beside the facts) or only its caps (what arch needs, the cheap way), the
 * platform, the host's Python environments, toolkits, runtimes and Windows side, the
 * topology, and the deployment facts (kernel log, modules, environment). Each getter returns
 * CD_OK with the part, or a negative status with err saying why the part is unknown (only
 * running out of memory, for the parts there are: what a probe cannot learn is a fact in the
 * part); asked again, it answers the same. src/cmd/run.c is the one file of src/cmd/ that
 * reaches the probes. */
struct cd_run_parts; /* run.c's: the state of every part but the driver's fields below */

struct cd_run {
	/* the driver part, read once cd_run_driver (or cd_run_judge_driver) answered CD_OK */
	struct cudrv *cu;             /* libcuda, cuInit called; NULL when it did not load */
	struct nvml *nv;              /* NVML, nvmlInit called; NULL when it did not load */
	struct gpu_probe probe;       /* the driver facts and every GPU, with the kb's knowledge */
	bool cuda_usable;             /* libcuda works (rules_cuda_usable); else a finding says why */
	/* set before the toolkits part is asked: it runs the selected nvcc's --list-gpu-arch
	 * (doctor -v) */
	bool toolkit_archs;
	struct cd_run_parts *parts;
};

struct python_info;
struct toolkits;
struct runtimes;
struct win_side;
struct topo_probe;
struct deploy_info;
struct kmsg_events;
struct facts;
struct arch_inputs;
struct win_exe;
struct cublas;
struct nccl;
struct amd_host;

/* The driver part: libcuda and NVML loaded, the driver and GPU facts collected and given the
 * kb's knowledge (facts_add_kb; without the kb they stand alone). Driver failures are facts
 * in it; only running out of memory fails. */
int cd_run_driver(struct cd_run *run, const struct gpu_probe **out, char *err);
/* The driver part and the platform, then the driver findings (rules_driver) into r, once
 * per run: a broken driver reads the same in every command. */
int cd_run_judge_driver(struct cd_run *run, struct report *r, char *err);
/* An AMD machine with nothing NVIDIA (rules_amd_only), from the driver and AMD parts, asked
 * once: its commands show "no NVIDIA GPU" as a fact, and the driver rules stay silent. */
bool cd_run_amd_only(struct cd_run *run);
/* What arch judges binaries against: the driver's version and, with want_gpus, each GPU CUDA
 * would see with its compute capability. The driver part when it is known; else the cheap
 * way (probe/gpu_caps.h: the kernel module's files, else NVML, loaded for the run), and the
 * driver part only where CUDA's view needs cuInit. Never fails but for memory. */
int cd_run_caps(struct cd_run *run, bool want_gpus, const struct gpu_probe **out, char *err);
int cd_run_platform(struct cd_run *run, const struct platform_info **out, char *err);
/* The host's files: the Python environments and their frameworks (with the Windows side's,
 * where this machine has one), every toolkit (the pip nvcc in their site-packages too), every
 * libcudart and other CUDA library (n_sets: libcudart's set first), the Windows side (WSL2's
 * /mnt/c; empty where there is none), each with the kb's knowledge. */
int cd_run_python(struct cd_run *run, const struct python_info **out, char *err);
int cd_run_toolkits(struct cd_run *run, const struct toolkits **out, char *err);
int cd_run_runtimes(struct cd_run *run, const struct runtimes **out, size_t *n_sets, char *err);
int cd_run_windows(struct cd_run *run, const struct win_side **out, char *err);
/* How the GPUs connect (probe/topology.h), through the driver part's libraries. */
int cd_run_topology(struct cd_run *run, const struct topo_probe **out, char *err);
/* The PCIe link of the GPU at CUDA ordinal as the topology part read it from sysfs (for a
 * lab where NVML cannot say): CD_OK with *gen and *width, or CD_ENOTFOUND. */
int cd_run_sysfs_link(struct cd_run *run, int cuda_ordinal, int *gen, int *width, char *err);
/* The deployment checks' facts: the kernel log's NVIDIA events, the modules loaded, the
 * environment. */
int cd_run_deploy(struct cd_run *run, const struct deploy_info **out, char *err);

/* The rules' view (facts/facts.h) of the parts asked: CD_FACTS_DRIVER (the driver and the
 * platform), CD_FACTS_HOST (Python, toolkits, runtimes, the Windows side, and why the kb
 * did not load, if it did not). */
#define CD_FACTS_DRIVER 1u
#define CD_FACTS_HOST 2u
int cd_run_facts(struct cd_run *run, unsigned parts, struct facts *out, char *err);

/* doctor's speed: the host's files collected on a task while the caller opens the driver
 * (cuInit is most of its time). The kb is loaded first, here; the task then collects the
 * host parts and runs then(arg, host) with them, on the task (it must touch nothing the
 * calling thread touches). The host parts are the task's until cd_run_host_join, which their
 * getters call first; the driver's and the platform's stay the caller's. then runs only where
 * every host part is known; its own result travels in its arg. CD_OK, or CD_ENOMEM (no task
 * started). */
int cd_run_host_prefetch(struct cd_run *run, void (*then)(void *arg, const struct facts *host), void *arg,
			 char *err);
/* Waits for the task, then gives the host parts the kb's knowledge. CD_OK, or why the host
 * parts are unknown (out of memory). */
int cd_run_host_join(struct cd_run *run, char *err);

/* The AMD machine (probe/amd.h: the KFD topology, device nodes and their groups, ROCm, HIP
 * where it loads), from the host's files: no ROCm needed. */
int cd_run_amd(struct cd_run *run, const struct amd_host **out, char *err);

/* Waits for a prefetch still running, shuts NVML down, unloads both libraries, frees every
 * part. */
void cd_run_close(struct cd_run *run);

/* What a command reads of this machine that is no part of it, asked per input or read again,
 * through the same door. */
/* The kernel log read again now (check after its load tests): never remembered. */
int cd_run_kernel_log_again(struct kmsg_events *out, char *err);
/* A program of the cluster's found on PATH and run with args (NULL-terminated), no shell, its
 * stdout into out (at most max-1 bytes), within the helper time limit (probe/spawn.h):
 * check --slurm-drain's scontrol. CD_ENOTFOUND when it is not on PATH; CD_OK when it exited 0;
 * else CD_EIO or CD_ETIMEOUT, err saying why. */
int cd_run_program(const char *name, const char *const *args, char *out, size_t max, char *err);
/* libcublas and libnccl found where the runtimes part looks (its Python environments' wheels
 * too) and loaded, newest first; the caller unloads them. note (may be NULL) lists every
 * libnccl copy found. */
int cd_run_load_cublas(struct cd_run *run, struct cublas *b, char *err);
int cd_run_load_nccl(struct cd_run *run, struct nccl *nc, char *note, size_t note_cap, char *err);
/* A Windows program's CUDA DLLs through Windows' search order (probe/win_exe.h), read from
 * path (data, size: the file already mapped, to skip a file that is no program without
 * reading it again; NULL: read path). x is empty for a file that is no program. */
int cd_run_program_dlls(struct win_exe *x, const char *path, const unsigned char *data, size_t size, char *err);
void cd_run_program_dlls_free(struct win_exe *x);
/* The files arch and doctor read for device code (probe/arch_inputs.h): one named, those
 * under a folder, a wildcard's matches, a Python interpreter's frameworks (an interpreter
 * that does not answer in time is the helper-timeout finding in r, and nothing of it is
 * listed), Ollama's runners (root NULL: where its installers put them; CD_ENOTFOUND: none). */
int cd_run_input_add(struct arch_inputs *in, const char *path, bool explicit_input);
int cd_run_input_dir(struct arch_inputs *in, const char *dir, bool recursive, char *err);
bool cd_run_input_is_pattern(const char *operand);
int cd_run_input_glob(const char *pattern, char ***out, size_t *n, char *err);
bool cd_run_input_is_python_tree(const char *path);
int cd_run_input_python(struct arch_inputs *in, const char *interpreter, struct report *r, char *err);
int cd_run_input_ollama(struct arch_inputs *in, const char *root, char *err);
void cd_run_inputs_free(struct arch_inputs *in);

/* A report line that could not be added (only out of memory fails) marks the report
 * incomplete, which main.c turns into exit 3. */
static inline void cmd_note(struct report *r, int rc)
{
	if (rc != CD_OK)
		r->oom = true;
}

struct cd_globals {
	struct render_opts render;
	bool stderr_is_tty;  /* progress bars only then */
	struct cd_run *run;  /* the machine, collected on demand (the driver judged first for NEEDS_DRIVER) */
	const char *html;    /* --html FILE: also write the report as one HTML page */
	bool anonymize;      /* --anonymize: main.c scrubs the report before rendering it */
	int exit_contract;   /* --exit-codes: enum exit_contract (rules/contract.h), 0 the default */
	/* the values of the command's (and subcommand's) own options, parsed by main.c from
	 * the command's option table, in command-line order */
	const struct cli_args *args;
	/* main.c's tables, for the commands that describe the command line itself
	 * (completion and the man page read them) */
	const struct cd_command *const *commands;
	const struct cli_opt *global_opts;
};

/* A subcommand (`mem estimate`): its own synopsis and options. */
struct cd_subcommand {
	const char *name;
	const char *summary;
	const char *usage;           /* what follows "cudoctor CMD " in the synopsis */
	const struct cli_opt *opts;  /* NULL: none */
	enum cli_complete operands;  /* what a shell completes for its operands */
};

struct cd_command {
	const char *name;
	const char *summary; /* one line for `cudoctor --help` */
	/* `cudoctor NAME --help` is usage, help, the options of opts, then notes. A command
	 * whose opts is NULL parses its own options: help is then its whole text, and the
	 * words main.c does not know reach it in argv. */
	const char *usage;   /* synopsis lines, each starting "cudoctor NAME" */
	const char *help;    /* what the command does */
	const char *notes;   /* after the options: environment, files, see also; may be NULL */
	const struct cli_opt *opts;
	const struct cd_subcommand *subs; /* ended by a NULL name; NULL: none */
	enum cli_complete operands;       /* what a shell completes for the operands */
	const char *operand_words;        /* CLI_C_WORDS: the words, space-separated */
	enum cd_needs needs;
	/* Why the command runs on Linux only, said in one line (exit 2) where it does not; NULL:
	 * it runs on every platform cudoctor is built for. */
	const char *linux_only;
	/* argv[0] is the command name (then the subcommand's, if any), then the operands;
	 * option values are in g->args. Returns CD_OK (exit code from findings), CD_EUSAGE
	 * (exit 2, err says why), or another negative status (exit 3, err says why). */
	int (*run)(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err);
};

/* --format for the commands whose report is also metrics (doctor, devices, fleet): an entry
 * of their option tables, read by main.c before the command runs, which sets r->format
 * (prometheus, or text/markdown/json as their global options) and refuses a second,
 * different format. */
#define CMD_OPT_FORMAT 900
#define CMD_OPT_FORMAT_ENTRY                                                                          \
	{ .id = CMD_OPT_FORMAT, .long_name = "format", .arg = CLI_REQUIRED, .metavar = "FORMAT",         \
	  .help = "prometheus: findings and GPU facts as metrics for node_exporter's textfile "         \
		  "collector (docs/prometheus.md); text, markdown and json as --markdown and --json",   \
	  .complete = CLI_C_WORDS, .words = "text markdown json prometheus" }

/* --gpu SPEC, repeatable, with the GPU names completed: one entry for every command that takes
 * it; each command says in help what the GPUs are judged for. */
#define CMD_OPT_GPU(ID, HELP)                                                                     \
	.id = (ID), .short_name = 'g', .long_name = "gpu", .arg = CLI_REQUIRED, .metavar = "SPEC",   \
	.help = HELP, .complete = CLI_C_GPU, .flags = CLI_REPEAT

/* An input named on the command line could not be read: said on stderr, whatever the format
 * on stdout (the report says it too, where the command shows it), and the run exits 3, so a
 * script never reads a missing file as a clean run. */
static inline void cmd_input_error(struct report *r, const char *command, const char *message)
{
	char line[4 * CD_ERRMSG];

	/* the message names a file, whose name is anyone's bytes */
	safe_text(line, sizeof line, message, strlen(message), 0);
	fprintf(stderr, "cudoctor %s: %s\n", command, line);
	r->exit_override = CD_EXIT_FAILED;
}

extern const struct cd_command cmd_doctor, cmd_devices, cmd_check, cmd_arch, cmd_explain,
	cmd_gencode, cmd_kb, cmd_mem, cmd_lab, cmd_plan, cmd_topo, cmd_completion, cmd_diff, cmd_fleet;

#endif
