/* Real PE files for the Windows tests, built with MinGW-w64: a program or DLL that imports
 * given DLLs (an import library per DLL made from a .def by dlltool), and a stub DLL that
 * exports what such a file imports. false where MinGW is not installed. */
#ifndef CUDOCTOR_TEST_MINGW_PE_H
#define CUDOCTOR_TEST_MINGW_PE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static inline bool mingw_available(void)
{
	return system("command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 && command -v x86_64-w64-mingw32-dlltool "
		      ">/dev/null 2>&1") == 0;
}

/* dir/name importing function f<i> of each of dlls[i] (NULL-terminated); a program whose main
 * calls them when exe, else a DLL whose use() does. 0, or -1 when a step failed. */
static inline int mingw_build_importing(const char *dir, const char *name, const char *const *dlls, bool exe)
{
	char cmd[8192], src[2048];
	size_t used;
	FILE *f;

	snprintf(src, sizeof src, "%s/imports.c", dir);
	if (!(f = fopen(src, "w")))
		return -1;
	for (size_t i = 0; dlls[i]; i++)
		fprintf(f, "__declspec(dllimport) int f%zu(void);\n", i);
	fprintf(f, exe ? "int main(void)\n{\n\treturn 0" : "__declspec(dllexport) int use(void)\n{\n\treturn 0");
	for (size_t i = 0; dlls[i]; i++)
		fprintf(f, " + f%zu()", i);
	fprintf(f, ";\n}\n");
	fclose(f);
	for (size_t i = 0; dlls[i]; i++) {
		snprintf(cmd, sizeof cmd, "cd '%s' && printf 'LIBRARY %s\\nEXPORTS\\nf%zu\\n' > i%zu.def && "
			 "x86_64-w64-mingw32-dlltool -d i%zu.def -l libi%zu.a", dir, dlls[i], i, i, i, i);
		if (system(cmd) != 0)
			return -1;
	}
	used = (size_t)snprintf(cmd, sizeof cmd, "cd '%s' && x86_64-w64-mingw32-gcc %s -O1 -o '%s' imports.c -L.", dir,
				exe ? "" : "-shared", name);
	for (size_t i = 0; dlls[i] && used < sizeof cmd; i++)
		used += (size_t)snprintf(cmd + used, sizeof cmd - used, " -li%zu", i);
	if (used < sizeof cmd)
		snprintf(cmd + used, sizeof cmd - used, " && rm -f imports.c i*.def libi*.a");
	return system(cmd) == 0 ? 0 : -1;
}

/* dir/name: a DLL exporting int fN(void) returning 0, what mingw_build_importing's files import
 * as their N-th DLL. */
static inline int mingw_build_stub(const char *dir, const char *name, unsigned n)
{
	char cmd[4096];

	snprintf(cmd, sizeof cmd, "cd '%s' && printf '__declspec(dllexport) int f%u(void) { return 0; }\\n' > stub%u.c && "
		 "x86_64-w64-mingw32-gcc -shared -O1 -o '%s' stub%u.c && rm -f stub%u.c", dir, n, n, name, n, n);
	return system(cmd) == 0 ? 0 : -1;
}

#endif
