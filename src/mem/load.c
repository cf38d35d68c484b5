/* A path on the command line -> mem_model: a GGUF file, a safetensors file, a
 * sharded index (or a directory holding one), or a config.json. Headers only. */
#include "mem/load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/ollama.h"
#include "os/fs.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"
#include "util/utf16.h"

#define MAX_CONFIG_BYTES (16u << 20)
#define MAX_INDEX_BYTES (64u << 20)

static int load_json(const char *path, size_t max, json_t **out, char *err)
{
	char *text = NULL;
	size_t len;
	json_error_t jerr;
	const unsigned char *json;
	char *utf8;
	/* one byte past the limit: a file cut there would read as JSON cut short */
	int rc = file_read_text(path, max + 1, &text, &len, err);
	if (rc)
		return rc;
	if (len > max) {
		free(text);
		return cd_fail(err, CD_EFORMAT, "%s: larger than %zu MiB, the most a JSON file here may be", path,
			       max >> 20);
	}
	/* a config.json a Windows editor saved behind a byte order mark, or as UTF-16 */
	if ((rc = utf16_text_as_utf8((const unsigned char *)text, len, &utf8, &json, &len)) != CD_OK) {
		free(text);
		return cd_fail(err, rc, "out of memory");
	}
	*out = json_loadb((const char *)json, len, 0, &jerr);
	free(utf8);
	free(text);
	if (!*out)
		return cd_fail(err, CD_EFORMAT, "%s: line %d: %s", path, jerr.line, jerr.text);
	return CD_OK;
}

/* dirname(3)'s answer: "." for a bare name, "/" for a file in the root */
static char *dir_of(const char *path)
{
	const char *sep = os_last_sep(path);

	if (!sep)
		return cd_strdup(".");
	if (sep == path)
		return cd_strndup(path, 1);
	return cd_strndup(path, (size_t)(sep - path));
}

/* config.json beside the weights, or NULL when there is none. */
static int sibling_config(const char *dir, json_t **config, char *err)
{
	*config = NULL;
	char *p = cd_asprintf("%s/config.json", dir);
	if (!p)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	int rc = path_is_file(p) ? load_json(p, MAX_CONFIG_BYTES, config, err) : CD_OK;
	free(p);
	return rc;
}

static int parse_gguf(const char *path, struct mapped_file *mf, struct gguf_file *g, char *err)
{
	char perr[CD_ERRMSG];
	int rc = file_map(path, mf, err);
	if (rc)
		return rc;
	if ((rc = gguf_parse(mf->data, mf->size, g, perr))) {
		file_unmap(mf);
		return cd_fail(err, rc, "%s: %s", path, perr);
	}
	if (!file_map_intact(mf)) {
		gguf_free(g);
		file_unmap(mf);
		return cd_fail(err, CD_EIO, "%s: the file was cut short while it was read", path);
	}
	return CD_OK;
}

/* "name-00002-of-00005.gguf" -> prefix "name", no 2, count 5 */
static bool split_name(const char *path, char *prefix, size_t cap, unsigned *no, unsigned *count)
{
	size_t n = strlen(path);
	const char *tail = "-00000-of-00000.gguf";
	size_t tl = strlen(tail);
	if (n <= tl || n - tl >= cap)
		return false;
	const char *s = path + n - tl;
	for (size_t i = 0; i < tl; i++) {
		bool digit = tail[i] == '0';
		if (digit ? !(s[i] >= '0' && s[i] <= '9') : s[i] != tail[i])
			return false;
	}
	*no = (unsigned)strtoul(s + 1, NULL, 10);
	*count = (unsigned)strtoul(s + 10, NULL, 10);
	memcpy(prefix, path, n - tl);
	prefix[n - tl] = 0;
	return *no >= 1 && *count >= *no;
}

static int load_gguf(const char *path, struct mem_model *m, char *err)
{
	struct mapped_file mf;
	struct gguf_file g;
	char prefix[4096];
	unsigned no = 0, count = 0;
	int rc;
	/* a split model: its first file holds the metadata, every file holds tensors */
	bool split = split_name(path, prefix, sizeof prefix, &no, &count) && count > 1 && count <= 1000;
	char *first = split ? cd_asprintf("%s-%05u-of-%05u.gguf", prefix, 1u, count) : cd_strdup(path);
	if (!first)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if ((rc = parse_gguf(first, &mf, &g, err)))
		goto out;
	rc = mem_model_from_gguf(&g, m, err);
	gguf_free(&g);
	file_unmap(&mf);
	for (unsigned i = 2; split && rc == CD_OK && i <= count; i++) {
		char *p = cd_asprintf("%s-%05u-of-%05u.gguf", prefix, i, count);
		if (!p) {
			rc = cd_fail(err, CD_ENOMEM, "out of memory");
			break;
		}
		if ((rc = parse_gguf(p, &mf, &g, err)) == CD_OK) {
			mem_model_add_gguf_tensors(&g, m);
			gguf_free(&g);
			file_unmap(&mf);
		}
		free(p);
	}
	if (rc == CD_OK && split)
		snprintf(m->note, sizeof m->note, "split GGUF: read all %u files", count);
	if (rc)
		mem_model_free(m);
out:
	free(first);
	return rc;
}

