/* `cudoctor explain`: recognise the CUDA errors in pasted text, say what they mean in the
 * programming model, check this machine, and give the fix as commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binfmt/devcode.h"
#include "cmd/arch/arch.h"
#include "cmd/cmd.h"
#include "cmd/explain/checks.h"
#include "cmd/explain/nccl.h"
#include "explain/evidence.h"
#include "explain/explain.h"
#include "rules/oom.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"

static const char explain_help[] =
	"Recognises every CUDA error cudoctor's catalogue knows in TEXT (or stdin: a log of any size, "
	"read to its end in one pass): by message, in the wording of every CUDA release, by name "
	"(cudaErrorNoKernelImageForDevice, CUDA_ERROR_NO_BINARY_FOR_GPU, CUBLAS_STATUS_*, CUDNN_STATUS_* "
	"and the other CUDA libraries' status codes), by number in a CUDA context (CUDA error 209), "
	"loader errors of CUDA libraries, and the messages of PyTorch, TensorFlow/XLA, JAX, vLLM, "
	"Ollama, llama.cpp, ComfyUI, onnxruntime, Triton, nvcc, NVML, NCCL and the kernel log (Xid). "
	"For each: the cause in terms of the stack and the programming model, the last line it was "
	"seen on and how often, checks on this machine, and the fix.\n"
	"\n"
	"Options come before the text; everything from the first other word on is the text, even "
	"words that start with '-' (\"-> CUDA driver version is insufficient\").";

enum { OPT_OFFLINE = 1, OPT_BINARY, OPT_GPU, OPT_DRIVER, OPT_BLOCK, OPT_PATTERNS };

static const struct cli_opt explain_opts[] = {
	{ .id = OPT_OFFLINE, .long_name = "offline", .help = "skip the checks on this machine" },
	{ .id = OPT_BINARY, .long_name = "binary", .arg = CLI_REQUIRED, .metavar = "PATH",
	  .help = "the program or library that failed: check which images it carries and judge them "
		  "as `cudoctor arch` does",
	  .complete = CLI_C_FILE },
	{ .id = OPT_GPU, .short_name = 'g', .long_name = "gpu", .arg = CLI_REQUIRED, .metavar = "SPEC",
	  .help = "judge --binary against this GPU (sm_89, 8.9, 89, sm_90a, H200) instead of the GPUs "
		  "here; repeatable; also with --offline, for a log from another machine",
	  .complete = CLI_C_GPU, .flags = CLI_REPEAT },
	{ .id = OPT_DRIVER, .long_name = "driver", .arg = CLI_REQUIRED, .metavar = "VER",
	  .help = "judge against this driver (550.54.14) or CUDA version (12.4) instead of the "
		  "installed one" },
	{ .id = OPT_BLOCK, .long_name = "block", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "threads per block of the failed launch, for `too many resources requested for "
		  "launch`: names the kernels of --binary that cannot launch with N threads on the GPU "
		  "and the largest block each can (default: the block the text names, else 1024)" },
	{ .id = OPT_PATTERNS, .long_name = "patterns", .flags = CLI_HIDDEN,
	  .help = "print the strings the scanner looks for, one a line, and stop (bench/explain.sh "
		  "gives them to grep -F -f)" },
	{ 0 },
};

/* stdin is read to its end in pieces and judged as it arrives: a log of any size, and the
 * program writing into the pipe never gets SIGPIPE */
static int scan_stdin(struct explain_scan *sc, char *err)
{
	static char buf[1 << 20];
	size_t n;
	int rc;

	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
		if ((rc = explain_scan_feed(sc, buf, n, err)) != CD_OK)
			return rc;
	if (ferror(stdin))
		return cd_fail(err, CD_EIO, "reading stdin failed");
	return CD_OK;
}

/* --patterns: the scanner's strings, for a plain multi-string search to be measured against */
static int print_patterns(struct report *r, char *err)
{
	const char *const *texts;
	size_t n;
	int rc = explain_patterns(&texts, &n, err);

	r->self_rendered = true;
	for (size_t i = 0; rc == CD_OK && i < n; i++)
		if (printf("%s\n", texts[i]) < 0)
			rc = cd_fail(err, CD_EIO, "writing stdout failed");
	return rc;
}

