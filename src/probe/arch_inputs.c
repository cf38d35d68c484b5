/* `arch` inputs (arch_inputs.h): paths gathered, directories walked in name order, the
 * frameworks' files in the site-packages Python names, Ollama's library folders. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binfmt/ar.h"
#include "binfmt/elf.h"
#include "binfmt/fatbin.h"
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

/* A found file is worth mapping when its first bytes are ELF, ar or fatbin, or its
 * name says PTX/cubin; under --python and --ollama only shared objects by name, and those
 * that really are ELF (a header named "sort.so_impl.h" or a linker script is neither). */
static bool worth_scanning(const char *path, bool shared_objects_only)
{
	if (shared_objects_only && !str_is_shared_object_name(path))
		return false;
	if (!shared_objects_only && (str_ends_with(path, ".ptx") || str_ends_with(path, ".cubin")))
		return true;
	unsigned char head[8];
	size_t size;
	int fd;
	/* opened as every input is (util/file.h): without blocking, regular files only, so a
	 * file swapped for a FIFO after the directory was listed cannot hang the walk */
	if (file_open_input(path, &fd, &size, NULL) != CD_OK)
		return false;
	ssize_t n = read(fd, head, sizeof(head));
	close(fd);
	if (n < 4)
		return false;
	if (shared_objects_only)
		return elf_has_magic(head, (size_t)n);
	return elf_has_magic(head, (size_t)n) || ar_has_magic(head, (size_t)n) ||
	       (n >= 8 && fatbin_is_container_at(head, 16, 0));
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk(struct arch_inputs *in, const char *dir, bool recursive, bool so_only, int depth, char *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return depth == 0 ? cd_fail(err, CD_EIO, "%s: %s", dir, strerror(errno)) : CD_OK;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = CD_OK;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **p = realloc(names, cap * sizeof(*p));
			if (!p) {
				rc = CD_ENOMEM;
				goto out;
			}
			names = p;
		}
		if (!(names[n] = cd_asprintf("%s/%s", dir, de->d_name))) {
			rc = CD_ENOMEM;
			goto out;
		}
		n++;
	}
	/* readdir order is the file system's; sort so runs are reproducible */
	cd_qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n && rc == CD_OK; i++) {
		struct stat st;
		if (lstat(names[i], &st) != 0) /* symlinks are skipped: no loops, no doubles */
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (recursive && depth < MAX_DEPTH)
				rc = walk(in, names[i], recursive, so_only, depth + 1, err);
		} else if (S_ISREG(st.st_mode) && worth_scanning(names[i], so_only)) {
			rc = arch_inputs_add(in, names[i], false);
		}
	}
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	if (rc == CD_ENOMEM)
		return cd_fail(err, rc, "out of memory");
	return rc;
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

#define SITE_DIRS_MAX 65536 /* bytes of site-packages paths read from the interpreter */

int arch_inputs_python(struct arch_inputs *in, const char *interpreter, char *prog, size_t prog_cap, char *err)
{
	static const char script[] = "import site\nfor p in site.getsitepackages()+[site.getusersitepackages()]: print(p)";
	const char *py = interpreter && *interpreter ? interpreter : "python3";
	char serr[CD_ERRMSG], *out = NULL, *line, *save = NULL, home[PROBE_PATH], own[PROBE_PATH];
	size_t len = 0, dirs = 0;
	int rc, ran;

	/* by default the interpreter of the environment cudoctor was started from, if it has one */
	if (!(interpreter && *interpreter) && python_launcher_env(home, sizeof home) &&
	    path_join(own, sizeof own, home, "bin/python3") == CD_OK && access(own, X_OK) == 0 && safe_interpreter(own))
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
	const char *env = getenv("OLLAMA_LIBRARY_PATH");
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
