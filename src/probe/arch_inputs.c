/* `arch` inputs (arch_inputs.h): paths gathered, directories walked in name order, the
 * frameworks' files in the site-packages Python names, Ollama's library folders. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "binfmt/ar.h"
#include "binfmt/elf.h"
#include "binfmt/fatbin.h"
#include "binfmt/pe.h"
#include "os/env.h"
#include "os/fs.h"
#include "os/host.h"
#include "probe/arch_inputs.h"
#include "probe/fw_files.h"
#include "probe/paths.h"
#include "probe/python.h"
#include "probe/spawn.h"
#include "util/sort.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"

#define MAX_DEPTH 24

int arch_inputs_add(struct arch_inputs *in, const char *path, bool explicit_input)
{
	if (in->n == in->cap) {
		size_t nc = in->cap ? in->cap * 2 : 32;
		char **p = realloc(in->paths, nc * sizeof(*p));
		if (!p)
			return CD_ENOMEM;
		in->paths = p;
		bool *e = realloc(in->explicit_input, nc * sizeof(*e));
		if (!e)
			return CD_ENOMEM;
		in->explicit_input = e;
		in->cap = nc;
	}
	if (!(in->paths[in->n] = cd_strdup(path)))
		return CD_ENOMEM;
	in->explicit_input[in->n++] = explicit_input;
	return CD_OK;
}

void arch_inputs_free(struct arch_inputs *in)
{
	for (size_t i = 0; i < in->n; i++)
		free(in->paths[i]);
	free(in->paths);
	free(in->explicit_input);
	memset(in, 0, sizeof(*in));
}

/* Bytes read from a found file to know its format: a PE signature sits at the DOS header's
 * e_lfanew, 0x80-0x118 for MSVC and MinGW images. */
#define HEAD_BYTES 4096

/* A found file is worth mapping when its first bytes are ELF, PE (MZ then "PE\0\0"), ar or
 * fatbin, or its name says PTX/cubin; under --python and --ollama only modules by name
 * (shared objects, .dll, .pyd) and those that really are ELF or PE (a header named
 * "sort.so_impl.h" or a linker script is neither). */
static bool worth_scanning(const char *path, bool modules_only)
{
	if (modules_only && !str_is_module_name(path))
		return false;
	if (!modules_only && (str_ends_with(path, ".ptx") || str_ends_with(path, ".cubin")))
		return true;
	unsigned char head[HEAD_BYTES];
	size_t size;
	int fd;
	/* opened as every input is (util/file.h): without blocking, regular files only, so a
	 * file swapped for a FIFO after the directory was listed cannot hang the walk */
	if (file_open_input(path, &fd, &size, NULL) != CD_OK)
		return false;
	long long n = os_read(fd, head, sizeof(head));
	os_close(fd);
	if (n < 4)
		return false;
	if (elf_has_magic(head, (size_t)n) || pe_has_magic(head, (size_t)n))
		return true;
	return !modules_only && (ar_has_magic(head, (size_t)n) || (n >= 8 && fatbin_is_container_at(head, 16, 0)));
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk(struct arch_inputs *in, const char *dir, bool recursive, bool modules_only, int depth, char *err)
{
	struct os_dir *d;
	int e = os_dir_open(dir, &d);
	if (e != 0)
		return depth == 0 ? cd_fail(err, CD_EIO, "%s: %s", dir, strerror(-e)) : CD_OK;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = CD_OK;
	const char *name;
	while ((name = os_dir_next(d))) {
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **p = realloc(names, cap * sizeof(*p));
			if (!p) {
				rc = CD_ENOMEM;
				goto out;
			}
			names = p;
		}
		if (!(names[n] = cd_asprintf("%s/%s", dir, name))) {
			rc = CD_ENOMEM;
			goto out;
		}
		n++;
	}
	/* readdir order is the file system's; sort so runs are reproducible */
	cd_qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n && rc == CD_OK; i++) {
		struct os_stat st;
		if (os_lstat(names[i], &st) != 0) /* symlinks are skipped: no loops, no doubles */
			continue;
		if (st.kind == OS_DIR) {
			if (recursive && depth < MAX_DEPTH)
				rc = walk(in, names[i], recursive, modules_only, depth + 1, err);
		} else if (st.kind == OS_FILE && worth_scanning(names[i], modules_only)) {
			rc = arch_inputs_add(in, names[i], false);
		}
	}
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	os_dir_close(d);
	if (rc == CD_ENOMEM)
		return cd_fail(err, rc, "out of memory");
	return rc;
}

