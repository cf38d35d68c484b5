/* AMDGPU kernels from the metadata note (a msgpack map read by binfmt/msgpack) or, for a
 * code object without one, from each NAME.kd kernel descriptor's segment sizes. */
#include "binfmt/amdgpu_kernels.h"

#include <stdlib.h>
#include <string.h>

#include "binfmt/amdgpu_co.h"
#include "binfmt/bytes.h"
#include "binfmt/elf.h"
#include "binfmt/msgpack.h"
#include "util/err.h"
#include "util/safetext.h"

#define NT_AMDGPU_METADATA 32
#define NAME_MAX_BYTES 4096 /* of a kernel name as listed */
#define KD_SIZE 64
#define ELF_STT_OBJECT 1

static void unknown(struct amdgpu_kernel *k)
{
	memset(k, 0, sizeof(*k));
	k->sgprs = k->vgprs = k->agprs = k->group_bytes = k->private_bytes = k->kernarg_bytes = AMDGPU_UNKNOWN;
	k->max_workgroup = k->wavefront = k->sgpr_spills = k->vgpr_spills = AMDGPU_UNKNOWN;
}

static int push(struct amdgpu_kernels *ks, size_t *cap, char *err)
{
	if (ks->n == AMDGPU_KERNELS_MAX)
		return cd_fail(err, CD_EFORMAT, "more than %d kernels", AMDGPU_KERNELS_MAX);
	if (ks->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct amdgpu_kernel *k = realloc(ks->k, nc * sizeof(*k));
		if (!k)
			return cd_fail(err, CD_ENOMEM, "out of memory");
		ks->k = k;
		*cap = nc;
	}
	unknown(&ks->k[ks->n++]);
	return CD_OK;
}

static bool key_is(const struct mp_value *v, const char *key)
{
	return v->type == MP_STR && v->len == strlen(key) && memcmp(v->s, key, v->len) == 0;
}

/* The numeric fields of a kernel's map, by key. */
static uint64_t *field_of(struct amdgpu_kernel *k, const struct mp_value *key)
{
	static const struct {
		const char *key;
		size_t off;
	} fields[] = {
		{".sgpr_count", offsetof(struct amdgpu_kernel, sgprs)},
		{".vgpr_count", offsetof(struct amdgpu_kernel, vgprs)},
		{".agpr_count", offsetof(struct amdgpu_kernel, agprs)},
		{".group_segment_fixed_size", offsetof(struct amdgpu_kernel, group_bytes)},
		{".private_segment_fixed_size", offsetof(struct amdgpu_kernel, private_bytes)},
		{".kernarg_segment_size", offsetof(struct amdgpu_kernel, kernarg_bytes)},
		{".max_flat_workgroup_size", offsetof(struct amdgpu_kernel, max_workgroup)},
		{".wavefront_size", offsetof(struct amdgpu_kernel, wavefront)},
		{".sgpr_spill_count", offsetof(struct amdgpu_kernel, sgpr_spills)},
		{".vgpr_spill_count", offsetof(struct amdgpu_kernel, vgpr_spills)},
	};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (key_is(key, fields[i].key))
			return (uint64_t *)((char *)k + fields[i].off);
	return NULL;
}

/* One map of amdhsa.kernels into k. */
static int kernel_map(struct mp_reader *r, struct amdgpu_kernel *k, char *err)
{
	struct mp_value m, key, val;
	int rc;

	if ((rc = mp_next(r, &m, err)))
		return rc;
	if (m.type != MP_MAP)
		return mp_skip_body(r, &m, err); /* not a kernel: nothing to list */
	for (uint64_t i = 0; i < m.u; i++) {
		if ((rc = mp_next(r, &key, err)) || (rc = mp_skip_body(r, &key, err)))
			return rc;
		if ((rc = mp_next(r, &val, err)))
			return rc;
		uint64_t *f = field_of(k, &key);
		if (f && val.type == MP_UINT)
			*f = val.u;
		else if (key_is(&key, ".name") && val.type == MP_STR && !k->name &&
			 !(k->name = safe_text_dup(val.s, val.len, NAME_MAX_BYTES, 0)))
			return cd_fail(err, CD_ENOMEM, "out of memory");
		if ((rc = mp_skip_body(r, &val, err)))
			return rc;
	}
	return CD_OK;
}

