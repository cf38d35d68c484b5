/* The device code field tables (facts/devcode.h): images, SASS kernels' resources and AMD
 * kernels' resources, each described once for arch's tables and its JSON. */
#include "facts/devcode.h"

#include <stdio.h>
#include <string.h>

#include "binfmt/fatbin.h"
#include "util/units.h"

/* ---- images[] ---- */

static const struct dc_image *image(const void *obj)
{
	const struct dc_image_ref *r = obj;

	return &r->inv->images[r->i];
}

static const struct dc_container *container(const void *obj)
{
	const struct dc_image_ref *r = obj;

	return &r->inv->containers[image(obj)->container];
}

static bool str(struct field_value *v, const char *s)
{
	v->kind = s ? FV_STR : FV_NULL;
	v->s = s;
	return s != NULL;
}

static bool integer(struct field_value *v, long long i)
{
	v->kind = FV_INT;
	v->i = i;
	return true;
}

static bool im_number(const void *obj, struct field_value *v)
{
	return integer(v, (long long)((const struct dc_image_ref *)obj)->i + 1);
}

/* unknown kinds are "other" in JSON (kind_number says which) and keep their number in text */
static bool im_kind(const void *obj, struct field_value *v)
{
	const char *n = fatbin_kind_name(image(obj)->kind);

	return str(v, n ? n : "other");
}

static void im_kind_text(const void *obj, char *buf, size_t len)
{
	uint16_t kind = image(obj)->kind;

	if (fatbin_kind_name(kind))
		snprintf(buf, len, "%s", fatbin_kind_name(kind));
	else
		snprintf(buf, len, "other(%u)", kind);
}

static bool im_kind_number(const void *obj, struct field_value *v)
{
	uint16_t kind = image(obj)->kind;

	return !fatbin_kind_name(kind) && integer(v, kind);
}

static bool im_arch(const void *obj, struct field_value *v)
{
	dc_image_arch_name(image(obj), v->buf, sizeof v->buf);
	return str(v, v->buf);
}

static bool im_section(const void *obj, struct field_value *v)
{
	const struct dc_image_ref *r = obj;

	return str(v, r->inv->sections[container(obj)->section]);
}

static void im_section_text(const void *obj, char *buf, size_t len)
{
	const struct dc_image_ref *r = obj;
	const char *s = r->inv->sections[container(obj)->section];

	snprintf(buf, len, "%s", s[0] ? s : "(file)");
}

static bool im_member(const void *obj, struct field_value *v)
{
	const struct dc_image_ref *r = obj;
	int m = container(obj)->member;

	return m >= 0 && str(v, r->inv->members[m]);
}

static bool im_ptx(const void *obj, struct field_value *v)
{
	const struct dc_image *im = image(obj);

	if (im->kind != FATBIN_KIND_PTX)
		return false;
	snprintf(v->buf, sizeof v->buf, "%u.%u", im->ptx_major, im->ptx_minor);
	return str(v, v->buf);
}

static bool im_compression(const void *obj, struct field_value *v)
{
	enum fatbin_compression c = image(obj)->compression;

	return str(v, c == FATBIN_LZ4 ? "lz4" : c == FATBIN_ZSTD ? "zstd" : "none");
}

static bool im_stored(const void *obj, struct field_value *v)
{
	return integer(v, (long long)image(obj)->stored_bytes);
}

static bool im_uncompressed(const void *obj, struct field_value *v)
{
	return integer(v, (long long)image(obj)->uncompressed_bytes);
}

static bool im_debug(const void *obj, struct field_value *v)
{
	v->kind = FV_BOOL;
	v->b = image(obj)->debug;
	return true;
}

static bool im_identifier(const void *obj, struct field_value *v)
{
	return str(v, image(obj)->identifier);
}

static bool im_container(const void *obj, struct field_value *v)
{
	return integer(v, image(obj)->container);
}

static bool im_offset(const void *obj, struct field_value *v)
{
	return integer(v, (long long)image(obj)->file_offset);
}