bool arch_inputs_is_pattern(const char *operand)
{
	struct os_stat st;

	return strpbrk(operand, "*?") && os_stat(operand, &st) != 0;
}

int arch_inputs_glob(const char *pattern, char ***out, size_t *n, char *err)
{
	const char *sep = os_last_sep(pattern), *base = sep ? sep + 1 : pattern;
	char *dir = sep ? cd_strndup(pattern, (size_t)(sep - pattern) + (sep == pattern)) : cd_strdup(".");
	char **names = NULL;
	size_t cap = 0;
	struct os_dir *d = NULL;
	const char *name;
	int rc = CD_OK;

	*out = NULL;
	*n = 0;
	if (!dir)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	/* only the last component is a pattern: a folder named with '*' is no folder */
	if (strpbrk(dir, "*?") || os_dir_open(dir, &d) != 0)
		goto out;
	while ((name = os_dir_next(d))) {
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || !str_wildcard_match(base, name, !os_is_linux()))
			continue;
		/* a hidden file is matched only by a pattern that starts with '.', as a shell does */
		if (name[0] == '.' && base[0] != '.')
			continue;
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			char **p = realloc(names, nc * sizeof(*p));
			if (!p) {
				rc = CD_ENOMEM;
				goto out;
			}
			names = p;
			cap = nc;
		}
		if (!(names[*n] = sep ? cd_asprintf("%.*s%s", (int)(base - pattern), pattern, name) : cd_strdup(name))) {
			rc = CD_ENOMEM;
			goto out;
		}
		(*n)++;
	}
	cd_qsort(names, *n, sizeof(*names), name_cmp);
out:
	if (d)
		os_dir_close(d);
	free(dir);
	if (rc != CD_OK) {
		for (size_t i = 0; i < *n; i++)
			free(names[i]);
		free(names);
		*n = 0;
		return cd_fail(err, rc, "out of memory");
	}
	*out = names;
	return CD_OK;
}

int arch_inputs_expand_dir(struct arch_inputs *in, const char *dir, bool recursive, char *err)
{
	return walk(in, dir, recursive, false, 0, err);
}

