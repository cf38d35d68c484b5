/* `cudoctor arch`: which kernel images files carry and whether the GPUs here (or named)
 * can run them. Wires binfmt/devcode (what is there), rules/arch (what runs) and the report;
 * its parts are in cmd/arch/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/arch/arch.h"
#include "cmd/cmd.h"
#include "facts/inputs.h"
#include "os/fs.h"
#include "report/progress.h"
#include "rules/driver_need.h"
#include "rules/rules.h"
#include "show/arch_verdicts.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"

static const char arch_help[] =
	"Lists the kernel images (SASS sm_XY, PTX compute_XY; AMD code objects of HIP offload bundles, "
	"gfxNNNN) in executables, shared libraries, "
	"objects, static archives, Windows .dll, .pyd and .exe files, .fatbin, .cubin and .ptx "
	"files, and the members of wheels, .zip files and conda packages (.conda, .tar.zst; "
	"named ARCHIVE!MEMBER, read without unpacking), and says whether each GPU "
	"can run them: native, jit, partial, no-image, ptx-too-new or jit-disabled. "
	"Only headers are read, so whole environments take milliseconds.";

static const char arch_notes[] =
	"CUDA_FORCE_PTX_JIT and CUDA_DISABLE_PTX_JIT in the environment are honoured as the "
	"driver honours them; so are HSA_OVERRIDE_GFX_VERSION (every AMD GPU is taken for that "
	"target) and HSA_XNACK=1 (XNACK on where --gpu does not name it). "
	"Containers in sections cuobjdump does not read (.cask_resource, "
	"cuFFT's .ldata, ...) are listed with their section and left out of verdicts. "
	"An input that cannot be read (missing, a FIFO, a device, a directory beside other inputs "
	"without -r) is named on stderr, skipped, and the run "
	"exits 3. A name holding * or ? that names no file is expanded as a shell would (cmd.exe "
	"and PowerShell do not: arch C:\\app\\*.dll); one that matches nothing is such an input. "
	"A Windows program (.exe) also gets each CUDA DLL it imports followed through "
	"Windows' DLL search order (its folder, System32, System, the Windows folder, the current "
	"folder, PATH) on the Windows side found (this Windows, or /mnt/c under WSL2): one found "
	"nowhere stops the program before it starts (win-exe-dll-not-found; docs/windows.md). "
	"See docs/arch.md.";

enum { OPT_RECURSIVE = 1, OPT_GPU, OPT_PYTHON, OPT_OLLAMA, OPT_DRIVER, OPT_KERNELS, OPT_CUOBJDUMP, OPT_LLVM_OFFLOADING,
       OPT_RESOURCES, OPT_ALL_SECTIONS };

static const struct cli_opt arch_opts[] = {
	{ .id = OPT_RECURSIVE, .short_name = 'r', .long_name = "recursive", .help = "descend into directories" },
	{ .id = OPT_PYTHON, .long_name = "python", .arg = CLI_OPTIONAL, .metavar = "PY",
	  .help = "scan the frameworks' device code in the site-packages of python3 (the launcher's environment's, else PATH's; or PY): the files doctor judges. "
		  "PY may be an install tree read without running it: a folder (venv, conda env, python_embeded) or a Windows python.exe" },
	{ .id = OPT_OLLAMA, .long_name = "ollama", .arg = CLI_OPTIONAL, .metavar = "DIR",
	  .help = "scan Ollama's library folders (or its runners below DIR: a Windows or Linux install "
		  "wherever mounted, a llama.cpp release folder)" },
	{ CMD_OPT_GPU(OPT_GPU, "judge against this GPU (sm_89, 8.9, 89, sm_90a, or a name: \"RTX 4090\", H200; an AMD "
		  "GPU: gfx1100, gfx90a:xnack+, \"RX 7900 XTX\", 780M, MI300X); repeatable. Default: every GPU here") },
	{ .id = OPT_DRIVER, .long_name = "driver", .arg = CLI_REQUIRED, .metavar = "VER",
	  .help = "judge against this driver (550.54.14) or CUDA version (12.4); default: the "
		  "installed driver" },
	{ .id = OPT_KERNELS, .long_name = "kernels",
	  .help = "decompress images and AMD code objects and list their kernels" },
	{ .id = OPT_RESOURCES, .long_name = "resources",
	  .help = "list each SASS image's kernels: registers per thread, static shared, local (stack "
		  "and spills) and constant memory, launch bounds, and the largest block that launches; "
		  "each AMD code object's kernels: SGPRs, VGPRs, AGPRs, LDS, scratch, spills, wavefront "
		  "size and largest work-group" },
	{ .id = OPT_CUOBJDUMP, .long_name = "cuobjdump",
	  .help = "print the listing as cuobjdump --list-elf --list-ptx does" },
	{ .id = OPT_LLVM_OFFLOADING, .long_name = "llvm-offloading",
	  .help = "print the HIP offload bundles' entries as llvm-readobj --offloading (LLVM 22) does" },
	{ .id = OPT_ALL_SECTIONS, .long_name = "all-sections",
	  .help = "search every data section for fatbins, not only .cask_resource, .ldata, .rodata "
		  "and .data (slower on large files)" },
	{ 0 },
};

static int parse_operands(struct report *r, int argc, char **argv, const struct cd_globals *g, struct arch_opts *o,
			  struct arch_inputs *in, char *err)
{
	int n_files = 0; /* operands that are not directories */
	bool python = false, ollama = false;
	const char *python_path = NULL, *ollama_root = NULL;
	int rc;
	o->verbose = g->render.verbosity > 0;
	o->quiet = g->render.verbosity < 0;
	o->json = g->render.format == FMT_JSON;
	for (size_t i = 0; i < g->args->n; i++) {
		const char *val = g->args->v[i].value;
		switch (g->args->v[i].opt->id) {
		case OPT_RECURSIVE: o->recursive = true; break;
		case OPT_PYTHON: python = true; python_path = val; break;
		case OPT_OLLAMA: ollama = true; ollama_root = val; break;
		case OPT_GPU:
			if ((rc = arch_target_gpu_option(&o->target, val, err)))
				return rc;
			break;
		case OPT_DRIVER:
			if ((rc = arch_target_driver_option(&o->target, val, err)))
				return rc;
			break;
		case OPT_KERNELS: o->kernels = true; break;
		case OPT_CUOBJDUMP: o->cuobjdump = true; break;
		case OPT_LLVM_OFFLOADING: o->llvm_offloading = true; break;
		case OPT_ALL_SECTIONS: o->all_sections = true; break;
		case OPT_RESOURCES: o->resources = true; break;
		}
	}
	if (o->cuobjdump && o->llvm_offloading)
		return cd_fail(err, CD_EUSAGE, "--cuobjdump and --llvm-offloading are two listings: name one");
	for (int i = 1; i < argc; i++)
		n_files += !path_is_dir(argv[i]);
	for (int i = 1; i < argc; i++) {
		/* "--python PY": a following interpreter is taken as PY */
		const char *base = os_last_sep(argv[i]) ? os_last_sep(argv[i]) + 1 : argv[i];
		if (python && !python_path && strncmp(base, "python", 6) == 0 && !strstr(base, ".so") &&
		    os_access(argv[i], OS_EXEC) && !path_is_dir(argv[i])) {
			python_path = argv[i];
			continue;
		}
		/* "--python DIR", "--python .../python.exe", "--ollama DIR": a tree read where mounted */
		if (python && !python_path && !o->recursive && cd_run_input_is_python_tree(argv[i])) {
			python_path = argv[i];
			continue;
		}
		if (ollama && !ollama_root && !o->recursive && path_is_dir(argv[i])) {
			ollama_root = argv[i];
			continue;
		}
		/* a glob that caught a directory still judges its files; a directory alone is a
		 * usage error */
		if (path_is_dir(argv[i]) && !o->recursive && (n_files || python || ollama)) {
			char msg[CD_ERRMSG];

			snprintf(msg, sizeof(msg), "%.200s is a directory; skipped (use -r to search it)", argv[i]);
			cmd_input_error(r, "arch", msg);
			continue;
		}
		if (path_is_dir(argv[i]) && !o->recursive)
			return cd_fail(err, CD_EUSAGE, "%.200s is a directory; use -r to search it", argv[i]);
		if (path_is_dir(argv[i]))
			rc = cd_run_input_dir(in, argv[i], o->recursive, err);
		else
			rc = cd_run_input_add(in, argv[i], true) ? cd_fail(err, CD_ENOMEM, "out of memory") : CD_OK;
		if (rc)
			return rc;
	}
	/* an interpreter that does not answer in time is a finding; nothing of it is listed */
	if (python && (rc = cd_run_input_python(in, python_path, r, err)))
		return rc;
	if (ollama && (rc = cd_run_input_ollama(in, ollama_root, err))) {
		if (rc != CD_ENOTFOUND)
			return rc;
		snprintf(o->note, sizeof(o->note), "%s", err); /* nothing to scan is an answer, not a failure */
		err[0] = 0;
	}
	if (argc == 1 && !python && !ollama)
		return cd_fail(err, CD_EUSAGE, "name a file or directory, or use --python / --ollama");
	return CD_OK;
}

