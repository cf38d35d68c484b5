/* `cudoctor explain`: recognise the CUDA errors in pasted text, say what they mean in the
 * programming model, check this machine, and give the fix as commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/arch/arch.h"
#include "cmd/cmd.h"
#include "explain/checks.h"
#include "explain/explain.h"
#include "rules/nccl.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"

#define STDIN_MAX (16u << 20)

static const char explain_help[] =
	"Recognises every CUDA error cudoctor's catalogue knows in TEXT (or stdin; a whole log is "
	"fine): by message, by name (cudaErrorNoKernelImageForDevice, CUDA_ERROR_NO_BINARY_FOR_GPU), "
	"by number in context (CUDA error 209), and the messages of PyTorch, nvcc, NVML, Ollama, "
	"llama.cpp, cuDNN and the kernel log (Xid). For each: the cause in terms of the stack and "
	"the programming model, checks on this machine, and the fix.\n"
	"\n"
	"Options come before the text; everything from the first other word on is the text, even "
	"words that start with '-' (\"-> CUDA driver version is insufficient\").";

enum { OPT_OFFLINE = 1, OPT_BINARY, OPT_GPU, OPT_DRIVER };

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
	{ 0 },
};

static int read_stdin(char **out, size_t *len, char *err)
{
	struct strbuf sb;
	char buf[65536];
	size_t n;

	sb_init(&sb);
	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0) {
		if (sb.len + n > STDIN_MAX) {
			sb_free(&sb);
			return cd_fail(err, CD_EUSAGE, "the text on stdin is over %u MiB; paste the part "
				       "around the error", STDIN_MAX >> 20);
		}
		sb_append_n(&sb, buf, n);
	}
	if (ferror(stdin)) {
		sb_free(&sb);
		return cd_fail(err, CD_EIO, "reading stdin failed");
	}
	if (sb.failed) {
		sb_free(&sb);
		return cd_fail(err, CD_ENOMEM, "out of memory");
	}
	*len = sb.len;
	*out = sb_detach(&sb);
	if (!*out)
		*out = cd_strdup("");
	return *out ? CD_OK : cd_fail(err, CD_ENOMEM, "out of memory");
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

/* 1-based line of offset */
static size_t line_of(const char *text, size_t offset)
{
	size_t n = 1;

	for (size_t i = 0; i < offset; i++)
		n += text[i] == '\n';
	return n;
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

/* Appends s to arr; false when out of memory. */
static bool push(json_t *arr, json_t *s)
{
	return json_array_append_new(arr, s) == 0;
}

static int report_match(struct report *r, const struct explain_match *m, const char *text,
			struct explain_env *env, bool offline, json_t *matches, char *err)
{
	const struct kb_explanation *x = kb_explanation_find(m->finding);
	struct explain_checks ck = { 0 };
	char ev[8][400], subject[48];
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
	if (checked && (rc = explain_checks_run(m, x, env, &ck, err)) != CD_OK)
		goto out;
	snprintf(subject, sizeof(subject), "pasted text, line %zu", line_of(text, m->offset));
	f = report_add_finding(r, severity_of(x->severity), m->finding, subject,
			       "%s%s%s%s", x->title, m->error ? " (" : "", m->error ? m->error->name : "",
			       m->error ? ")" : "");
	if (!f)
		goto oom;
	for (size_t i = 0; i < m->n_lines; i++)
		if (finding_evidence(f, "matched: %s", m->lines[i]) || !push(jev, json_string(m->lines[i])))
			goto oom;
	if (m->count > m->n_lines && finding_evidence(f, "(%zu mentions in the text)", m->count))
		goto oom;
	n_ev = explain_offline_evidence(m, ev, 8);
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
		/* the allocator setting helps only when PyTorch's cache holds the memory */
		if (strstr(x->fix[i], "expandable_segments") &&
		    !(m->has_oom && oom_expandable_helps(&m->oom.n)))
			continue;
		if (finding_fix(f, "%s", x->fix[i]) || !push(jfix, json_string(x->fix[i])))
			goto oom;
	}
	jm = json_pack("{s:s, s:s, s:s, s:s, s:s, s:O, s:O, s:O}", "id", m->finding, "severity",
		       x->severity, "matched_text", m->lines[0], "layer", x->layer, "why", x->why,
		       "evidence", jev, "checks", checked ? jchecks : json_null(), "fix", jfix);
	if (!jm)
		goto oom;
	ok = !m->error || json_object_set_new(jm, "error", json_pack("{s:s, s:i, s:s}", "name", m->error->name,
								     "code", m->error->code, "api",
								     kb_api_name(m->error->api))) == 0;
	if (ok && ck.binary.judged)
		ok = json_object_set_new(jm, "binary", binary_json(&ck.binary)) == 0;
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

static int explain_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct explain_env env;
	struct explain_result res = { 0 };
	struct strbuf sb;
	char *text = NULL;
	size_t len = 0;
	bool offline = false;
	json_t *matches = NULL;
	int a = 1, rc = CD_OK;

	explain_env_init(&env);
	/* main.c parsed the options up to the text (options_first): the operands are the text */
	for (size_t i = 0; i < g->args->n; i++) {
		const char *v = g->args->v[i].value;

		switch (g->args->v[i].opt->id) {
		case OPT_OFFLINE: offline = true; break;
		case OPT_BINARY: {
			/* a --binary that cannot be read is said on stderr and exits 3; the text is
			 * still explained, and the check says it was skipped */
			char ferr[CD_ERRMSG];
			size_t size;
			int fd;

			env.binary = v;
			if (file_open_input(v, &fd, &size, ferr) != CD_OK)
				cmd_input_error(r, "explain", ferr);
			else
				close(fd);
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
		}
	}
	if (a < argc && strcmp(argv[a], "-") != 0) {
		sb_init(&sb);
		for (int i = a; i < argc; i++) {
			if (i > a)
				sb_append(&sb, " ");
			sb_append(&sb, argv[i]);
		}
		len = sb.len;
		text = sb_detach(&sb);
		if (!text)
			return cd_fail(err, CD_ENOMEM, "out of memory");
	} else {
		if (isatty(STDIN_FILENO))
			return cd_fail(err, CD_EUSAGE, "give the error text as an argument or pipe it in "
				       "(cmd 2>&1 | cudoctor explain)");
		if ((rc = read_stdin(&text, &len, err)) != CD_OK)
			return rc;
	}
	env.offline = offline;
	if ((rc = explain_text(text, len, &res, err)) != CD_OK)
		goto out;
	matches = json_array();
	if (!matches) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	report_section(r, "Explain");
	report_kv(r, "text", "%zu bytes, %zu line%s", len, line_of(text, len) - (len && text[len - 1] == '\n'),
		  line_of(text, len) - (len && text[len - 1] == '\n') == 1 ? "" : "s");
	report_kv(r, "recognised", "%zu", res.n);
	if (res.n == 0) {
		report_line(r, "No CUDA error that cudoctor knows is in the text.");
		report_line(r, "Run `cudoctor doctor` to check the driver, toolkits and runtimes here, "
			    "or paste more of the log.");
	}
	for (size_t i = 0; i < res.n; i++)
		if ((rc = report_match(r, &res.m[i], text, &env, offline, matches, err)) != CD_OK)
			goto out;
	report_json_set(r, "matches", matches);
	matches = NULL;
	if ((rc = nccl_explain(r, text, len, err)) != CD_OK)
		goto out;
	report_json_set(r, "offline", json_boolean(offline));
out:
	json_decref(matches);
	explain_result_free(&res);
	explain_env_free(&env);
	free(text);
	return rc;
}

const struct cd_command cmd_explain = {
	.name = "explain",
	.summary = "what a pasted CUDA error means, checked on this machine, and its fix",
	.usage = "cudoctor explain [--offline] [--binary PATH] [--gpu SPEC]... [--driver VER] [TEXT...]\n"
		 "       some-command 2>&1 | cudoctor explain",
	.help = explain_help,
	.opts = explain_opts,
	.options_first = true,
	.run = explain_run,
};