static enum severity severity_of(const char *s)
{
	if (!strcmp(s, "ok"))
		return SEV_OK;
	if (!strcmp(s, "info"))
		return SEV_INFO;
	if (!strcmp(s, "warn"))
		return SEV_WARN;
	return SEV_ERROR;
}

/* The binary check's verdicts as arch prints them for a file: {path, format, verdicts}. */
static json_t *binary_json(const struct explain_binary *b)
{
	json_t *jb = json_object(), *jv = json_array();

	if (!jb || !jv || json_object_set_new(jb, "path", json_string(b->path)) ||
	    json_object_set_new(jb, "format", json_string(b->format)))
		goto oom;
	for (size_t i = 0; i < b->n; i++)
		if (json_array_append_new(jv, arch_verdict_json(b->gpus[i], &b->v[i])))
			goto oom;
	if (json_object_set_new(jb, "verdicts", jv) == 0)
		return jb;
	jv = NULL;
oom:
	json_decref(jv);
	json_decref(jb);
	return NULL;
}

/* The launch check as {block, block_from, kernels: [{gpu, image, name, registers, limit,
 * largest_block}]}: the kernels that cannot launch. */
static json_t *launch_json(const struct explain_launch *l)
{
	json_t *jk = json_array();

	for (size_t i = 0; jk && i < l->n; i++) {
		const struct explain_launch_kernel *k = &l->k[i];

		if (json_array_append_new(jk, json_pack("{s:s, s:s, s:s, s:i, s:s, s:i}", "gpu", k->gpu, "image",
							k->image, "name", k->name, "registers", (int)k->registers,
							"limit", launch_limit_name(k->limit), "largest_block",
							(int)k->largest))) {
			json_decref(jk);
			return NULL;
		}
	}
	return jk ? json_pack("{s:i, s:s, s:o}", "block", (int)l->block, "block_from", l->block_from, "kernels", jk)
		  : NULL;
}

/* Appends s to arr; false when out of memory. */
static bool push(json_t *arr, json_t *s)
{
	return json_array_append_new(arr, s) == 0;
}

/* A fix line with what is known put in for its placeholders; false when the line does not
 * apply (PyTorch advice for a text and binary that are not PyTorch's). */
static bool fill_fix(const char *fix, const struct explain_match *m, const struct explain_env *env, bool torch,
		     char *out, size_t n)
{
	const struct arch_target *t = &env->target;
	const char *binary = env->binary && !env->binary_bad ? env->binary : m->path[0] ? m->path : NULL;
	char gpus[160] = "", gpu_opts[200] = "", code[16] = "", branch[16] = "";
	size_t used = 0, uo = 0;

	if (!torch && (strstr(fix, "torch") || strstr(fix, "PyTorch") || strstr(fix, "TORCH_")))
		return false;
	for (size_t i = 0; i < t->n_gpus; i++) {
		bool seen = false;

		for (size_t k = 0; k < i; k++)
			seen |= t->gpus[k].cc == t->gpus[i].cc;
		if (seen)
			continue;
		if (used < sizeof(gpus))
			used += (size_t)snprintf(gpus + used, sizeof(gpus) - used, "%ssm_%u", used ? " --gpu " : "",
						 t->gpus[i].cc);
		if (uo < sizeof(gpu_opts))
			uo += (size_t)snprintf(gpu_opts + uo, sizeof(gpu_opts) - uo, " --gpu sm_%u", t->gpus[i].cc);
	}
	if (m->error)
		snprintf(code, sizeof(code), "%d", m->error->code);
	if (t->driver.version[0])
		snprintf(branch, sizeof(branch), "%.*s", (int)strcspn(t->driver.version, "."), t->driver.version);
	{
		/* what is known, else a command or word that stands for it: a fix line never
		 * prints a <placeholder> */
		static const char drv_cmd[] = "$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1)";
		static const char branch_cmd[] =
			"$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1 | cut -d. -f1)";
		static const char nvcc_ver[] = "$(nvcc --version | sed -n 's/.*release \\([0-9.]*\\),.*/\\1/p')";
		const struct {
			const char *ph, *val, *fallback;
		} subs[] = {
			{ "--gpu <this GPU> ", gpus[0] ? NULL : "", NULL }, /* arch judges the GPUs here */
			{ "<this GPU>", gpus[0] ? gpus : NULL, "sm_XY" },
			{ "<GPU>", gpus[0] ? gpus : NULL, "sm_XY" },
			{ "--gpu <each GPU you ship to>", gpus[0] ? NULL : "--native", NULL },
			{ "<each GPU you ship to>", gpus[0] ? gpus : NULL, "sm_XY" },
			{ "<the binary or library that failed>", binary, "./your_program" },
			{ "<binary>", binary, "./your_program" },
			{ "<program>", binary, "./your_program" },
			{ "<your driver version>", t->driver.version[0] ? t->driver.version : NULL, drv_cmd },
			{ "<driver branch>", branch[0] ? branch : NULL, branch_cmd },
			{ "<code>", code[0] ? code : NULL, m->error ? m->error->name : "ERROR_NAME" },
			{ "<the library>", m->library[0] ? m->library : NULL, "cuda" },
			{ "<the version it was built with>", m->versions[1][0] ? m->versions[1] : NULL, "VERSION" },
			{ "<version>", NULL, nvcc_ver },
		};
		size_t o = 0;

		for (const char *p = fix; *p && o + 1 < n;) {
			bool done = false;

			for (size_t k = 0; k < sizeof(subs) / sizeof(subs[0]) && !done; k++) {
				size_t l = strlen(subs[k].ph);

				const char *v = subs[k].val ? subs[k].val : subs[k].fallback;

				if (v && strncmp(p, subs[k].ph, l) == 0) {
					o += (size_t)snprintf(out + o, n - o, "%s", v);
					if (o >= n)
						o = n - 1;
					p += l;
					done = true;
				}
			}
			if (!done)
				out[o++] = *p++;
		}
		out[o] = '\0';
	}
	/* "cudoctor gencode --native" builds for this machine's GPUs; named ones replace it */
	if (gpu_opts[0] && strncmp(out, "cudoctor gencode --native", 25) == 0) {
		char rest[600];

		if (snprintf(rest, sizeof(rest), "%s", out + 25) >= (int)sizeof(rest) ||
		    snprintf(out, n, "cudoctor gencode%s%s", gpu_opts, rest) >= (int)n)
			out[n - 1] = '\0';
	}
	return true;
}

