/* The device-code inventory of one file: every fatbin container and entry it holds, and
 * every HIP offload bundle and entry, in file order, tagged with section and archive
 * member. Knows file formats, not GPUs. */
#ifndef CUDOCTOR_BINFMT_DEVCODE_H
#define CUDOCTOR_BINFMT_DEVCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "binfmt/fatbin.h"
#include "binfmt/hipfb.h"

enum dc_format {
	DC_EXECUTABLE, DC_SHARED_LIBRARY, DC_OBJECT, DC_ARCHIVE, DC_FATBIN, DC_CUBIN, DC_PTX,
	DC_OFFLOAD_BUNDLE,        /* a bare offload bundle or compressed bundle (.hipfb, rocBLAS .co) */
	DC_AMDGPU_CODE_OBJECT,    /* a bare AMDGPU code object (.hsaco, .co) */
	DC_NO_DEVICE_CODE
};

/* Scan options */
#define DC_SCAN_ALL_SECTIONS 0x1u /* also search other sections for containers (fatbin.md §1.1) */
#define DC_READ_ELF 0x2u          /* read SM and `a` from raw cubins (cuobjdump's ELF names) */
#define DC_SCAN_IF_CUDA 0x4u      /* like DC_SCAN_ALL_SECTIONS, but only in ELF files that have
				     .nv_fatbin or __nv_relfatbin (directory scans: skips the
				     gigabytes of CPU-only libraries) */
#define DC_SCAN_EVERY_SECTION 0x8u /* with either of the above: search every data section, not
				      only where NVIDIA's libraries keep containers (devcode.c) */

struct dc_image {
	uint16_t kind;                 /* FATBIN_KIND_* (standalone cubin: ELF; .ptx file: PTX) */
	unsigned arch;                 /* 10*major+minor from the entry header */
	char suffix;                   /* 'a', 'f' or 0, from the header flags */
	unsigned ptx_major, ptx_minor; /* PTX ISA (PTX entries) */
	enum fatbin_compression compression;
	uint64_t stored_bytes, uncompressed_bytes;
	uint64_t flags;                /* header flags (0 for standalone files) */
	bool debug;
	char *identifier;              /* owned, or NULL */
	uint32_t container;            /* index into containers */
	size_t file_offset;            /* entry header (or image) offset in the file */
	const unsigned char *payload;  /* stored bytes, inside the caller's buffer */
	size_t payload_len;
	bool elf_read;                 /* elf_sm/elf_a are valid (DC_READ_ELF, raw cubin) */
	unsigned elf_sm;
	bool elf_a;
};

struct dc_container {
	uint32_t section;              /* index into sections ("" for a bare file) */
	int member;                    /* index into members, -1 outside an archive */
	size_t file_offset;
	uint64_t size;                 /* 16 + fat_size */
	uint32_t first_image, n_images;
	bool primary;                  /* what the CUDA runtime registers and cuobjdump lists:
					  .nv_fatbin, else __nv_relfatbin, of each ELF; bare files */
};

/* AMD device code: an offload bundle (HIP fat binary), as stored or compressed, or a bare
 * code object (one entry, its target from the ELF header). */
enum dc_hip_form { DC_HIP_BUNDLE, DC_HIP_CCOB, DC_HIP_CODE_OBJECT };

struct dc_hip_bundle {
	enum dc_hip_form form;
	unsigned ccob_version;         /* DC_HIP_CCOB: 1..3 */
	enum hipfb_method method;      /* DC_HIP_CCOB: zlib or zstd */
	uint32_t section;              /* index into sections */
	int member;                    /* index into members, -1 outside an archive */
	size_t file_offset;            /* its first byte in the file */
	uint64_t stored_bytes;         /* in the file */
	uint64_t bundle_bytes;         /* the bundle once inflated (stored_bytes when stored plain) */
	uint32_t first_entry, n_entries;
};

struct dc_hip_entry {
	char *id;                      /* the entry id as safe text, owned ("" for a bare code object) */
	uint64_t offset, size;         /* as the bundle's table gives them: offset from the (inflated) bundle */
	uint32_t bundle;               /* index into hip_bundles */
	bool host;                     /* the host's entry (kind "host"): no device code */
	char arch[16];                 /* the triple's first part: "amdgcn", "spirv64", "x86_64" */
	bool target_known;             /* target holds a processor the id or header names */
	struct hipfb_target target;
	unsigned generic_version;      /* a bare V6 generic code object's EF_AMDGPU_GENERIC_VERSION */
};

