/* `cudoctor arch`: which kernel images files carry and whether the GPUs here (or named)
 * can run them. Wires binfmt/devcode (what is there), rules/arch (what runs) and the report;
 * its parts are in cmd/arch/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cmd/arch/arch.h"
#include "rules/driver_need.h"
#include "cmd/cmd.h"
#include "cmd/progress.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"

static const char arch_help[] =
	"Lists the kernel images (SASS sm_XY, PTX compute_XY) in executables, shared libraries, "
	"objects, static archives, .fatbin, .cubin and .ptx files, and says whether each GPU "
	"can run them: native, jit, partial, no-image, ptx-too-new or jit-disabled. "
	"Only headers are read, so whole environments take milliseconds.";

static const char arch_notes[] =
	"CUDA_FORCE_PTX_JIT and CUDA_DISABLE_PTX_JIT in the environment are honoured as the "
	"driver honours them. Containers in sections cuobjdump does not read (.cask_resource, "
	"cuFFT's .ldata, ...) are listed with their section and left out of verdicts. "
	"An input that cannot be read (missing, a FIFO, a device, a directory beside other inputs "
	"without -r) is named on stderr, skipped, and the run "
	"exits 3. See docs/arch.md.";

enum { OPT_RECURSIVE = 1, OPT_GPU, OPT_PYTHON, OPT_OLLAMA, OPT_DRIVER, OPT_KERNELS, OPT_CUOBJDUMP, OPT_RESOURCES };

static const struct cli_opt arch_opts[] = {
	{ .id = OPT_RECURSIVE, .short_name = 'r', .long_name = "recursive", .help = "descend into directories" },
	{ .id = OPT_PYTHON, .long_name = "python", .arg = CLI_OPTIONAL, .metavar = "PY",
	  .help = "scan the site-packages of python3 (or of interpreter PY)" },
	{ .id = OPT_OLLAMA, .long_name = "ollama", .help = "scan Ollama's library folders" },
	{ .id = OPT_GPU, .short_name = 'g', .long_name = "gpu", .arg = CLI_REQUIRED, .metavar = "SPEC",
	  .help = "judge against this GPU (sm_89, 8.9, 89, sm_90a, or a name: \"RTX 4090\", H200); "
		  "repeatable. Default: every GPU here",
	  .complete = CLI_C_GPU, .flags = CLI_REPEAT },
	{ .id = OPT_DRIVER, .long_name = "driver", .arg = CLI_REQUIRED, .metavar = "VER",
	  .help = "judge against this driver (550.54.14) or CUDA version (12.4); default: the "
		  "installed driver" },
	{ .id = OPT_KERNELS, .long_name = "kernels", .help = "decompress images and list their kernels" },
	{ .id = OPT_RESOURCES, .long_name = "resources",
	  .help = "list each SASS image's kernels: registers per thread, static shared, local (stack "
		  "and spills) and constant memory, launch bounds, and the largest block that launches" },
	{ .id = OPT_CUOBJDUMP, .long_name = "cuobjdump",
	  .help = "print the listing as cuobjdump --list-elf --list-ptx does" },
	{ 0 },
};

/* Releases the pages a walk has passed, so memory stays flat on gigabyte libraries. */
struct release_ctx {
	const unsigned char *base;
	size_t done;
};

#define RELEASE_STEP ((size_t)8 << 20)

static void release_behind(const unsigned char *upto, void *ctx)
{
	struct release_ctx *rc = ctx;
	long pg = sysconf(_SC_PAGESIZE);
	size_t page = pg > 0 ? (size_t)pg : 4096;
	size_t to = (size_t)(upto - rc->base) & ~(page - 1);
	if (to > rc->done + RELEASE_STEP) {
		madvise((void *)(rc->base + rc->done), to - rc->done, MADV_DONTNEED);
		rc->done = to;
	}
}