/* Parses n safetensors files (paths), then builds the model with config (may be NULL). */
static int load_st_files(char **paths, size_t n, json_t *config, struct mem_model *m, char *err)
{
	struct st_file *files = calloc(n ? n : 1, sizeof *files);
	size_t done = 0;
	int rc = CD_OK;
	if (!files)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	for (; done < n; done++) {
		struct mapped_file mf;
		char perr[CD_ERRMSG];
		if ((rc = file_map(paths[done], &mf, err)))
			goto out;
		rc = st_parse(mf.data, mf.size, &files[done], perr);
		if (rc == CD_OK && !file_map_intact(&mf)) {
			st_free(&files[done]);
			rc = cd_fail(perr, CD_EIO, "the file was cut short while it was read");
		}
		file_unmap(&mf);
		if (rc) {
			cd_fail(err, rc, "%s: %s", paths[done], perr);
			goto out;
		}
	}
	rc = mem_model_from_safetensors(files, n, config, m, err);
out:
	for (size_t i = 0; i < done; i++)
		st_free(&files[i]);
	free(files);
	return rc;
}

/* parsed: the index when the caller has read it already (as config.json), else NULL */
static int load_index(const char *path, const json_t *parsed, struct mem_model *m, char *err)
{
	struct mapped_file mf;
	struct st_index ix = {0};
	char perr[CD_ERRMSG], **paths = NULL;
	json_t *config = NULL;
	char *dir = dir_of(path);
	int rc;
	if (!dir)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if (parsed) {
		if ((rc = st_index_read(parsed, &ix, perr)))
			cd_fail(err, rc, "%s: %s", path, perr);
	} else if ((rc = file_map(path, &mf, err)) == CD_OK) {
		if (mf.size > MAX_INDEX_BYTES)
			rc = cd_fail(err, CD_EFORMAT, "%s: index larger than %u MiB", path, MAX_INDEX_BYTES >> 20);
		else if ((rc = st_index_parse(mf.data, mf.size, &ix, perr)))
			cd_fail(err, rc, "%s: %s", path, perr);
		else if (!file_map_intact(&mf))
			rc = cd_fail(err, CD_EIO, "%s: the file was cut short while it was read", path);
		file_unmap(&mf);
	}
	if (rc)
		goto out;
	if (ix.n_shards == 0) {
		rc = cd_fail(err, CD_EFORMAT, "%s: weight_map names %zu shard files", path, ix.n_shards);
		goto out;
	}
	if (!(paths = calloc(ix.n_shards, sizeof *paths))) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < ix.n_shards; i++)
		if (!(paths[i] = cd_asprintf("%s/%s", dir, ix.shards[i]))) {
			rc = cd_fail(err, CD_ENOMEM, "out of memory");
			goto out;
		}
	if ((rc = sibling_config(dir, &config, err)) ||
	    (rc = load_st_files(paths, ix.n_shards, config, m, err)))
		goto out;
	/* total_size is the sum of tensor bytes when transformers wrote it; others differ */
	if (ix.has_total_size && ix.total_size != m->weight_bytes && !m->note[0])
		snprintf(m->note, sizeof m->note,
			 "index metadata.total_size says %llu bytes; the shard headers say %llu (headers used)",
			 (unsigned long long)ix.total_size, (unsigned long long)m->weight_bytes);
out:
	if (paths)
		for (size_t i = 0; i < ix.n_shards; i++)
			free(paths[i]);
	free(paths);
	st_index_free(&ix);
	json_decref(config);
	free(dir);
	return rc;
}

static int load_one_st(const char *path, struct mem_model *m, char *err)
{
	json_t *config = NULL;
	char *dir = dir_of(path);
	char *paths[1] = {(char *)path};
	int rc;
	if (!dir)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if (!(rc = sibling_config(dir, &config, err)))
		rc = load_st_files(paths, 1, config, m, err);
	json_decref(config);
	free(dir);
	return rc;
}

