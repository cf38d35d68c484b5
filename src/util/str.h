/* Strings: allocation that reports failure instead of exiting, and a growable buffer. */
#ifndef CUDOCTOR_STR_H
#define CUDOCTOR_STR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

char *cd_strdup(const char *s);                 /* NULL on OOM or s == NULL */
char *cd_strndup(const char *s, size_t n);
char *cd_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *cd_vasprintf(const char *fmt, va_list ap);

bool str_starts_with(const char *s, const char *prefix);
bool str_ends_with(const char *s, const char *suffix);
/* A shared object's file name: "libx.so", "libx.so.13", "libx.so.13.0.1", "_C.abi3.so";
 * not "algorithm.sort_heap.h", whose ".so" only starts a word. */
bool str_is_shared_object_name(const char *path);
/* A loadable module's file name on Linux or Windows: a shared object as above, or a name
 * ending in ".dll" or ".pyd" (any case: Windows file systems ignore it). */
bool str_is_module_name(const char *path);
bool str_contains_ci(const char *haystack, const char *needle); /* ASCII case-insensitive */
/* Whether s matches pattern, where '*' is any run of bytes and '?' one byte (no classes, no
 * separators treated apart: for one file name), ASCII case folded when fold; at most
 * length(pattern) x length(s) steps, whatever the pattern. */
bool str_wildcard_match(const char *pattern, const char *s, bool fold);
char *str_trim(char *s);
/* Edits (insert, delete, substitute, swap two neighbours) from a to b, the optimal string
 * alignment distance; SIZE_MAX when either is longer than STR_EDIT_MAX bytes. */
#define STR_EDIT_MAX 64
size_t str_edit_distance(const char *a, const char *b);
/* How many edits a slip of the keyboard makes in a word of this length: 1 up to 4 characters,
 * 2 beyond; the reach of a "did you mean". */
size_t str_typo_reach(size_t len);
/* Writes a formatted line into row n of a table of max rows, width bytes each (rows contiguous
 * from lines); returns n + 1, or n when the table is full. */
size_t str_lines_add(char *lines, size_t width, size_t n, size_t max, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));                        /* in place; returns s advanced past spaces */
/* strcmp with runs of digits compared as numbers: sm_75 < sm_80 < sm_90 < sm_90a < sm_100 <
 * sm_120, libfoo.so.9 < libfoo.so.12. The one order for every list of architectures. */
int str_natcmp(const char *a, const char *b);

/* s as one word of a POSIX shell line: in single quotes, each ' written '\'' (the shell
 * expands nothing inside them). Malloc'ed; NULL on OOM. */
char *str_shell_quote(const char *s);

/* Where a value goes in a shell line: outside quotes, or inside the line's own single or
 * double quotes. */
enum shell_quote_ctx { SHQ_NONE, SHQ_SINGLE, SHQ_DOUBLE };

/* A value as text of a shell line, written at ctx into buf (n bytes): as it is when every byte
 * is one the shell reads as a plain letter there, else quoted so the shell reads it as one word
 * and expands nothing in it. Each returns CD_OK, or CD_EFORMAT when the value cannot be quoted
 * for that shell (any shell: a control character; cmd.exe also " % ^ !, which it reads even
 * inside double quotes) or its quoted form does not fit; buf is then empty, never a partial
 * quote.
 *   POSIX sh:   outside quotes 'x'\''y'; inside '...' x'\''y; inside "..." a closing ", the
 *               single-quoted value and an opening " again (no \ " $ ` ! is read there)
 *   cmd.exe:    outside quotes "x y"; inside "..." as it is
 *   PowerShell: outside quotes 'x''y'; inside '...' x''y; inside "..." `$ `" `` escaped (and
 *               the typographic quotes PowerShell also ends strings at, doubled or escaped) */
int str_quote_sh(const char *s, enum shell_quote_ctx ctx, char *buf, size_t n);
int str_quote_cmd(const char *s, enum shell_quote_ctx ctx, char *buf, size_t n);
int str_quote_pwsh(const char *s, enum shell_quote_ctx ctx, char *buf, size_t n);

/* A growable string. After any allocation failure `failed` stays set and further
 * appends are ignored, so callers check once at the end. */
struct strbuf {
	char *buf;
	size_t len, cap;
	bool failed;
};

void sb_init(struct strbuf *sb);
int sb_append(struct strbuf *sb, const char *s);
int sb_append_n(struct strbuf *sb, const char *s, size_t n);
int sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *sb_detach(struct strbuf *sb);             /* caller frees; NULL if failed */
void sb_free(struct strbuf *sb);

/* Appends text wrapped at spaces to width columns, the first line starting at column
 * first_col (what the caller already wrote), later lines indented by indent spaces (a
 * hanging indent). Newlines in text are kept; a word longer than the line stands alone. */
int sb_wrap(struct strbuf *sb, const char *text, size_t first_col, size_t indent, size_t width);

#endif