static const struct field dc_image_fields[] = {
	{ .label = "#", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = im_number },
	{ .key = "kind", .label = "kind", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = im_kind,
	  .text = im_kind_text },
	{ .key = "kind_number", .kind = FK_CALC, .valid = FIELD_ALWAYS, .flags = FIELD_OMIT, .get = im_kind_number },
	{ .key = "arch", .label = "arch", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = im_arch },
	{ .key = "section", .label = "section", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .get = im_section, .text = im_section_text },
	{ .key = "member", .label = "member", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .flags = FIELD_OMIT, .get = im_member },
	{ .key = "ptx_isa", .label = "ptx", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .flags = FIELD_OMIT, .get = im_ptx },
	{ .key = "compression", .label = "compression", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .get = im_compression },
	{ .key = "stored_bytes", .label = "stored", .kind = FK_CALC, .unit = FU_BYTES, .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL, .get = im_stored },
	{ .key = "uncompressed_bytes", .label = "uncompressed", .kind = FK_CALC, .unit = FU_BYTES,
	  .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = im_uncompressed },
	{ .key = "debug", .label = "debug", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .flags = FIELD_QUIET, .get = im_debug },
	{ .key = "identifier", .label = "identifier", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .flags = FIELD_OMIT, .get = im_identifier },
	{ .key = "container", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = im_container },
	{ .key = "offset", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = im_offset },
};

const struct field_table dc_image_field_table = {
	"arch.files[].images[]", dc_image_fields, sizeof dc_image_fields / sizeof dc_image_fields[0], -1, NULL, NULL,
};

/* ---- a SASS kernel's resources ---- */

#define K(m) offsetof(struct cubin_kernel_row, m)

static void dims(const unsigned d[3], long long out[3], bool *has)
{
	*has = d[0] != 0;
	out[0] = d[0];
	out[1] = d[1] ? d[1] : 1;
	out[2] = d[2] ? d[2] : 1;
}

void cubin_kernel_row_make(const struct cubin_kernel_res *k, struct cubin_kernel_row *out)
{
	out->k = *k;
	dims(k->max_threads, out->max_threads, &out->has_max_threads);
	dims(k->reqntid, out->reqntid, &out->has_reqntid);
}

/* "32 (cap 64)", "?" when not recorded */
static bool k_registers_text(const void *obj, struct field_value *v)
{
	const struct cubin_kernel_res *k = &((const struct cubin_kernel_row *)obj)->k;
	size_t n;

	if (k->has_registers)
		snprintf(v->buf, sizeof v->buf, "%u", k->registers);
	else
		snprintf(v->buf, sizeof v->buf, "?");
	n = strlen(v->buf);
	if (k->maxreg)
		snprintf(v->buf + n, sizeof v->buf - n, " (cap %u)", k->maxreg);
	return str(v, v->buf);
}

/* the parameters' bank, and the kernel's other constant banks after a "+" */
static void k_constant_text(const void *obj, char *buf, size_t len)
{
	const struct cubin_kernel_res *k = &((const struct cubin_kernel_row *)obj)->k;
	char p[UNITS_BUF], c[UNITS_BUF];

	units_fmt_bytes(k->param_bytes, p, sizeof p);
	if (k->kernel_const)
		snprintf(buf, len, "%s + %s", p, units_fmt_bytes(k->kernel_const, c, sizeof c));
	else
		snprintf(buf, len, "%s", p);
}

/* "exactly 128" (a required shape), "256", "16x16x1"; "-" when none */
static bool k_bounds_text(const void *obj, struct field_value *v)
{
	const struct cubin_kernel_res *k = &((const struct cubin_kernel_row *)obj)->k;
	const unsigned *d = k->reqntid[0] ? k->reqntid : k->max_threads;

	if (!d[0])
		return str(v, "-");
	if (d[1] > 1 || d[2] > 1)
		snprintf(v->buf, sizeof v->buf, "%s%ux%ux%u", k->reqntid[0] ? "exactly " : "", d[0], d[1], d[2]);
	else
		snprintf(v->buf, sizeof v->buf, "%s%u", k->reqntid[0] ? "exactly " : "", d[0]);
	return str(v, v->buf);
}

