/* libFuzzer harness: a value quoted for each shell and each place in a line (util/str.h's
 * str_quote_sh/cmd/pwsh) must read back, as that shell reads it (tests/unit/shell_lex.h), as one
 * word holding exactly the value and nothing the shell acts on, or be refused with nothing
 * written. Then every catalogue row filled with the value everywhere (rules/catalogue.c), its
 * findings rendered as text, Markdown and JSON (fuzz_report.h). */
#include "fuzz_report.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/shell_lex.h"
#include "kb/kb.h"
#include "rules/catalogue.h"
#include "util/str.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(enum lex_shell sh, const char *v, enum shell_quote_ctx ctx)
{
	static char q[4096], line[4200], want[4200];
	struct lex l;
	int rc = sh == LEX_SH ? str_quote_sh(v, ctx, q, sizeof q)
				 : sh == LEX_CMD ? str_quote_cmd(v, ctx, q, sizeof q) : str_quote_pwsh(v, ctx, q, sizeof q);

	if (rc != CD_OK) {
		if (q[0])
			abort(); /* a refusal writes nothing */
		return;
	}
	if (ctx == SHQ_NONE && !v[0])
		return;
	snprintf(line, sizeof line, ctx == SHQ_SINGLE ? "echo 'a%sb'" : ctx == SHQ_DOUBLE ? "echo \"a%sb\"" : "echo %s", q);
	snprintf(want, sizeof want, ctx == SHQ_NONE ? "echo\n%s" : "echo\na%sb", v);
	lex_line(line, sh, &l);
	if (l.open_quote || strcmp(l.words, want) != 0 || strcmp(l.active, " ") != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char v[FINDING_VAR_LEN];
	size_t n = size < sizeof v - 1 ? size : sizeof v - 1;
	struct report r;

	memcpy(v, data, n);
	v[n] = '\0';
	for (int ctx = SHQ_NONE; ctx <= SHQ_DOUBLE; ctx++) {
		check(LEX_SH, v, (enum shell_quote_ctx)ctx);
		if (ctx != SHQ_SINGLE)
			check(LEX_CMD, v, (enum shell_quote_ctx)ctx);
		check(LEX_PWSH, v, (enum shell_quote_ctx)ctx);
	}
	if (kb_load(NULL) != CD_OK || report_init(&r, "fuzz") != CD_OK)
		abort();
	for (size_t i = 0; i < kb_finding_count(); i++) {
		const struct kb_finding *x = kb_finding_at(i);
		struct finding_vars fv;
		char names[24][32];

		finding_vars_init(&fv);
		finding_flag(&fv, "windows", n && (data[0] & 1));
		for (size_t k = 0; k < x->n_fix; k++)
			for (size_t m = 0, nn = catalogue_names(x->fix[k], names, 24); m < nn; m++)
				if (strcmp(names[m], "windows") != 0 && !catalogue_is_shell_text(names[m]))
					finding_var(&fv, names[m], "%s", v);
		if (!finding_make(&r, SEV_CATALOGUE, x->finding, "fuzz", &fv))
			abort();
	}
	fuzz_render_checked(&r);
	report_free(&r);
	return 0;
}