static int parse_args(struct report *r, int argc, char **argv, const struct cd_globals *g, struct arch_opts *o,
		      struct arch_inputs *in, char *err)
{
	int n_files = 0; /* operands that are not directories */
	bool python = false, ollama = false;
	const char *python_path = NULL;
	int rc;
	o->verbose = g->render.verbosity > 0;
	o->quiet = g->render.verbosity < 0;
	o->json = g->render.format == FMT_JSON;
	for (size_t i = 0; i < g->args->n; i++) {
		const char *val = g->args->v[i].value;
		switch (g->args->v[i].opt->id) {
		case OPT_RECURSIVE: o->recursive = true; break;
		case OPT_PYTHON: python = true; python_path = val; break;
		case OPT_OLLAMA: ollama = true; break;
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
		case OPT_RESOURCES: o->resources = true; break;
		}
	}
	for (int i = 1; i < argc; i++)
		n_files += !path_is_dir(argv[i]);
	for (int i = 1; i < argc; i++) {
		/* "--python PY": a following interpreter is taken as PY */
		const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		if (python && !python_path && strncmp(base, "python", 6) == 0 && !strstr(base, ".so") &&
		    access(argv[i], X_OK) == 0 && !path_is_dir(argv[i])) {
			python_path = argv[i];
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
			rc = arch_inputs_expand_dir(in, argv[i], o->recursive, err);
		else
			rc = arch_inputs_add(in, argv[i], true) ? cd_fail(err, CD_ENOMEM, "out of memory") : CD_OK;
		if (rc)
			return rc;
	}
	if (python && (rc = arch_inputs_python(r, in, python_path, err)))
		return rc;
	if (ollama && (rc = arch_inputs_ollama(in, err))) {
		if (rc != CD_ENOTFOUND)
			return rc;
		snprintf(o->note, sizeof(o->note), "%s", err); /* nothing to scan is an answer, not a failure */
		err[0] = 0;
	}
	if (argc == 1 && !python && !ollama)
		return cd_fail(err, CD_EUSAGE, "name a file or directory, or use --python / --ollama");
	return CD_OK;
}

static unsigned scan_opts(const struct arch_opts *o, bool explicit_input)
{
	if (o->cuobjdump)
		return DC_READ_ELF;
	return explicit_input ? DC_SCAN_ALL_SECTIONS : DC_SCAN_IF_CUDA;
}

/* One file: map, scan, list, judge. A file that fails gets its one-line error and the
 * run goes on; returns false then. */
static bool do_file(struct report *r, const char *path, bool explicit_input, const struct arch_opts *o,
		    json_t *files, size_t *listed, size_t *with_code, struct cmd_progress *prog)
{
	struct mapped_file mf;
	struct arch_file f = {.path = path};
	char err[CD_ERRMSG] = "";
	bool ok = false;
	dc_init(&f.inv);
	struct release_ctx rel = {0};
	int rc = file_map(path, &mf, err);
	if (rc == CD_OK) {
		f.data = mf.data;
		f.size = mf.size;
		rel.base = mf.data;
		f.inv.progress = release_behind;
		f.inv.progress_ctx = &rel;
		rc = dc_scan(&f.inv, mf.data, mf.size, scan_opts(o, explicit_input), err);
		if (rc == CD_OK && !file_map_intact(&mf))
			rc = cd_fail(err, CD_EIO, "the file was cut short while it was read");
		if (rc && !strstr(err, path)) {
			char cause[CD_ERRMSG];
			memcpy(cause, err, sizeof(cause));
			cd_fail(err, rc, "%s: %s", path, cause);
		}
	}
	if (rc) {
		cmd_progress_end(prog); /* the error line starts on a clean line */
		cmd_input_error(r, "arch", err);
		if (!o->cuobjdump) {
			report_section(r, "%s", path);
			report_line(r, "error: %s", err);
		}
		json_t *j = json_object();
		if (j) {
			json_object_set_new(j, "path", json_string(path));
			json_object_set_new(j, "error", json_string(err));
			json_array_append_new(files, j);
		}
		goto out;
	}
	ok = true;
	*with_code += f.inv.format != DC_NO_DEVICE_CODE;
	if (!explicit_input && f.inv.format == DC_NO_DEVICE_CODE)
		goto out; /* found in a directory: only files with device code are reported */
	++*listed;
	if (o->cuobjdump) {
		unsigned elf_no = 0, ptx_no = 0;
		arch_cuobjdump_lines(&f, &elf_no, &ptx_no, stdout);
		goto out;
	}
	size_t primary = 0;
	for (size_t i = 0; i < f.inv.n_containers; i++)
		primary += f.inv.containers[i].primary;
	report_section(r, "%s (%s): %zu container%s, %zu image%s", path, dc_format_name(f.inv.format),
		       f.inv.n_containers, f.inv.n_containers == 1 ? "" : "s", f.inv.n_images,
		       f.inv.n_images == 1 ? "" : "s");
	if (f.inv.n_images)
		arch_list_text(r, &f, o);
	if (primary < f.inv.n_containers) {
		/* which sections: the CUDA runtime registers .nv_fatbin (else __nv_relfatbin) only */
		char secs[256] = "";
		bool *other = calloc(f.inv.n_sections ? f.inv.n_sections : 1, sizeof(bool));
		for (size_t i = 0; other && i < f.inv.n_containers; i++)
			if (!f.inv.containers[i].primary)
				other[f.inv.containers[i].section] = true;
		for (size_t s = 0; other && s < f.inv.n_sections; s++)
			if (other[s] && strlen(secs) + strlen(f.inv.sections[s]) + 3 < sizeof(secs))
				snprintf(secs + strlen(secs), sizeof(secs) - strlen(secs), "%s%s", secs[0] ? ", " : "",
					 f.inv.sections[s]);
		free(other);
		report_line(r, "%zu container%s in %s: not registered by the CUDA runtime (the library or a "
			    "device link loads them), listed but not judged", f.inv.n_containers - primary,
			    f.inv.n_containers - primary == 1 ? "" : "s", secs);
	}
	json_t *j = json_object();
	if (!j)
		goto out;
	json_object_set_new(j, "path", json_string(path));
	json_object_set_new(j, "format", json_string(dc_format_name(f.inv.format)));
	json_object_set_new(j, "containers", json_integer((json_int_t)f.inv.n_containers));
	json_object_set_new(j, "primary_containers", json_integer((json_int_t)primary));
	json_t *images = o->json ? arch_images_json(&f, o) : json_array();
	rel.done = 0; /* the judge reads small payloads in file order: release behind it too */
	json_t *verdicts = NULL;
	if (arch_verdicts(r, &f, &o->target, &verdicts, err) != CD_OK || !images) {
		json_decref(images);
		json_decref(verdicts);
		json_decref(j);
		r->oom = true;
		goto out;
	}
	json_object_set_new(j, "images", images);
	json_object_set_new(j, "verdicts", verdicts);
	if (o->resources) {
		json_t *res = NULL;

		if (arch_resources(r, &f, &res, err) != CD_OK) {
			json_decref(j);
			r->oom = true;
			goto out;
		}
		json_object_set_new(j, "resources", res);
	}
	json_array_append_new(files, j);
	/* -q: one verdict line per file and GPU */
	for (size_t i = 0; i < json_array_size(verdicts); i++) {
		json_t *v = json_array_get(verdicts, i);
		cmd_note(r, report_answer(r, "%s: %s: %s", path, json_string_value(json_object_get(v, "gpu")),
					  json_string_value(json_object_get(v, "result"))));
	}
	if (json_array_size(verdicts) == 0)
		cmd_note(r, report_answer(r, "%s: %s", path, f.inv.n_images ? "not judged (no GPU)" : "no device code"));
out:
	dc_free(&f.inv);
	file_unmap(&mf);
	return ok;
}

/* Over this many files a run shows a count per GPU first, then only the files that do not
 * run natively on every GPU (every file with -v). */
#define ARCH_SUMMARY_FILES 20

/* How many files got each verdict, for one GPU. */
struct arch_tally {
	size_t n[VERDICT_NONE];
};

/* Adds a file's verdicts (its JSON object) to the tally; true when the file deserves its
 * details in a summary: it failed, or some GPU runs it other than natively. A file with no
 * verdict (no device code) is counted nowhere and needs no details. */
static bool tally_file(struct arch_tally *tally, const struct arch_target *t, const json_t *file)
{
	const json_t *verdicts = json_object_get(file, "verdicts");
	size_t gpu = 0;
	bool details = json_object_get(file, "error") != NULL;

	for (size_t k = 0; k < json_array_size(verdicts); k++) {
		const json_t *v = json_array_get(verdicts, k);
		const char *name = json_string_value(json_object_get(v, "gpu"));
		const char *result = json_string_value(json_object_get(v, "result"));

		/* verdicts come in the target's GPU order, GPUs with nothing to judge left out */
		while (gpu < t->n_gpus && (!name || strcmp(t->gpus[gpu].name, name) != 0))
			gpu++;
		if (gpu == t->n_gpus)
			break;
		for (int i = 0; i < VERDICT_NONE; i++)
			if (result && strcmp(result, compat_verdict_name((enum compat_verdict)i)) == 0)
				tally[gpu].n[i]++;
		details |= !result || strcmp(result, compat_verdict_name(VERDICT_NATIVE)) != 0;
		gpu++;
	}
	return details;
}

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

static int tally_section(struct report *r, const struct arch_target *t, const struct arch_tally *tally,
			 size_t with_code, size_t shown)
{
	report_section(r, "Summary: %zu file%s with device code", with_code, with_code == 1 ? "" : "s");
	for (size_t i = 0; i < t->n_gpus; i++) {
		char *line = tally_text(&tally[i]);

		if (!line)
			return CD_ENOMEM;
		report_kv(r, t->gpus[i].name, "%s", line);
		free(line);
	}
	report_line(r, "%s", shown ? "Below: only the files that do not run natively on every GPU (-v shows every file)."
				   : "Every file runs natively on every GPU (-v shows each one).");
	return r->oom ? CD_ENOMEM : CD_OK;
}

/* [{gpu, native, jit, partial, no_image, ptx_too_new, jit_disabled}]; NULL when out of memory */
static json_t *tally_json(const struct arch_target *t, const struct arch_tally *tally)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < t->n_gpus; i++) {
		json_t *o = json_object();

		if (!o || json_array_append_new(arr, o) || json_object_set_new(o, "gpu", json_string(t->gpus[i].name))) {
			json_decref(arr);
			return NULL;
		}
		for (int v = 0; v < VERDICT_NONE; v++) {
			char key[32];

			snprintf(key, sizeof key, "%s", compat_verdict_name((enum compat_verdict)v));
			for (char *c = key; *c; c++)
				*c = *c == '-' ? '_' : *c;
			if (json_object_set_new(o, key, json_integer((json_int_t)tally[i].n[v]))) {
				json_decref(arr);
				return NULL;
			}
		}
	}
	return arr;
}