/* the text's evidence and the OOM numbers' share one table */
_Static_assert(EXPLAIN_EVIDENCE_LINE == OOM_EVIDENCE_LINE, "evidence lines of one width");

static int report_match(struct report *r, const struct explain_match *m, struct explain_env *env, bool offline,
			bool torch, json_t *matches, char *err)
{
	const struct kb_explanation *x = kb_explanation_find(m->finding);
	struct explain_checks ck = { 0 };
	char ev[8][EXPLAIN_EVIDENCE_LINE], subject[48];
	size_t n_ev;
	struct finding *f;
	json_t *jm = NULL, *jchecks = json_array(), *jfix = json_array(), *jev = json_array();
	bool ok;
	int rc = CD_OK;

	if (!x)
		x = kb_explanation_find("cuda-error");
	if (!x) {
		rc = cd_fail(err, CD_EFORMAT, "explain.tsv has no entry for %s", m->finding);
		goto out;
	}
	if (!jchecks || !jfix || !jev)
		goto oom;
	/* offline, only a binary against named GPUs is checked */
	bool checked = !offline || env->target.n_gpus > 0;
	if (checked && (rc = explain_checks_run(m, x->checks, env, &ck, err)) != CD_OK)
		goto out;
	if (m->count > 1)
		snprintf(subject, sizeof(subject), "text, line %zu (last of %zu)", m->last_line, m->count);
	else
		snprintf(subject, sizeof(subject), "text, line %zu", m->line);
	f = report_add_finding(r, severity_of(x->severity), m->finding, subject,
			       "%s%s%s%s", x->title, m->error ? " (" : "", m->error ? m->error->name : "",
			       m->error ? ")" : "");
	if (!f)
		goto oom;
	for (size_t i = 0; i < m->n_lines; i++)
		if (finding_evidence(f, "matched: %s", m->lines[i]) || !push(jev, json_string(m->lines[i])))
			goto oom;
	if (m->count > 1 && finding_evidence(f, "%zu lines, first line %zu, last line %zu: %s", m->count, m->line,
					      m->last_line, m->last))
		goto oom;
	n_ev = explain_offline_evidence(m, ev, 8);
	if (m->has_oom)
		n_ev += oom_evidence(&m->oom.n, m->oom.gpu, m->oom.suggests_expandable, ev + n_ev, 8 - n_ev);
	for (size_t i = 0; i < n_ev; i++)
		if (finding_evidence(f, "%s", ev[i]) || !push(jev, json_string(ev[i])))
			goto oom;
	for (size_t i = 0; i < ck.n; i++)
		if (finding_evidence(f, "here, %s: %s: %s", ck.c[i].name, check_result_name(ck.c[i].result),
				     ck.c[i].detail) ||
		    !push(jchecks, json_pack("{s:s, s:s, s:s}", "name", ck.c[i].name, "result",
					     check_result_name(ck.c[i].result), "detail", ck.c[i].detail)))
			goto oom;
	if (offline && finding_evidence(f, "checks on this machine skipped (--offline)"))
		goto oom;
	if (finding_why(f, "[%s] %s", x->layer, x->why))
		goto oom;
	for (size_t i = 0; i < x->n_fix; i++) {
		char fix[600];

		/* the allocator setting helps only when PyTorch's cache holds the memory */
		if (strstr(x->fix[i], "expandable_segments") &&
		    !(m->has_oom && oom_expandable_helps(&m->oom.n)))
			continue;
		if (!fill_fix(x->fix[i], m, env, torch, fix, sizeof(fix)))
			continue;
		if (finding_fix(f, "%s", fix) || !push(jfix, json_string(fix)))
			goto oom;
	}
	jm = json_pack("{s:s, s:s, s:s, s:s, s:s, s:O, s:O, s:O, s:I, s:I, s:I, s:s}", "id", m->finding, "severity",
		       x->severity, "matched_text", m->lines[0], "layer", x->layer, "why", x->why,
		       "evidence", jev, "checks", checked ? jchecks : json_null(), "fix", jfix, "line",
		       (json_int_t)m->line, "last_line", (json_int_t)m->last_line, "count", (json_int_t)m->count,
		       "last_text", m->last);
	if (!jm)
		goto oom;
	ok = !m->error || json_object_set_new(jm, "error", json_pack("{s:s, s:i, s:s}", "name", m->error->name,
								     "code", m->error->code, "api",
								     kb_api_name(m->error->api))) == 0;
	if (ok && ck.binary.judged)
		ok = json_object_set_new(jm, "binary", binary_json(&ck.binary)) == 0;
	if (ok && ck.launch.judged)
		ok = json_object_set_new(jm, "launch", launch_json(&ck.launch)) == 0;
	if (!ok || json_array_append_new(matches, jm))
		goto oom;
	jm = NULL;
	goto out;
oom:
	rc = cd_fail(err, CD_ENOMEM, "out of memory");
out:
	json_decref(jm);
	json_decref(jchecks);
	json_decref(jfix);
	json_decref(jev);
	explain_checks_free(&ck);
	return rc;
}

