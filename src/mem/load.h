/* Loading a model description from what the user names: a GGUF file, a safetensors
 * file or sharded index, a directory holding one of them, or a config.json. */
#ifndef CUDOCTOR_MEM_LOAD_H
#define CUDOCTOR_MEM_LOAD_H

#include "mem/model.h"

/* dtype: the weight dtype for a config.json-only model (NULL: the config's own).
 * Errors name the file and, for a malformed header, the offset. */
int mem_load_path(const char *path, const char *dtype, struct mem_model *m, char *err);

#endif
