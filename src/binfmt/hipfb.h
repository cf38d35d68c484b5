/* HIP device code as clang writes it into a host binary: offload bundles
 * (__CLANG_OFFLOAD_BUNDLE__), compressed bundles (CCOB v1-v3, zlib or zstd), their entry ids
 * and target ids, and the HIPF wrappers of .hipFatBinSegment (ClangOffloadBundler.rst,
 * llvm/Object/OffloadBundle.h). Read from headers only; nothing here knows about GPUs. */
#ifndef CUDOCTOR_BINFMT_HIPFB_H
#define CUDOCTOR_BINFMT_HIPFB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HIPFB_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define HIPFB_MAGIC_LEN 24
#define HIPFB_CCOB_MAGIC "CCOB"
#define HIPFB_CCOB_MAGIC_LEN 4
#define HIPFB_WRAPPER_MAGIC 0x48495046u /* "HIPF" */
#define HIPFB_WRAPPER_SIZE 24
#define HIPFB_HEADER_MIN (HIPFB_MAGIC_LEN + 8)  /* magic and the entry count */
#define HIPFB_ENTRY_MIN 24                      /* offset, size, id length */
#define HIPFB_ID_MAX 4096                       /* a longer entry id is not clang's */

enum hipfb_method { HIPFB_ZLIB = 0, HIPFB_ZSTD = 1 };

/* A compressed bundle's header (OffloadBundle.h: V1 20 bytes, V2 24, V3 32). */
struct hipfb_ccob {
	unsigned version;           /* 1, 2 or 3 */
	enum hipfb_method method;
	size_t header_size;
	uint64_t total_size;        /* V2, V3: header and compressed bytes; 0 in V1 */
	uint64_t uncompressed_size; /* of the bundle it inflates to */
	uint64_t hash;              /* the low 64 bits of the MD5 of that bundle */
};

/* One entry of a bundle, as its header gives it. */
struct hipfb_entry {
	uint64_t offset;            /* from the bundle's first byte */
	uint64_t size;
	const char *id;             /* id_len bytes inside the buffer, not NUL-terminated */
	size_t id_len;
};

/* A walk over a bundle's entries. */
struct hipfb_bundle {
	const unsigned char *data;  /* the bundle's first byte */
	size_t size;                /* bytes available from there */
	uint64_t count;             /* entries the header declares */
	uint64_t read;              /* entries read so far */
	size_t pos;                 /* the next entry's header */
	uint64_t extent;            /* the end of the furthest entry read (at least the header's end) */
	size_t short_of;            /* on CD_EFORMAT: the bytes from data the header needs, when only
				       the buffer's end stopped it (0: malformed in itself) */
};

bool hipfb_is_bundle(const unsigned char *p, size_t n);
bool hipfb_is_ccob(const unsigned char *p, size_t n);

/* The bundle at data (size bytes available): its magic and entry count. A count that cannot
 * fit (each entry takes 24 bytes) is CD_EFORMAT. */
int hipfb_open(struct hipfb_bundle *b, const unsigned char *data, size_t size, char *err);
/* The next entry: 1 got one, 0 past the last, CD_EFORMAT when its header is cut by the
 * buffer's end (b->short_of set) or its id is longer than HIPFB_ID_MAX. */
int hipfb_next(struct hipfb_bundle *b, struct hipfb_entry *e, char *err);

/* The compressed bundle's header at data. CD_EFORMAT: too short, an unknown version or
 * method, or (V2, V3) a total size below the header's or above size. */
int hipfb_ccob_header(const unsigned char *data, size_t size, struct hipfb_ccob *h, char *err);

/* The first bytes of the bundle a compressed one inflates to: src is the compressed data
 * after the header (src_len bytes), at most want bytes are produced into a malloc'ed *out
 * (caller frees). *complete is true when the whole bundle was produced and its size is the
 * header's. CD_EFORMAT on a corrupt stream, CD_EUNSUPPORTED when want is 0, CD_ENOMEM. */
int hipfb_ccob_inflate(const struct hipfb_ccob *h, const unsigned char *src, size_t src_len, size_t want,
		       unsigned char **out, size_t *out_len, bool *complete, char *err);

/* An entry id, <kind>-<triple>[-<target id>] ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-",
 * "host-x86_64-unknown-linux-gnu-"); the triple has four parts, or three in old bundles
 * ("hip-amdgcn-amd-amdhsa-gfx906"). Each field is a slice of the id. */
struct hipfb_id {
	const char *kind; size_t kind_len;         /* "hipv4", "hip", "host", "openmp" */
	const char *arch; size_t arch_len;         /* the triple's first part: "amdgcn", "spirv64", "x86_64" */
	const char *triple; size_t triple_len;     /* "amdgcn-amd-amdhsa-" */
	const char *target; size_t target_len;     /* "gfx90a:xnack-", "gfx11-generic", "" */
};
void hipfb_parse_id(const char *id, size_t len, struct hipfb_id *out);

/* A target feature's setting in a target id or a code object's flags. */
enum hipfb_feature { HIPFB_FEAT_ANY = 0, HIPFB_FEAT_ON, HIPFB_FEAT_OFF };

/* A target id, processor(:feature(+|-))* ("gfx90a:sramecc+:xnack-"). false when it is not
 * one: no processor, or a feature other than sramecc/xnack, or a setting other than + or -. */
struct hipfb_target {
	char processor[32];         /* "gfx90a", "gfx11-generic", "amdgcnspirv" */
	enum hipfb_feature xnack, sramecc;
};
bool hipfb_parse_target(const char *target, size_t len, struct hipfb_target *out);
/* "gfx90a:sramecc+:xnack-": the canonical spelling (features sorted, as clang writes them). */
void hipfb_target_name(const struct hipfb_target *t, char *buf, size_t cap);

/* The HIPF wrappers of a .hipFatBinSegment section's bytes: how many there are (24 bytes
 * each, magic and version 1); a section that is not whole wrappers counts what precedes. */
size_t hipfb_wrapper_count(const unsigned char *data, size_t size);

#endif