/* The operands after wildcard expansion: argv's words borrowed, the matches of a pattern
 * owned. */
struct operands {
	char **v;
	bool *owned;
	size_t n, cap;
};

static int operand_push(struct operands *ops, char *word, bool owned)
{
	if (ops->n == ops->cap) {
		size_t nc = ops->cap ? ops->cap * 2 : 16;
		char **v = realloc(ops->v, nc * sizeof(*v));
		bool *o;

		if (!v)
			return CD_ENOMEM;
		ops->v = v;
		if (!(o = realloc(ops->owned, nc * sizeof(*o))))
			return CD_ENOMEM;
		ops->owned = o;
		ops->cap = nc;
	}
	ops->v[ops->n] = word;
	ops->owned[ops->n++] = owned;
	return CD_OK;
}

/* The operands with each wildcard pattern replaced by the files it matches, as a POSIX shell
 * would have done: Windows' shells pass `arch C:\\app\\*.dll` on as it is. A pattern that
 * matches nothing is an input that cannot be read (said on stderr, exit 3). */
static int parse_args(struct report *r, int argc, char **argv, const struct cd_globals *g, struct arch_opts *o,
		      struct arch_inputs *in, char *err)
{
	struct operands ops = { 0 };
	bool patterns = false;
	int rc = CD_OK;

