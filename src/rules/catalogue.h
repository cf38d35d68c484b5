/* The one place a finding's title, why and fix come from: its row in the catalogue
 * kb/findings.tsv, filled with the values of a verdict. Every command that emits the id
 * (doctor's rules, arch, explain) makes it here, so an id reads the same wherever it comes from.
 *
 * A row's title, why and fix lines are templates:
 *   {name}        a value of the verdict (finding_vars); an unknown one takes the fallback the
 *                 placeholder table gives it (a command that stands for it, for fix lines),
 *                 else the enclosing {?...} is left out, else the fix line is
 *   {?text}       kept when every value in it is known, else left out
 *   {?text|other} text when every value in it is known, else other
 *   {+flag} {-flag}  at the start of a fix line: the line is kept unless flag is known to be
 *                 false ("0"), or, for {-flag}, unless it is known to be true
 *   A ;; B        in a title or why: alternatives, each with its own {+flag} / {-flag} start;
 *                 the first whose conditions hold is the text ("{-windows}... soname ...
 *                 ;; {+windows}... DLL ...": the platform's words, the windows flag
 *                 defaulting to the platform cudoctor runs on)
 *   {text}        at the start of a fix line, after its conditions: the line is prose for the
 *                 reader, not a command ("bring NODES to 580.65.06, as on NODES"): its values go
 *                 in as they are, unquoted, and one holding a control character is refused (it
 *                 could start a line of its own); "text" names no value
 * A brace that starts none of these is text. Values are never expanded again. In a title or
 * why they are put in as they are; in a fix line each is quoted for the line's shell
 * (catalogue_fix_shell) where it stands, and a value that shell cannot take leaves the line out
 * and the finding's evidence says which value was refused. */
#ifndef CUDOCTOR_RULES_CATALOGUE_H
#define CUDOCTOR_RULES_CATALOGUE_H

#include <stdbool.h>
#include <stddef.h>

#include "kb/kb.h"
#include "report/report.h"

/* explain sets the text's values, its platform's flags and the fix engine's lines, then merges the
 * machine's: room for all */
#define FINDING_VARS_MAX 48
#define FINDING_VAR_LEN 400

/* The values a verdict gives a catalogue row. A name not set is unknown. */
struct finding_vars {
	size_t n;
	const char *name[FINDING_VARS_MAX];
	char value[FINDING_VARS_MAX][FINDING_VAR_LEN];
};

void finding_vars_init(struct finding_vars *v);
/* Sets name (a string with static storage) to a value; a later set of the same name replaces it. */
void finding_var(struct finding_vars *v, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A flag for {+name} / {-name}: "1" or "0". */
void finding_flag(struct finding_vars *v, const char *name, bool on);
/* Copies every value of from into v (replacing v's of the same name). */
void finding_vars_merge(struct finding_vars *v, const struct finding_vars *from);
/* The value, or NULL when unknown. */
const char *finding_var_get(const struct finding_vars *v, const char *name);

/* Use the catalogue's severity for the id. */
#define SEV_CATALOGUE (-1)

/* Adds finding id (or a case of it, "id/variant": the id with that row's text) about subject: severity sev (SEV_CATALOGUE: the row's), the row's title,
 * why and fix lines filled from v (NULL: nothing known). Returns the finding for the caller's
 * evidence, or NULL when out of memory (r->oom) or when the catalogue has no row for id (a
 * defect test_catalogue rules out). */
struct finding *finding_make(struct report *r, int sev, const char *id, const char *subject,
			     const struct finding_vars *v);
/* The same with row's text, emitted as id: the fleet relays a node's finding under the node's own
 * id, whatever the id (a newer cudoctor's included), with the text of its fleet-relay row. */
struct finding *finding_make_as(struct report *r, int sev, const char *row, const char *id, const char *subject,
				const struct finding_vars *v);

/* One template filled from v into out (n bytes); false when the text is left out (a fix line
 * whose condition does not hold, whose value is unknown, or that fills to nothing). */
bool catalogue_fill(const char *tmpl, const struct finding_vars *v, char *out, size_t n);

/* The shell a fix line is written for: a {text} line is none (CATALOGUE_TEXT); a line with
 * {-windows} is POSIX sh; one with
 * {+windows}, or of a row whose layer says "(Windows)", is Windows, else the windows value
 * decides (unset: the platform cudoctor runs on). A Windows line is PowerShell when it starts
 * with PowerShell's own syntax ([Type]::, $variable, a Verb-Noun cmdlet), else cmd.exe. */
enum { CATALOGUE_TEXT = 0, CATALOGUE_SH, CATALOGUE_CMD, CATALOGUE_PWSH };
int catalogue_fix_shell(const struct kb_finding *row, const char *tmpl, const struct finding_vars *v);

/* Fix line tmpl of row filled from v into out, each value quoted for the line's shell: CD_OK;
 * CD_ENOTFOUND when the line is left out (as catalogue_fill, or it does not fit n); CD_EFORMAT
 * when a value cannot be quoted for the shell (refused: its name), the line left out too. */
int catalogue_fill_fix(const struct kb_finding *row, const char *tmpl, const struct finding_vars *v, char *out,
		       size_t n, char refused[32]);
/* Whether the value name is shell text a rule composed from its own tables (a plan's pip line),
 * put into fix lines as it is rather than quoted as one word. */
bool catalogue_is_shell_text(const char *name);

/* The names a template uses, each once, into names (up to max, each at most 31 characters);
 * how many. For the catalogue's test. */
size_t catalogue_names(const char *tmpl, char names[][32], size_t max);
/* Whether placeholder name has a fallback (a fix line with it unknown still prints). */
bool catalogue_has_fallback(const char *name);
/* What an unknown value name stands for on the platform cudoctor runs on ("driver_library":
 * libcuda.so.1, nvcuda.dll on Windows), or NULL when it has none. */
const char *catalogue_fallback(const char *name);

enum severity catalogue_severity(const struct kb_finding *x);

#endif