static const struct field cubin_kernel_fields[] = {
	{ .key = "name", .label = "kernel", .kind = FK_CSTR, .off = K(k.name), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL, .flags = FIELD_EMPTY_KNOWN },
	{ .label = "registers", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = k_registers_text },
	{ .key = "registers", .kind = FK_UINT, .off = K(k.registers), .valid = FIELD_ALWAYS, .flags = FIELD_IF_FLAG,
	  .flag = K(k.has_registers) },
	{ .key = "static_shared_bytes", .label = "static shared", .kind = FK_ULLONG, .unit = FU_BYTES,
	  .off = K(k.static_shared), .valid = FIELD_ALWAYS, .views = FIELD_ALL },
	{ .key = "reserved_shared_bytes", .kind = FK_ULLONG, .off = K(k.reserved_shared), .valid = FIELD_ALWAYS },
	{ .key = "local_bytes", .label = "local", .kind = FK_ULLONG, .unit = FU_BYTES, .off = K(k.frame_bytes),
	  .valid = FIELD_ALWAYS, .views = FIELD_ALL },
	{ .key = "min_stack_bytes", .kind = FK_ULLONG, .off = K(k.min_stack_bytes), .valid = FIELD_ALWAYS },
	{ .key = "crs_stack_bytes", .kind = FK_ULLONG, .off = K(k.crs_stack_bytes), .valid = FIELD_ALWAYS },
	{ .key = "param_bytes", .label = "constant", .kind = FK_ULLONG, .off = K(k.param_bytes), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL, .text = k_constant_text },
	{ .key = "constant_bytes", .kind = FK_ULLONG, .off = K(k.kernel_const), .valid = FIELD_ALWAYS },
	{ .key = "max_registers", .kind = FK_UINT, .off = K(k.maxreg), .valid = FIELD_ALWAYS,
	  .flags = FIELD_ZERO_UNKNOWN },
	{ .label = "launch bounds", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = k_bounds_text },
	{ .key = "max_threads", .kind = FK_DIMS, .off = K(max_threads), .valid = FIELD_ALWAYS, .flags = FIELD_IF_FLAG,
	  .flag = K(has_max_threads) },
	{ .key = "reqntid", .kind = FK_DIMS, .off = K(reqntid), .valid = FIELD_ALWAYS, .flags = FIELD_IF_FLAG,
	  .flag = K(has_reqntid) },
};

const struct field_table cubin_kernel_field_table = {
	"arch.files[].resources[].kernels[]", cubin_kernel_fields, sizeof cubin_kernel_fields / sizeof cubin_kernel_fields[0],
	-1, NULL, NULL,
};

/* ---- an AMD kernel's resources ---- */

#define A(m) offsetof(struct amdgpu_kernel, m)

static bool a_name(const void *obj, struct field_value *v)
{
	const struct amdgpu_kernel *k = obj;

	return str(v, k->name ? k->name : "");
}

/* "4 SGPR, 0 VGPR", "?" for a count not given */
static bool a_spills_text(const void *obj, struct field_value *v)
{
	const struct amdgpu_kernel *k = obj;
	char s[24] = "?", g[24] = "?";

	if (k->sgpr_spills != AMDGPU_UNKNOWN)
		snprintf(s, sizeof s, "%llu", (unsigned long long)k->sgpr_spills);
	if (k->vgpr_spills != AMDGPU_UNKNOWN)
		snprintf(g, sizeof g, "%llu", (unsigned long long)k->vgpr_spills);
	snprintf(v->buf, sizeof v->buf, "%s SGPR, %s VGPR", s, g);
	return str(v, v->buf);
}

/* a count the code object does not give (AMDGPU_UNKNOWN) reads as -1: unknown, "?" */
#define AMD_COUNT(k, l, m) { .key = k, .label = l, .kind = FK_ULLONG, .off = A(m), .valid = FIELD_ALWAYS, \
			     .views = (l) ? FIELD_ALL : 0, .flags = FIELD_NEG_UNKNOWN, .unknown = "?" }
#define AMD_BYTES(k, l, m) { .key = k, .label = l, .kind = FK_ULLONG, .unit = FU_BYTES, .off = A(m), \
			     .valid = FIELD_ALWAYS, .views = FIELD_ALL, .flags = FIELD_NEG_UNKNOWN, .unknown = "?" }

static const struct field amdgpu_kernel_fields[] = {
	{ .key = "name", .label = "kernel", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = a_name },
	AMD_COUNT("sgprs", "SGPRs", sgprs),
	AMD_COUNT("vgprs", "VGPRs", vgprs),
	AMD_COUNT("agprs", "AGPRs", agprs),
	AMD_BYTES("lds_bytes", "LDS", group_bytes),
	AMD_BYTES("scratch_bytes", "scratch", private_bytes),
	{ .label = "spills", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = a_spills_text },
	AMD_COUNT("sgpr_spills", NULL, sgpr_spills),
	AMD_COUNT("vgpr_spills", NULL, vgpr_spills),
	AMD_COUNT("kernarg_bytes", NULL, kernarg_bytes),
	AMD_COUNT("wavefront_size", "wave", wavefront),
	AMD_COUNT("max_workgroup_size", "max block", max_workgroup),
};

const struct field_table amdgpu_kernel_field_table = {
	"arch.files[].resources[].kernels[] (AMD)", amdgpu_kernel_fields,
	sizeof amdgpu_kernel_fields / sizeof amdgpu_kernel_fields[0], -1, NULL, NULL,
};