	for (int i = 1; i < argc; i++)
		patterns |= cd_run_input_is_pattern(argv[i]);
	if (!patterns)
		return parse_operands(r, argc, argv, g, o, in, err);
	rc = operand_push(&ops, argv[0], false);
	for (int i = 1; i < argc && rc == CD_OK; i++) {
		char **m;
		size_t n, k = 0;

		if (!cd_run_input_is_pattern(argv[i])) {
			rc = operand_push(&ops, argv[i], false);
			continue;
		}
		if ((rc = cd_run_input_glob(argv[i], &m, &n, err)) != CD_OK)
			goto out;
		if (n == 0) {
			char msg[CD_ERRMSG];

			snprintf(msg, sizeof msg, "%.200s: no file matches", argv[i]);
			cmd_input_error(r, "arch", msg);
		}
		for (; k < n && rc == CD_OK; k++)
			rc = operand_push(&ops, m[k], true);
		for (; k < n; k++) /* the ones not pushed, out of memory */
			free(m[k]);
		free(m);
	}
	if (rc != CD_OK) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	/* when every pattern matched nothing, that was said: no "name a file" on top */
	if (ops.n > 1 || r->exit_override < 0)
		rc = parse_operands(r, (int)ops.n, ops.v, g, o, in, err);
out:
	for (size_t k = 0; k < ops.n; k++)
		if (ops.owned[k])
			free(ops.v[k]);
	free(ops.v);
	free(ops.owned);
	return rc;
}

/* Over this many files a run shows a count per GPU first, then only the files that do not
 * run natively on every GPU (every file with -v). */
#define ARCH_SUMMARY_FILES 20

/* "21 native, 1 jit, 0 partial, 2 no-image" (and any other verdict that occurred) */
static char *tally_text(const struct arch_tally *a)
{
	struct strbuf sb;

	sb_init(&sb);
	for (int i = 0; i < VERDICT_NONE; i++)
		if (i <= VERDICT_NO_IMAGE || a->n[i])
			sb_printf(&sb, "%s%zu %s", i ? ", " : "", a->n[i], compat_verdict_name((enum compat_verdict)i));
	return sb_detach(&sb);
}

/* "summary": a count per verdict for each GPU; over ARCH_SUMMARY_FILES files also their
 * section, put first by the caller. */