static int arch_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct arch_opts o;
	struct arch_inputs in = {0};
	char why[CD_ERRMSG + 64] = "";
	memset(&o, 0, sizeof(o));
	arch_target_init(&o.target);
	const struct arch_target *t = &o.target;
	const struct arch_driver *d = &o.target.driver;
	int rc = parse_args(r, argc, argv, g, &o, &in, err);
	if (rc)
		goto out;
	if (!o.cuobjdump)
		arch_target_probe(&o.target, why, sizeof(why));
	if (!o.cuobjdump) {
		report_section(r, "Judged against");
		if (t->n_gpus == 0)
			report_kv(r, "GPUs", "%s", why[0] ? why : "none");
		for (size_t i = 0; i < t->n_gpus; i++)
			report_kv(r, t->gpus[i].name, "compute capability %u.%u", t->gpus[i].cc / 10, t->gpus[i].cc % 10);
		if (d->known)
			report_kv(r, "driver", "%s%s%s: CUDA %d.%d, PTX JIT up to ISA %u.%u", d->source,
				  d->version[0] ? " " : "", d->version, d->cuda / 1000,
				  (d->cuda % 1000) / 10, d->ptx_isa_max / 100, d->ptx_isa_max % 100);
		else
			report_kv(r, "driver", "unknown (PTX ISA and compression not checked; use --driver)");
		if (t->force_jit)
			report_kv(r, "CUDA_FORCE_PTX_JIT", "set: SASS in fatbins is ignored");
		if (t->disable_jit)
			report_kv(r, "CUDA_DISABLE_PTX_JIT", "set: PTX is never compiled");
		for (size_t i = 0; i < t->n_gpus && rc == CD_OK; i++) {
			struct driver_gpu_verdict v = driver_gpu_verdict(&t->gpus[i], d);

			if (driver_gpu_finding(r, &t->gpus[i], d, &v) != CD_OK)
				rc = cd_fail(err, CD_ENOMEM, "out of memory");
		}
		if (rc)
			goto out;
	}
	json_t *files = json_array();
	if (!files) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	size_t failed = 0, listed = 0, with_code = 0, shown = 0;
	bool summary = !o.cuobjdump && !o.verbose && in.n > ARCH_SUMMARY_FILES && t->n_gpus > 0;
	struct arch_tally *tally = calloc(t->n_gpus ? t->n_gpus : 1, sizeof(*tally));
	size_t details_at = report_items_mark(r);
	struct cmd_progress prog;

	if (!tally) {
		json_decref(files);
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	cmd_progress_start(&prog, g->stderr_is_tty && !o.cuobjdump, "arch: searched");
	for (size_t i = 0; i < in.n; i++) {
		size_t mark = report_items_mark(r), before = json_array_size(files);

		if (!do_file(r, in.paths[i], in.explicit_input[i], &o, files, &listed, &with_code, &prog))
			failed++;
		if (json_array_size(files) > before &&
		    !tally_file(tally, t, json_array_get(files, before)) && summary)
			report_items_truncate(r, mark); /* runs natively everywhere: counted, not shown */
		else if (report_items_mark(r) > mark)
			shown++;
		cmd_progress_step(&prog, i + 1, in.n);
	}
	cmd_progress_end(&prog);
	if (o.cuobjdump)
		r->self_rendered = true;
	else if (listed + failed == 0)
		report_line(r, "no files with device code found (%zu searched)", in.n);
	if (!o.cuobjdump && summary) {
		size_t summary_at = report_items_mark(r);

		if (tally_section(r, t, tally, with_code, shown) != CD_OK) {
			free(tally);
			json_decref(files);
			rc = cd_fail(err, CD_ENOMEM, "out of memory");
			goto out;
		}
		report_items_move(r, summary_at, details_at);
	}
	if (!o.cuobjdump && in.n > 1) {
		report_section(r, "Searched");
		report_line(r, "%zu of %zu files carry device code", with_code, in.n);
		if (failed)
			report_line(r, "%zu could not be read (named on stderr)", failed);
	}
	report_json_set(r, "files_searched", json_integer((json_int_t)in.n));
	report_json_set(r, "files_with_device_code", json_integer((json_int_t)with_code));
	report_json_set(r, "summary", tally_json(t, tally));
	free(tally);
	if (o.note[0] && !o.cuobjdump)
		report_line(r, "%s", o.note);
	json_t *gpus = json_array();
	for (size_t i = 0; gpus && i < t->n_gpus; i++) {
		json_t *jg = json_object();
		char cc[16];
		snprintf(cc, sizeof(cc), "%u.%u", t->gpus[i].cc / 10, t->gpus[i].cc % 10);
		json_object_set_new(jg, "gpu", json_string(t->gpus[i].name));
		json_object_set_new(jg, "compute_capability", json_string(cc));
		json_array_append_new(gpus, jg);
	}
	report_json_set(r, "files", files);
	report_json_set(r, "gpus", gpus);
	report_json_set(r, "driver", arch_driver_json(d));
	/* an input that failed made the run exit 3 (cmd_input_error) */
	rc = CD_OK;
out:
	arch_inputs_free(&in);
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
