/* `cudoctor explain`: recognise the CUDA errors in pasted text, say what they mean in the
 * programming model, check this machine, and give the fix as commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "explain/checks.h"
#include "explain/explain.h"
#include "util/err.h"
#include "util/str.h"

#define STDIN_MAX (16u << 20)

static const char explain_help[] =
	"usage: cudoctor explain [--offline] [--binary PATH] [TEXT...]\n"
	"       some-command 2>&1 | cudoctor explain\n"
	"\n"
	"Recognises every CUDA error cudoctor's catalogue knows in TEXT (or stdin; a whole log is\n"
	"fine): by message, by name (cudaErrorNoKernelImageForDevice, CUDA_ERROR_NO_BINARY_FOR_GPU),\n"
	"by number in context (CUDA error 209), and the messages of PyTorch, nvcc, NVML, Ollama,\n"
	"llama.cpp, cuDNN and the kernel log (Xid). For each: the cause in terms of the stack and\n"
	"the programming model, checks on this machine, and the fix.\n"
	"\n"
	"  --offline      skip the checks on this machine\n"
	"  --binary PATH  the program or library that failed: check which images it carries\n";

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

static int report_match(struct report *r, const struct explain_match *m, const char *text,
			struct explain_env *env, bool offline, json_t *matches, char *err)
{
	const struct kb_explanation *x = kb_explanation_find(m->finding);
	struct explain_checks ck = { 0 };
	char ev[8][400], subject[48];
	size_t n_ev;
	struct finding *f;
	json_t *jm, *jchecks = json_array(), *jfix = json_array(), *jev = json_array();
	int rc;

	if (!x)
		x = kb_explanation_find("cuda-error");
	if (!x)
		return cd_fail(err, CD_EFORMAT, "explain.tsv has no entry for %s", m->finding);
	if (!offline && (rc = explain_checks_run(m, x, env, &ck, err)) != CD_OK)
		return rc;
	snprintf(subject, sizeof(subject), "pasted text, line %zu", line_of(text, m->offset));
	f = report_add_finding(r, severity_of(x->severity), m->finding, subject,
			       "%s%s%s%s", x->title, m->error ? " (" : "", m->error ? m->error->name : "",
			       m->error ? ")" : "");
	if (!f)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	for (size_t i = 0; i < m->n_lines; i++) {
		finding_evidence(f, "matched: %s", m->lines[i]);
		json_array_append_new(jev, json_string(m->lines[i]));
	}
	if (m->count > m->n_lines)
		finding_evidence(f, "(%zu mentions in the text)", m->count);
	n_ev = explain_offline_evidence(m, ev, 8);
	for (size_t i = 0; i < n_ev; i++) {
		finding_evidence(f, "%s", ev[i]);
		json_array_append_new(jev, json_string(ev[i]));
	}
	for (size_t i = 0; i < ck.n; i++) {
		finding_evidence(f, "here, %s: %s: %s", ck.c[i].name, check_result_name(ck.c[i].result),
				 ck.c[i].detail);
		json_array_append_new(jchecks, json_pack("{s:s, s:s, s:s}", "name", ck.c[i].name, "result",
							 check_result_name(ck.c[i].result), "detail",
							 ck.c[i].detail));
	}
	if (offline)
		finding_evidence(f, "checks on this machine skipped (--offline)");
	finding_why(f, "[%s] %s", x->layer, x->why);
	for (size_t i = 0; i < x->n_fix; i++) {
		/* the allocator setting helps only when PyTorch's cache holds the memory */
		if (strstr(x->fix[i], "expandable_segments") &&
		    !(m->has_oom && oom_expandable_helps(&m->oom.n)))
			continue;
		finding_fix(f, "%s", x->fix[i]);
		json_array_append_new(jfix, json_string(x->fix[i]));
	}
	jm = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o}", "id", m->finding, "severity",
		       x->severity, "matched_text", m->lines[0], "layer", x->layer, "why", x->why,
		       "evidence", jev, "checks", offline ? (json_decref(jchecks), json_null()) : jchecks,
		       "fix", jfix);
	if (jm && m->error) {
		json_object_set_new(jm, "error", json_pack("{s:s, s:i, s:s}", "name", m->error->name, "code",
							   m->error->code, "api",
							   kb_api_name(m->error->api)));
	}
	if (jm)
		json_array_append_new(matches, jm);
	return CD_OK;
}

static int explain_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct explain_env env = { 0 };
	struct explain_result res = { 0 };
	struct strbuf sb;
	char *text = NULL;
	size_t len = 0;
	bool offline = false;
	json_t *matches = NULL;
	int a, rc;

	(void)g;
	/* options first; everything after is the text, even words that start with '-'
	 * ("-> CUDA driver version is insufficient ...") */
	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--offline") == 0) {
			offline = true;
		} else if (strcmp(argv[a], "--binary") == 0) {
			if (a + 1 >= argc)
				return cd_fail(err, CD_EUSAGE, "--binary needs a path");
			env.binary = argv[++a];
		} else if (strncmp(argv[a], "--binary=", 9) == 0) {
			env.binary = argv[a] + 9;
		} else if (strcmp(argv[a], "--") == 0) {
			a++;
			break;
		} else {
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
	.help = explain_help,
	.run = explain_run,
};