static int load_config(const char *path, const char *dtype, struct mem_model *m, char *err)
{
	json_t *config = NULL;
	int rc = load_json(path, MAX_CONFIG_BYTES, &config, err);
	if (!rc && json_object_get(config, "weight_map")) {
		rc = load_index(path, config, m, err);
		json_decref(config);
		return rc;
	}
	if (!rc) {
		char cerr[CD_ERRMSG];
		if ((rc = mem_model_from_config(config, dtype, m, cerr)))
			cd_fail(err, rc, "%s: %s", path, cerr);
	}
	json_decref(config);
	return rc;
}

/* A directory: an index, else one model.safetensors, else the only *.gguf, else config.json. */
static int load_dir(const char *dir, const char *dtype, struct mem_model *m, char *err)
{
	static const char *const names[] = {"model.safetensors.index.json",
					    "diffusion_pytorch_model.safetensors.index.json",
					    "model.safetensors"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char *p = cd_asprintf("%s/%s", dir, names[i]);
		if (!p)
			return cd_fail(err, CD_ENOMEM, "out of memory");
		int rc = CD_ENOTFOUND;
		if (path_is_file(p))
			rc = i < 2 ? load_index(p, NULL, m, err) : load_one_st(p, m, err);
		free(p);
		if (rc != CD_ENOTFOUND)
			return rc;
	}
	struct os_dir *d = NULL;
	const char *name;
	char *gguf = NULL;
	int n_gguf = 0;
	os_dir_open(dir, &d);
	while (d && (name = os_dir_next(d))) {
		if (str_ends_with(name, ".gguf")) {
			n_gguf++;
			free(gguf);
			gguf = cd_asprintf("%s/%s", dir, name);
		}
	}
	os_dir_close(d);
	int rc;
	if (n_gguf == 1 && gguf)
		rc = load_gguf(gguf, m, err);
	else if (n_gguf > 1)
		rc = cd_fail(err, CD_EUSAGE, "%s holds %d .gguf files: name one", dir, n_gguf);
	else {
		char *p = cd_asprintf("%s/config.json", dir);
		rc = !p ? cd_fail(err, CD_ENOMEM, "out of memory")
			: path_is_file(p) ? load_config(p, dtype, m, err)
					  : cd_fail(err, CD_ENOTFOUND, "%s: no model.safetensors[.index.json], *.gguf or config.json", dir);
		free(p);
	}
	free(gguf);
	return rc;
}

/* A name that is no file but reads as Ollama's (llama3:8b): the GGUF blob its manifest names.
 * False when path is no such name, or a bare word ("model.gguf" mistyped) Ollama does not
 * have; else *rc is the load's result. */
static bool load_ollama(const char *path, struct mem_model *m, int *rc, char *err)
{
	struct ollama_name n;
	char blob[4096];

	if (path_is_file(path) || path_is_dir(path) || !ollama_name_parse(path, &n) ||
	    (!strchr(path, ':') && !ollama_has_manifest(&n)))
		return false;
	if ((*rc = ollama_model_file(&n, path, blob, sizeof blob, err)) == CD_OK &&
	    (*rc = load_gguf(blob, m, err)) == CD_OK)
		snprintf(m->note, sizeof m->note, "Ollama's %.60s: %.180s", path, blob);
	return true;
}

int mem_load_path(const char *path, const char *dtype, struct mem_model *m, char *err)
{
	int rc;

	memset(m, 0, sizeof *m);
	if (load_ollama(path, m, &rc, err))
		return rc;
	if (path_is_dir(path))
		return load_dir(path, dtype, m, err);
	struct mapped_file mf; /* file_map names a missing file, a FIFO, a device */
	rc = file_map(path, &mf, err);
	if (rc)
		return rc;
	bool is_gguf = mf.size >= 4 && memcmp(mf.data, "GGUF", 4) == 0;
	/* safetensors first: its 8-byte length is followed by '{', and the length's low byte is
	 * itself '{' (0x7b) in one header of 256; JSON text's first 8 bytes read as a length far
	 * beyond the file */
	bool is_st = mf.size >= 9 && mf.data[8] == '{' && st_header_length(mf.data) <= mf.size - 8;
	bool is_json = !is_st && mf.size >= 1 && (mf.data[0] == '{' || str_ends_with(path, ".json"));
	bool empty = mf.size == 0;
	file_unmap(&mf);
	if (is_gguf || str_ends_with(path, ".gguf"))
		return load_gguf(path, m, err);
	if (is_json)
		return load_config(path, dtype, m, err);
	/* a log, a binary, a text named by mistake: say what is read, not why it is no
	 * safetensors header (and not what a config.json beside it holds) */
	if (!is_st && !str_ends_with(path, ".safetensors"))
		return cd_fail(err, CD_EFORMAT, "%s: %s mem reads: a GGUF, a safetensors file, its index, a "
			       "config.json or a directory of them", path, empty ? "an empty file, not a model file" : "not a model file");
	return load_one_st(path, m, err);
}