static bool safe_interpreter(const char *p)
{
	for (; *p; p++)
		if (!(((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		       strchr("/._+-", *p))))
			return false;
	return true;
}

/* A framework's file for --python: an ELF not listed yet (cupy's CUDA majors share a folder). */
static int add_framework_file(const char *path, void *arg)
{
	struct arch_inputs *in = arg;

	if (!worth_scanning(path, true))
		return CD_OK;
	for (size_t i = 0; i < in->n; i++)
		if (strcmp(in->paths[i], path) == 0)
			return CD_OK;
	return arch_inputs_add(in, path, false);
}

/* Every framework's device-code files under site, as doctor finds them (probe/fw_files.h). */
static int add_frameworks(struct arch_inputs *in, const char *site, char *err)
{
	size_t n;
	const struct fw_files_row *rows = fw_files_table(&n);
	int rc = CD_OK;

	for (size_t i = 0; i < n && rc == CD_OK; i++)
		rc = fw_files_each(&rows[i], site, add_framework_file, in);
	return rc == CD_ENOMEM ? cd_fail(err, rc, "out of memory") : rc;
}

static bool is_python_dir(const char *name, void *arg)
{
	(void)arg;
	return str_starts_with(name, "python");
}

static bool ends_with_ci(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* The install tree a --python path names without running anything: a folder, or the folder
 * of a Windows python*.exe (a venv's Scripts/python.exe: the folder above Scripts). */
static bool tree_root(const char *path, char *root, size_t cap)
{
	const char *base = strrchr(path, '/');

	if (path_is_dir(path))
		return snprintf(root, cap, "%s", path) < (int)cap;
	base = base ? base + 1 : path;
	if (!str_starts_with(base, "python") || !ends_with_ci(base, ".exe") || !path_is_file(path))
		return false;
	if (snprintf(root, cap, "%.*s", (int)(base - path), path) >= (int)cap)
		return false;
	if (!root[0])
		snprintf(root, cap, ".");
	size_t len = strlen(root);
	while (len > 1 && root[len - 1] == '/')
		root[--len] = 0;
	const char *last = strrchr(root, '/');
	if (last && strcasecmp(last + 1, "Scripts") == 0)
		root[last - root] = 0;
	return true;
}

bool arch_inputs_is_python_tree(const char *path)
{
	char root[PROBE_PATH];

	return tree_root(path, root, sizeof root);
}

/* Each site-packages of the tree at root, Windows' and POSIX layouts: Lib/site-packages
 * (python.org installs, ComfyUI portable's python_embeded, venvs and conda envs made on
 * Windows), lib/pythonX.Y/site-packages (venvs and conda envs made on Linux or macOS). */
static int tree_sites(struct arch_inputs *in, const char *root, size_t *dirs, char *err)
{
	static const char *const windows[] = { "Lib/site-packages", "lib/site-packages" };
	char site[PROBE_PATH], lib[PROBE_PATH], rel[PROBE_PATH];
	char **names = NULL;
	size_t n = 0;
	int rc = CD_OK;

	for (size_t i = 0; i < sizeof(windows) / sizeof(windows[0]) && rc == CD_OK; i++)
		if (path_join(site, sizeof site, root, windows[i]) == CD_OK && path_is_dir(site) &&
		    !(i > 0 && *dirs)) { /* a case-blind mount shows Lib twice */
			(*dirs)++;
			rc = add_frameworks(in, site, err);
		}
	if (rc || path_join(lib, sizeof lib, root, "lib") != CD_OK)
		return rc;
	if (dir_names(lib, is_python_dir, NULL, &names, &n) != CD_OK)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	for (size_t i = 0; i < n && rc == CD_OK; i++) {
		snprintf(rel, sizeof rel, "%s/site-packages", names[i]);
		if (path_join(site, sizeof site, lib, rel) == CD_OK && path_is_dir(site)) {
			(*dirs)++;
			rc = add_frameworks(in, site, err);
		}
	}
	names_free(names, n);
	return rc;
}

#define SITE_DIRS_MAX 65536 /* bytes of site-packages paths read from the interpreter */

int arch_inputs_python(struct arch_inputs *in, const char *interpreter, char *prog, size_t prog_cap, char *err)
{
	static const char script[] = "import site\nfor p in site.getsitepackages()+[site.getusersitepackages()]: print(p)";
	const char *py = interpreter && *interpreter ? interpreter : "python3";
	char serr[CD_ERRMSG], *out = NULL, *line, *save = NULL, home[PROBE_PATH], own[PROBE_PATH];
	size_t len = 0, dirs = 0;
	int rc, ran;

	/* a Windows install tree, or any environment's folder, is read where it is mounted */
	if (interpreter && *interpreter && tree_root(interpreter, home, sizeof home)) {
		size_t found = 0;

		snprintf(prog, prog_cap, "%s", interpreter);
		if ((rc = tree_sites(in, home, &found, err)))
			return rc;
		if (!found)
			return cd_fail(err, CD_EUSAGE, "--python: %.200s has no Lib/site-packages or lib/pythonX.Y/site-packages",
				       home);
		return CD_OK;
	}
	/* by default the interpreter of the environment cudoctor was started from, if it has one */
	if (!(interpreter && *interpreter) && python_launcher_env(home, sizeof home) &&
	    path_join(own, sizeof own, home, "bin/python3") == CD_OK && os_access(own, OS_EXEC) && safe_interpreter(own))
		py = own;
	if (!safe_interpreter(py))
		return cd_fail(err, CD_EUSAGE, "--python: '%s' is not a plain interpreter path", py);
	if (spawn_find_program(py, prog, prog_cap) != CD_OK)
		return cd_fail(err, CD_EUSAGE, "--python: %s is not on PATH", py);
	if (!(out = malloc(SITE_DIRS_MAX)))
		return cd_fail(err, CD_ENOMEM, "out of memory");
	{
		char *argv[] = { prog, "-c", (char *)script, NULL };
		ran = spawn_capture(argv, out, SITE_DIRS_MAX, &len, serr);
	}
	if (ran == CD_ETIMEOUT) {
		free(out);
		return CD_ETIMEOUT;
	}
	rc = CD_OK;
	for (line = strtok_r(out, "\n", &save); rc == CD_OK && line; line = strtok_r(NULL, "\n", &save)) {
		if (!line[0] || !path_is_dir(line))
			continue;
		dirs++;
		rc = add_frameworks(in, line, err);
	}
	free(out);
	if (rc)
		return rc;
	if (ran != CD_OK && dirs == 0)
		return cd_fail(err, CD_EUSAGE, "--python: %s did not run or has no site-packages (%s)", py, serr);
	return CD_OK;
}

int arch_inputs_ollama(struct arch_inputs *in, char *err)
{
	/* where the Linux installer, the tarball and the Docker image put the runners */
	static const char *const dirs[] = {"/usr/lib/ollama", "/usr/local/lib/ollama", "/opt/ollama/lib"};
	size_t found = 0;
	const char *env = os_getenv("OLLAMA_LIBRARY_PATH");
	if (env && *env && path_is_dir(env)) {
		int rc = walk(in, env, true, true, 0, err);
		if (rc)
			return rc;
		found++;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (!path_is_dir(dirs[i]))
			continue;
		int rc = walk(in, dirs[i], true, true, 0, err);
		if (rc)
			return rc;
		found++;
	}
	if (!found)
		return cd_fail(err, CD_ENOTFOUND, "--ollama: no Ollama library folder (/usr/lib/ollama, /usr/local/lib/ollama, $OLLAMA_LIBRARY_PATH)");
	return CD_OK;
}

static bool is_user_dir(const char *name, void *arg)
{
	(void)arg;
	return name[0] != '.';
}

/* name in dir (any case: a tree copied off Windows keeps its case, a drvfs mount ignores it) */
static bool has_file_ci(const char *dir, const char *name)
{
	char **names = NULL;
	size_t n = 0;
	bool found = false;

	if (dir_names(dir, NULL, NULL, &names, &n) != CD_OK)
		return false;
	for (size_t i = 0; i < n && !found; i++)
		found = strcasecmp(names[i], name) == 0;
	names_free(names, n);
	return found;
}

/* Reads the modules below dir, when it is a folder. */
static int add_runners(struct arch_inputs *in, const char *dir, size_t *found, char *err)
{
	if (!path_is_dir(dir))
		return CD_OK;
	(*found)++;
	return walk(in, dir, true, true, 0, err);
}

int arch_inputs_ollama_under(struct arch_inputs *in, const char *root, char *err)
{
	/* below root, where Ollama's installers put the runners: the root itself being the runners'
	 * folder, Ollama's own folder or a Linux prefix (lib/ollama), %LOCALAPPDATA%
	 * (Programs/Ollama/lib/ollama), a Windows user's folder (AppData/Local/...) or a drive or
	 * its Users folder (Users/NAME/AppData/Local/...) */
	static const char *const below[] = { "lib/ollama", "Programs/Ollama/lib/ollama",
					     "AppData/Local/Programs/Ollama/lib/ollama" };
	char dir[PROBE_PATH], users[PROBE_PATH], rel[PROBE_PATH];
	char **names = NULL;
	size_t n = 0, found = 0;
	int rc = CD_OK;

	if (!path_is_dir(root))
		return cd_fail(err, CD_EUSAGE, "--ollama: %.200s is not a directory", root);
	/* the runners' folder itself, or a llama.cpp release folder: its ggml-cuda library */
	if (has_file_ci(root, "ggml-cuda.dll") || has_file_ci(root, "libggml-cuda.so") || has_file_ci(root, "ggml-hip.dll") ||
	    has_file_ci(root, "libggml-hip.so") || has_file_ci(root, "cuda_v12") || has_file_ci(root, "cuda_v13") ||
	    has_file_ci(root, "rocm") || has_file_ci(root, "llama-server.exe"))
		return add_runners(in, root, &found, err);
	for (size_t i = 0; i < sizeof(below) / sizeof(below[0]) && rc == CD_OK; i++)
		if (path_join(dir, sizeof dir, root, below[i]) == CD_OK)
			rc = add_runners(in, dir, &found, err);
	if (rc == CD_OK && path_join(users, sizeof users, root, "Users") == CD_OK && !path_is_dir(users))
		snprintf(users, sizeof users, "%s", root);
	if (rc == CD_OK && dir_names(users, is_user_dir, NULL, &names, &n) != CD_OK)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	for (size_t i = 0; i < n && rc == CD_OK; i++) {
		snprintf(rel, sizeof rel, "%s/%s", names[i], below[2]);
		if (path_join(dir, sizeof dir, users, rel) == CD_OK)
			rc = add_runners(in, dir, &found, err);
	}
	names_free(names, n);
	if (rc == CD_OK && !found)
		return cd_fail(err, CD_ENOTFOUND,
			       "--ollama: no Ollama runners or llama.cpp release below %.200s (lib/ollama, "
			       "Programs/Ollama/lib/ollama, [Users/NAME/]AppData/Local/Programs/Ollama/lib/ollama, "
			       "ggml-cuda.dll)", root);
	return rc;
}