static int summary_fields(struct report_rec *top, const struct arch_target *t, const struct arch_tally *tally,
			  bool shown_text, size_t with_code, size_t shown)
{
	struct report_rec arr, it;

	if (shown_text)
		report_rec_section(top, "Summary: %zu file%s with device code", with_code, with_code == 1 ? "" : "s");
	report_rec_array(top, "summary", &arr);
	if (!shown_text)
		report_rec_text(&arr, REPORT_TEXT_NONE);
	for (size_t i = 0; i < t->n_gpus; i++) {
		char *line = tally_text(&tally[i]);

		report_rec_item(&arr, &it);
		report_field(&it, NULL, "gpu", rv_str(t->gpus[i].name));
		if (line)
			report_field(&it, t->gpus[i].name, NULL, rv_str(line));
		else
			report_rec_fail(&it, CD_ENOMEM);
		free(line);
		for (int v = 0; v < VERDICT_NONE; v++) {
			char key[32];

			snprintf(key, sizeof key, "%s", compat_verdict_name((enum compat_verdict)v));
			for (char *c = key; *c; c++)
				*c = *c == '-' ? '_' : *c;
			report_field(&it, NULL, key, rv_int((long long)tally[i].n[v]));
		}
		if (report_rec_end(&it) != CD_OK)
			break;
	}
	if (report_rec_end(&arr) != CD_OK)
		return CD_ENOMEM;
	if (shown_text)
		report_rec_line(top, "%s", shown ? "Below: only the files that do not run natively on every GPU (-v shows every file)."
					       : "Every file runs natively on every GPU (-v shows each one).");
	return top->rc;
}

/* What files are judged against: a line per GPU and the driver's, and "gpus", "driver". */
static int target_fields(struct report_rec *top, const struct arch_target *t, const char *why)
{
	struct report_rec arr, it;

	report_rec_section(top, "Judged against");
	if (t->n_gpus == 0)
		report_fieldf(top, "GPUs", NULL, rv_null(), "%s", why[0] ? why : "none");
	report_rec_array(top, "gpus", &arr);
	for (size_t i = 0; i < t->n_gpus; i++) {
		char cc[16];

		snprintf(cc, sizeof(cc), "%u.%u", t->gpus[i].cc / 10, t->gpus[i].cc % 10);
		report_rec_item(&arr, &it);
		report_field(&it, NULL, "gpu", rv_str(t->gpus[i].name));
		if (t->gpus[i].amd) {
			report_field(&it, NULL, "compute_capability", rv_null());
			report_fieldf(&it, t->gpus[i].name, "gfx", rv_str(t->gpus[i].gfx), "AMD %s", t->gpus[i].gfx);
		} else {
			report_fieldf(&it, t->gpus[i].name, "compute_capability", rv_str(cc), "compute capability %s", cc);
		}
		if (report_rec_end(&it) != CD_OK)
			break;
	}
	if (report_rec_end(&arr) != CD_OK)
		return CD_ENOMEM;
	arch_driver_fields(top, &t->driver);
	if (t->force_jit)
		report_fieldf(top, "CUDA_FORCE_PTX_JIT", NULL, rv_null(), "set: SASS in fatbins is ignored");
	if (t->disable_jit)
		report_fieldf(top, "CUDA_DISABLE_PTX_JIT", NULL, rv_null(), "set: PTX is never compiled");
	if (t->hsa_override[0])
		report_fieldf(top, "HSA_OVERRIDE_GFX_VERSION", NULL, rv_null(), "%s: every AMD GPU is taken for %s (unsupported by AMD)",
			      t->hsa_override, t->hsa_override_gfx);
	return top->rc;
}

/* The rest of the target from this machine (the run context's caps): the driver unless
 * given, the GPUs unless named; why gets the sentence to show when no GPU is left to judge
 * against. CD_OK or CD_ENOMEM. */
static int target_probe(struct cd_run *run, struct arch_target *t, char *why, size_t why_cap, char *err)
{
	const struct gpu_probe *p;
	int rc;

	why[0] = '\0';
	if (t->n_gpus && t->driver.known)
		return CD_OK;
	if ((rc = cd_run_caps(run, t->n_gpus == 0, &p, err)) != CD_OK)
		return rc;
	arch_target_add_probe(t, p);
	if (!t->n_gpus)
		arch_target_none_why(p, why, why_cap);
	return CD_OK;
}