/* CD_OK when PATH opens as an input and starts like a file arch reads; else CD_EIO or
 * CD_EFORMAT with the reason in err, as arch would name it. */
static int binary_readable(const char *path, char *err)
{
	unsigned char head[4096];
	char ferr[CD_ERRMSG];
	size_t size;
	ssize_t got;
	int fd, rc;

	if ((rc = file_open_input(path, &fd, &size, ferr)) != CD_OK)
		return cd_fail(err, rc == CD_ENOMEM ? rc : CD_EIO, "%s", ferr);
	got = read(fd, head, sizeof(head));
	close(fd);
	if (got < 0)
		return cd_fail(err, CD_EIO, "%.400s: cannot be read", path);
	if (!dc_has_magic(head, (size_t)got))
		return cd_fail(err, CD_EFORMAT, "%.400s: %s", path,
			       got ? "not an ELF file, archive, fatbin, cubin or PTX text" : "empty file");
	return CD_OK;
}

static int explain_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct explain_env env;
	struct explain_result res = { 0 };
	struct explain_scan *sc = NULL;
	struct strbuf sb;
	size_t len = 0, lines;
	bool offline = false;
	json_t *matches = NULL;
	int a = 1, rc = CD_OK;

	explain_env_init(&env);
	/* main.c parsed the options up to the text (options_first): the operands are the text */
	for (size_t i = 0; i < g->args->n; i++) {
		const char *v = g->args->v[i].value;

		switch (g->args->v[i].opt->id) {
		case OPT_OFFLINE: offline = true; break;
		case OPT_PATTERNS: return print_patterns(r, err);
		case OPT_BINARY: {
			/* a --binary that cannot be read is said on stderr and exits 3; the text is
			 * still explained, and the check says it was skipped */
			char ferr[CD_ERRMSG];

			env.binary = v;
			if ((rc = binary_readable(v, ferr)) != CD_OK) {
				if (rc == CD_ENOMEM)
					return cd_fail(err, rc, "out of memory");
				/* a path that is missing here may be the program's on the machine the
				 * text came from: fixes still name it; a file that is no binary is not it */
				env.binary_bad = rc == CD_EFORMAT;
				cmd_input_error(r, "explain", ferr);
			}
			break;
		}
		case OPT_GPU:
			if ((rc = arch_target_gpu_option(&env.target, v, err)) != CD_OK)
				return rc;
			break;
		case OPT_DRIVER:
			if ((rc = arch_target_driver_option(&env.target, v, err)) != CD_OK)
				return rc;
			break;
		case OPT_BLOCK: {
			char *end;
			unsigned long n = strtoul(v, &end, 10);

			if (!*v || *end || *v == '-' || n == 0 || n > 1u << 20)
				return cd_fail(err, CD_EUSAGE, "--block %.40s: give threads per block, 1 to 1048576", v);
			env.block = (unsigned)n;
			break;
		}
		}
	}
	env.offline = offline;
	if ((rc = explain_scan_new(&sc, err)) != CD_OK)
		goto out;
	if (a < argc && strcmp(argv[a], "-") != 0) {
		sb_init(&sb);
		for (int i = a; i < argc; i++) {
			if (i > a)
				sb_append(&sb, " ");
			sb_append(&sb, argv[i]);
		}
		if (sb.failed) {
			sb_free(&sb);
			rc = cd_fail(err, CD_ENOMEM, "out of memory");
			goto out;
		}
		rc = explain_scan_feed(sc, sb.buf ? sb.buf : "", sb.len, err);
		sb_free(&sb);
	} else if (isatty(STDIN_FILENO)) {
		rc = cd_fail(err, CD_EUSAGE, "give the error text as an argument or pipe it in "
			     "(cmd 2>&1 | cudoctor explain)");
	} else {
		rc = scan_stdin(sc, err);
	}
	if (rc != CD_OK)
		goto out;
	len = explain_scan_bytes(sc);
	lines = explain_scan_lines(sc);
	if ((rc = explain_scan_finish(sc, &res, err)) != CD_OK)
		goto out;
	explain_result_classify_oom(&res, oom_finding_of);
	if (env.block)
		explain_result_launch_given(&res);
	matches = json_array();
	if (!matches) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	report_section(r, "Explain");
	report_kv(r, "text", "%zu bytes, %zu line%s", len, lines, lines == 1 ? "" : "s");
	report_kv(r, "recognised", "%zu", res.n);
	if (res.n == 0) {
		report_line(r, "No CUDA error that cudoctor knows is in the text.");
		report_line(r, "Run `cudoctor doctor` to check the driver, toolkits and runtimes here, "
			    "or paste more of the log.");
	}
	for (size_t i = 0; i < res.n; i++)
		if ((rc = report_match(r, &res.m[i], &env, offline,
				       res.torch || (env.binary && strstr(env.binary, "torch")), matches, err)) != CD_OK)
			goto out;
	report_json_set(r, "matches", matches);
	matches = NULL;
	if ((rc = nccl_explain_log(r, explain_scan_nccl(sc), err)) != CD_OK)
		goto out;
	report_json_set(r, "offline", json_boolean(offline));
out:
	json_decref(matches);
	explain_result_free(&res);
	explain_scan_free(sc);
	explain_env_free(&env);
	return rc;
}

const struct cd_command cmd_explain = {
	.name = "explain",
	.summary = "what a pasted CUDA error means, checked on this machine, and its fix",
	.usage = "cudoctor explain [--offline] [--binary PATH] [--gpu SPEC]...\n"
		 "                        [--driver VER] [--block N] [TEXT...]\n"
		 "       some-command 2>&1 | cudoctor explain",
	.help = explain_help,
	.opts = explain_opts,
	.options_first = true,
	.run = explain_run,
};
