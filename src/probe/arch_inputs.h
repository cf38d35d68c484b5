/* The files `arch` reads: those named on its command line, directories walked (-r descends),
 * the frameworks' device-code files in a Python interpreter's site-packages (--python: the
 * files doctor judges, probe/fw_files.h) and Ollama's library folders (--ollama); only files
 * whose first bytes are ELF, PE, ar or fatbin (or named .ptx, .cubin). */
#ifndef CUDOCTOR_PROBE_ARCH_INPUTS_H
#define CUDOCTOR_PROBE_ARCH_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/inputs.h"

int arch_inputs_add(struct arch_inputs *in, const char *path, bool explicit_input);
int arch_inputs_expand_dir(struct arch_inputs *in, const char *dir, bool recursive, char *err);
/* Whether an operand is a wildcard pattern left for cudoctor to expand: it holds '*' or '?'
 * and names nothing as it is (Windows' shells pass `*.dll` on unexpanded; a POSIX shell
 * passes on a quoted one, or one that matched nothing). */
bool arch_inputs_is_pattern(const char *operand);
/* The paths the pattern's last component matches in its folder (the current one when it
 * names none), sorted; case folded on Windows, whose names are so. CD_OK with *n 0 when
 * nothing matches; the caller frees each and the array. */
int arch_inputs_glob(const char *pattern, char ***out, size_t *n, char *err);
/* --python: the frameworks' device-code files (probe/fw_files.h) in each site-packages of the
 * interpreter (by default the one of the environment cudoctor was started from,
 * python_launcher_env, else python3 on PATH), asked through probe/spawn.h. CD_ETIMEOUT when
 * it did not answer in time (prog gets the program that was
 * run, for the helper-timeout finding; nothing of that environment is listed). */
/* An interpreter that names an install tree, read without running it: a folder (a venv or conda
 * env, ComfyUI portable's python_embeded) or a Windows python*.exe; its site-packages are
 * Lib/site-packages and lib/pythonX.Y/site-packages. */
int arch_inputs_python(struct arch_inputs *in, const char *interpreter, char *prog, size_t prog_cap, char *err);
/* True when path is such a tree (a folder, or a file named python*.exe). */
bool arch_inputs_is_python_tree(const char *path);
int arch_inputs_ollama(struct arch_inputs *in, char *err);
/* --ollama=DIR: Ollama's runners below DIR, wherever a Linux or Windows install is mounted
 * (DIR/lib/ollama, DIR/Programs/Ollama/lib/ollama for %LOCALAPPDATA%, a user's folder's
 * AppData/Local/..., each of DIR/Users/'s or DIR's folders' AppData/Local/...), or DIR itself
 * when it is the runners' folder or a llama.cpp release folder (ggml-cuda.dll,
 * llama-server.exe): their modules (shared objects, .dll), recursively. CD_ENOTFOUND: none. */
int arch_inputs_ollama_under(struct arch_inputs *in, const char *root, char *err);
void arch_inputs_free(struct arch_inputs *in);

#endif