static int arch_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct arch_opts o;
	struct arch_inputs in = {0};
	struct arch_tally *tally = NULL;
	struct report_rec top, files;
	struct progress_line prog;
	char why[CD_ERRMSG + 64] = "";
	struct arch_walk w = {0};
	size_t details_at;
	int rc;

	memset(&o, 0, sizeof(o));
	arch_target_init(&o.target);
	const struct arch_target *t = &o.target;
	if ((rc = parse_args(r, argc, argv, g, &o, &in, err)))
		goto out;
	report_rec_top(&top, r);
	if (o.cuobjdump || o.llvm_offloading) {
		report_rec_text(&top, REPORT_TEXT_NONE); /* the listing is cuobjdump's or llvm-readobj's, on stdout */
		r->self_rendered = true;
	} else if ((rc = target_probe(g->run, &o.target, why, sizeof(why), err)) != CD_OK) {
		goto out;
	}
	if ((rc = target_fields(&top, t, why)) != CD_OK || !(tally = calloc(t->n_gpus ? t->n_gpus : 1, sizeof(*tally)))) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < t->n_gpus && !o.cuobjdump && !o.llvm_offloading; i++) {
		struct driver_gpu_verdict v = driver_gpu_verdict(&t->gpus[i], &t->driver);

		if (driver_gpu_finding(r, &t->gpus[i], &t->driver, &v) != CD_OK) {
			rc = cd_fail(err, CD_ENOMEM, "out of memory");
			goto out;
		}
	}
	w.files = &files;
	w.o = &o;
	w.tally = tally;
	w.prog = &prog;
	w.summary = !o.cuobjdump && !o.llvm_offloading && !o.verbose && in.n > ARCH_SUMMARY_FILES && t->n_gpus > 0;
	sb_init(&w.llvm_summaries);
	details_at = report_items_mark(r);
	report_rec_array(&top, "files", &files);
	progress_start(&prog, g->stderr_is_tty && !o.cuobjdump && !o.llvm_offloading, "arch: searched");
	for (size_t i = 0; i < in.n; i++) {
		arch_walk_input(&w, in.paths[i], in.explicit_input[i]);
		progress_step(&prog, i + 1, in.n);
	}
	progress_end(&prog);
	if (o.llvm_offloading && w.llvm_summaries.len)
		fputs(w.llvm_summaries.buf, stdout);
	if (report_rec_end(&files) != CD_OK) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	if (w.listed + w.failed == 0)
		report_rec_line(&top, "no files with device code found (%zu searched)", w.searched);
	{
		size_t summary_at = report_items_mark(r);

		if (summary_fields(&top, t, tally, w.summary, w.with_code, w.shown) != CD_OK) {
			rc = cd_fail(err, CD_ENOMEM, "out of memory");
			goto out;
		}
		if (w.summary)
			report_items_move(r, summary_at, details_at);
	}
	if (w.searched > 1) {
		report_rec_section(&top, "Searched");
		report_rec_line(&top, "%zu of %zu files carry device code", w.with_code, w.searched);
		if (w.failed)
			report_rec_line(&top, "%zu could not be read (named on stderr)", w.failed);
	}
	report_field(&top, NULL, "files_searched", rv_int((long long)w.searched));
	report_field(&top, NULL, "files_with_device_code", rv_int((long long)w.with_code));
	if (o.note[0])
		report_rec_line(&top, "%s", o.note);
	/* an input that failed made the run exit 3 (cmd_input_error) */
	if ((rc = report_rec_end(&top)) != CD_OK)
		rc = cd_fail(err, rc, "out of memory");
out:
	sb_free(&w.llvm_summaries);
	free(tally);
	cd_run_inputs_free(&in);
	return rc;
}

const struct cd_command cmd_arch = {
	.name = "arch",
	.summary = "which kernel images (SASS/PTX) files carry and whether each GPU can run them",
	.usage = "cudoctor arch [OPTIONS] FILE|DIR...\n"
		 "       cudoctor arch [OPTIONS] --python[=PY] | --ollama",
	.help = arch_help,
	.notes = arch_notes,
	.opts = arch_opts,
	.operands = CLI_C_FILE,
	.run = arch_run,
};