struct dc_inventory {
	enum dc_format format;
	struct dc_image *images;
	size_t n_images, cap_images;
	struct dc_container *containers;
	size_t n_containers, cap_containers;
	char **sections;               /* distinct section names, owned */
	size_t n_sections;
	char **members;                /* archive member names, owned */
	size_t n_members;
	struct dc_hip_bundle *hip_bundles;
	size_t n_hip_bundles, cap_hip_bundles;
	struct dc_hip_entry *hip_entries;
	size_t n_hip_entries, cap_hip_entries;
	size_t hip_wrappers;           /* HIPF wrappers in .hipFatBinSegment: fat binaries the HIP
					  runtime registers */
	/* Bytes dc_image_bytes may still decompress for this input (dc_scan sets it to
	 * DC_INFLATE_BUDGET of the input's size): an image may declare 256 MiB, and a 333 KB
	 * fatbin of such images took 13.5 s and 266 MB to list. */
	uint64_t inflate_left;
	/* Called after each container with the highest byte touched so far, so a caller
	 * that mapped the file can release pages behind the walk. Optional. */
	void (*progress)(const unsigned char *upto, void *ctx);
	void *progress_ctx;
};

void dc_init(struct dc_inventory *inv);
void dc_free(struct dc_inventory *inv);

/* Fills inv from the file bytes. Device-code-free inputs are DC_NO_DEVICE_CODE, not an
 * error; an unrecognised or malformed file is CD_EFORMAT with the offset in err. */
int dc_scan(struct dc_inventory *inv, const unsigned char *data, size_t size, unsigned opts, char *err);
/* Whether the first bytes of a file (a few KiB are enough) are of a format dc_scan reads: ELF
 * (cubins and AMDGPU code objects too), a PE image, an ar archive, a fatbin, an offload
 * bundle, or PTX text. */
bool dc_has_magic(const unsigned char *data, size_t size);

/* The largest image that may be one of nvlink's kernel-less stubs (seen: 56 B - 1.5 KB): only
 * images up to this size are decompressed to tell stubs from code. */
#define DC_STUB_MAX_BYTES 8192
/* The most bytes such an image can be stored in, derived from the size above: compressing n
 * bytes never gives more than LZ4_COMPRESSBOUND (n + n/255 + 16: 8,240) or ZSTD_COMPRESSBOUND
 * (n + n/256 + (128 KiB - n)/2048: 8,284), both under n + n/64 + 256 (8,576) with the entry's
 * padding (under 8 bytes) where its header gives no compressed size. An image stored in more
 * holds code whatever size it declares: the judge does not decompress it, and a stream does
 * not keep it for the judge (sparse.c). */
#define DC_STUB_STORED_MAX (DC_STUB_MAX_BYTES + DC_STUB_MAX_BYTES / 64 + 256)

/* What the images of one input may decompress to together: 64 MiB and 16 times its size
 * (real fatbins compress 2-5 times). */
#define DC_INFLATE_BUDGET(size) ((uint64_t)64 * 1024 * 1024 + 16 * (uint64_t)(size))

/* The image's bytes, decompressed when stored compressed (at most cap bytes, and charged to
 * inv->inflate_left: CD_EUNSUPPORTED once that is spent): *buf is malloc'ed, the caller frees
 * it. CD_OK, CD_EFORMAT / CD_EUNSUPPORTED (err says why), CD_ENOMEM. */
int dc_image_bytes(struct dc_inventory *inv, const struct dc_image *im, size_t cap, unsigned char **buf,
		   size_t *len, char *err);

/* Whether a file named so (a path; len bytes, not NUL-terminated) can be of a format dc_scan
 * reads: a library, program, object or archive (.so, .so.N, .dll, .pyd, .exe, .a, .o), a
 * .fatbin, .cubin or .ptx, an AMD bundle or code object (.hipfb, .hsaco, .co), or a name
 * without an extension (programs in bin/). Archive
 * members named otherwise (Python, headers, metadata) are skipped without being inflated. */
bool dc_name_may_carry_code(const char *name, size_t len);

const char *dc_format_name(enum dc_format f);
/* "sm_90a", "compute_100f": the arch as nvcc spells it for this kind. */
void dc_image_arch_name(const struct dc_image *im, char *buf, size_t cap);

/* Whether the inventory holds any device code: a fatbin container or a HIP bundle. */
bool dc_has_device_code(const struct dc_inventory *inv);
/* "gfx90a:xnack-", "gfx11-generic", "host", or the id itself when it names no target. */
void dc_hip_entry_name(const struct dc_hip_entry *e, char *buf, size_t cap);

#endif
