/* Health-check exit statuses and summary lines (rules/contract.h). */
#include "rules/contract.h"

#include <stdio.h>
#include <string.h>

#include "rules/scope.h"

bool contract_parse(const char *word, enum exit_contract *c)
{
	if (strcmp(word, "default") == 0)
		*c = CONTRACT_DEFAULT;
	else if (strcmp(word, "nagios") == 0)
		*c = CONTRACT_NAGIOS;
	else if (strcmp(word, "npd") == 0)
		*c = CONTRACT_NPD;
	else
		return false;
	return true;
}

enum severity contract_severity(const struct finding *f)
{
	if (f->severity == SEV_ERROR && !finding_scope_drains(f->id))
		return SEV_WARN;
	return f->severity;
}

/* a before b: worse, then node health before the rest */
static bool worse(const struct finding *a, const struct finding *b)
{
	enum severity sa = contract_severity(a), sb = contract_severity(b);

	if (sa != sb)
		return sa > sb;
	return finding_scope_drains(a->id) && !finding_scope_drains(b->id);
}

const struct finding *contract_worst(const struct report *r, size_t *more)
{
	const struct finding *w = NULL;
	size_t same = 0;

	for (size_t i = 0; i < r->n_findings; i++) {
		const struct finding *f = &r->findings[i];

		if (contract_severity(f) < SEV_WARN)
			continue;
		if (!w || worse(f, w)) {
			same = w && contract_severity(w) == contract_severity(f) ? same + 1 : 0;
			w = f;
		} else if (contract_severity(f) == contract_severity(w)) {
			same++;
		}
	}
	*more = same;
	return w;
}

/* text into line, at most CONTRACT_LINE_MAX bytes, never cutting a UTF-8 character, control
 * bytes (a title or subject may carry an input's) as '?' */
void contract_cut(char *line, size_t cap, const char *text)
{
	size_t max = cap - 1 < CONTRACT_LINE_MAX ? cap - 1 : CONTRACT_LINE_MAX, n = 0;

	for (const unsigned char *p = (const unsigned char *)text; *p && n < max; p++)
		line[n++] = *p < 0x20 || *p == 0x7f ? '?' : (char)*p;
	line[n] = '\0';
	if (text[n] == '\0' || n < 3)
		return;
	/* cut: back to a character's first byte, room for "..." */
	n = n > 3 ? n - 3 : 0;
	while (n > 0 && ((unsigned char)line[n] & 0xc0) == 0x80)
		n--;
	memcpy(line + n, "...", 4);
}

void contract_summary(const struct report *r, char *line, size_t cap)
{
	char text[1024], more_text[32] = "";
	size_t more;
	const struct finding *w = contract_worst(r, &more);
	bool subject;

	if (!w) {
		contract_cut(line, cap, "cudoctor: ok");
		return;
	}
	if (more)
		snprintf(more_text, sizeof more_text, " (+%zu)", more);
	subject = w->subject && *w->subject;
	snprintf(text, sizeof text, "cudoctor: %s %s%s: %s%s%s", severity_name(contract_severity(w)), w->id, more_text,
		 subject ? w->subject : "", subject ? ": " : "", w->title ? w->title : "");
	contract_cut(line, cap, text);
}

void contract_unknown(const char *why, char *line, size_t cap)
{
	char text[1024];

	snprintf(text, sizeof text, "cudoctor: unknown: %s", why && *why ? why : "cudoctor could not check");
	contract_cut(line, cap, text);
}

int contract_exit(enum exit_contract c, enum severity worst, bool could_not)
{
	switch (c) {
	case CONTRACT_NAGIOS:
		return could_not ? 3 : worst >= SEV_ERROR ? 2 : worst == SEV_WARN ? 1 : 0;
	case CONTRACT_NPD:
		return could_not ? 2 : worst >= SEV_ERROR ? 1 : 0;
	case CONTRACT_DEFAULT: break;
	}
	return could_not ? 3 : worst >= SEV_ERROR ? 1 : 0;
}
