/* Shared by the mem tests: the model files written by the reference writers (gguf-py,
 * safetensors) through tests/fixtures/make_mem_models.py, generated once into the
 * fixtures directory, and expected.json, what the reference readers say they hold. */
#ifndef CUDOCTOR_MEM_FIXTURES_H
#define CUDOCTOR_MEM_FIXTURES_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static char mem_fx_dir[4096];

/* Returns the directory, or NULL (with a message) when python or its packages are missing. */
static inline const char *mem_fixtures(void)
{
	char stamp[4200], cmd[9000];
	struct stat st, sc;
	snprintf(mem_fx_dir, sizeof mem_fx_dir, "%s/mem", CUDOCTOR_FIXTURES_DIR);
	snprintf(stamp, sizeof stamp, "%s/expected.json", mem_fx_dir);
	const char *script = CUDOCTOR_SOURCE_DIR "/tests/fixtures/make_mem_models.py";
	if (stat(stamp, &st) == 0 && stat(script, &sc) == 0 && st.st_mtime >= sc.st_mtime)
		return mem_fx_dir;
	snprintf(cmd, sizeof cmd, "python3 '%s' '%s' >&2", script, mem_fx_dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "mem fixtures: `%s` failed (make deps installs gguf, safetensors, numpy)\n", cmd);
		return NULL;
	}
	return mem_fx_dir;
}

/* expected.json's entry for one fixture (borrowed from a static root). */
static inline json_t *mem_expected(const char *name)
{
	static json_t *root;
	if (!root) {
		char p[4200];
		snprintf(p, sizeof p, "%s/expected.json", mem_fx_dir);
		root = json_load_file(p, 0, NULL);
	}
	return json_object_get(root, name);
}

static inline unsigned long long mem_exp_u(const char *name, const char *key)
{
	return (unsigned long long)json_integer_value(json_object_get(mem_expected(name), key));
}

#endif