/* The metadata note's map: amdhsa.kernels' maps appended to ks. */
static int read_metadata(const unsigned char *p, size_t n, struct amdgpu_kernels *ks, char *err)
{
	struct mp_reader r = {.data = p, .size = n};
	struct mp_value root, key, val;
	size_t cap = 0;
	int rc;

	if ((rc = mp_next(&r, &root, err)))
		return rc;
	if (root.type != MP_MAP)
		return cd_fail(err, CD_EFORMAT, "the AMDGPU metadata is no msgpack map");
	for (uint64_t i = 0; i < root.u; i++) {
		if ((rc = mp_next(&r, &key, err)) || (rc = mp_skip_body(&r, &key, err)))
			return rc;
		if (!key_is(&key, "amdhsa.kernels")) {
			if ((rc = mp_skip(&r, err)))
				return rc;
			continue;
		}
		if ((rc = mp_next(&r, &val, err)))
			return rc;
		if (val.type != MP_ARRAY) {
			if ((rc = mp_skip_body(&r, &val, err)))
				return rc;
			continue;
		}
		for (uint64_t j = 0; j < val.u; j++)
			if ((rc = push(ks, &cap, err)) || (rc = kernel_map(&r, &ks->k[ks->n - 1], err)))
				return rc;
	}
	ks->from_metadata = true;
	return CD_OK;
}

/* The NT_AMDGPU_METADATA note's descriptor in a SHT_NOTE section, or NULL. */
static const unsigned char *metadata_note(const unsigned char *p, size_t n, size_t *len)
{
	size_t pos = 0;
	while (n - pos >= 12) {
		uint32_t namesz = rd32(p + pos), descsz = rd32(p + pos + 4), type = rd32(p + pos + 8);
		size_t name_pad = ((size_t)namesz + 3) & ~(size_t)3, desc_pad = ((size_t)descsz + 3) & ~(size_t)3;
		pos += 12;
		if (name_pad > n - pos || descsz > n - pos - name_pad)
			return NULL;
		if (type == NT_AMDGPU_METADATA && namesz == 7 && memcmp(p + pos, "AMDGPU", 7) == 0) {
			*len = descsz;
			return p + pos + name_pad;
		}
		pos += name_pad;
		if (desc_pad > n - pos)
			return NULL;
		pos += desc_pad;
	}
	return NULL;
}

/* The STT_OBJECT NAME.kd symbols of a symbol table: the kernel descriptors' segment sizes. */
static int read_descriptors(const struct elf_file *e, const struct elf_section *symtab, struct amdgpu_kernels *ks,
			    char *err)
{
	size_t cap = 0, count = elf_symbol_count(e, symtab);
	int rc;

	for (size_t i = 0; i < count; i++) {
		struct elf_symbol s;
		struct elf_section sec;
		size_t nlen;
		if ((rc = elf_symbol_at(e, symtab, i, &s, err)))
			return rc;
		nlen = strlen(s.name);
		if (s.type != ELF_STT_OBJECT || nlen <= 3 || strcmp(s.name + nlen - 3, ".kd") != 0)
			continue;
		if ((rc = push(ks, &cap, err)))
			return rc;
		struct amdgpu_kernel *k = &ks->k[ks->n - 1];
		if (!(k->name = safe_text_dup(s.name, nlen - 3, NAME_MAX_BYTES, 0)))
			return cd_fail(err, CD_ENOMEM, "out of memory");
		/* the descriptor's bytes: its address within its section, 64 bytes in the file */
		if (s.shndx == 0 || s.shndx >= e->shnum || elf_section_at(e, s.shndx, &sec, NULL) != CD_OK ||
		    sec.type == ELF_SHT_NOBITS || s.value < sec.addr || s.value - sec.addr > sec.size ||
		    sec.size - (s.value - sec.addr) < KD_SIZE || !in_bounds(sec.offset, sec.size, e->size))
			continue;
		const unsigned char *kd = e->data + sec.offset + (s.value - sec.addr);
		k->group_bytes = rd32(kd);
		k->private_bytes = rd32(kd + 4);
		k->kernarg_bytes = rd32(kd + 8);
	}
	return CD_OK;
}

int amdgpu_kernels_read(const unsigned char *data, size_t size, struct amdgpu_kernels *out, char *err)
{
	struct elf_file e;
	struct elf_section s, symtab = {0};
	bool have_symtab = false;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!amdgpu_co_is_code_object(data, size))
		return cd_fail(err, CD_EFORMAT, "not an AMDGPU code object");
	if ((rc = elf_open(&e, data, size, err)))
		return rc;
	for (size_t i = 1; i < e.shnum; i++) {
		size_t len;
		const unsigned char *p, *note;
		if ((rc = elf_section_at(&e, i, &s, err)))
			goto out;
		if (s.type == ELF_SHT_SYMTAB && !have_symtab) {
			symtab = s;
			have_symtab = true;
		}
		if (s.type != ELF_SHT_NOTE || out->from_metadata || !(p = elf_section_bytes(&e, &s, &len)))
			continue;
		if ((note = metadata_note(p, len, &len)) && (rc = read_metadata(note, len, out, err)))
			goto out;
	}
	if (!out->from_metadata && have_symtab)
		rc = read_descriptors(&e, &symtab, out, err);
out:
	if (rc)
		amdgpu_kernels_free(out);
	return rc;
}

void amdgpu_kernels_free(struct amdgpu_kernels *ks)
{
	for (size_t i = 0; i < ks->n; i++)
		free(ks->k[i].name);
	free(ks->k);
	memset(ks, 0, sizeof(*ks));
}
