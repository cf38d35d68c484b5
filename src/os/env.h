/* The environment, in UTF-8. */
#ifndef CUDOCTOR_OS_ENV_H
#define CUDOCTOR_OS_ENV_H

/* The command line as UTF-8 (Windows gives main() its ANSI code page's bytes): argv is
 * replaced by a copy that lives as long as the process; unchanged on POSIX. */
void os_args_utf8(int *argc, char ***argv);

/* The value of name or NULL; valid until name is set again. */
const char *os_getenv(const char *name);
/* 0 or a negative errno. */
int os_setenv(const char *name, const char *value);
/* ':' on POSIX, ';' on Windows: what separates PATH's entries. */
char os_path_list_sep(void);

#endif
