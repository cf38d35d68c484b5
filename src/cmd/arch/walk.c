/* One input of `arch`: a file mapped and judged in place, or a zip archive (wheel) whose
 * members that can carry device code are read one at a time (libraries and programs from a
 * stream, member.c) and judged as files are. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfmt/conda.h"
#include "binfmt/cubin.h"
#include "binfmt/elf.h"
#include "binfmt/pe.h"
#include "binfmt/zip.h"
#include "cmd/arch/arch.h"
#include "cmd/cmd.h"
#include "os/map.h"
#include "util/err.h"
#include "util/file.h"
#include "util/safetext.h"
#include "util/str.h"

/* Releases the pages a walk has passed, so memory stays flat on gigabyte libraries. */
struct release_ctx {
	const unsigned char *base;
	size_t done;
};

#define RELEASE_STEP ((size_t)8 << 20)

static void release_behind(const unsigned char *upto, void *ctx)
{
	struct release_ctx *rc = ctx;
	size_t page = os_page_size();
	size_t to = (size_t)(upto - rc->base) & ~(page - 1);
	if (to < rc->done) /* a section before those walked first is searched */
		rc->done = to;
	if (to > rc->done + RELEASE_STEP) {
		os_map_release(rc->base + rc->done, to - rc->done);
		rc->done = to;
	}
}

static unsigned scan_opts(const struct arch_opts *o, bool explicit_input)
{
	if (o->cuobjdump)
		return DC_READ_ELF;
	if (o->llvm_offloading)
		return 0; /* named sections only: llvm-readobj searches nothing */
	return (explicit_input ? DC_SCAN_ALL_SECTIONS : DC_SCAN_IF_CUDA) | (o->all_sections ? DC_SCAN_EVERY_SECTION : 0);
}

/* Counts v (one verdict per GPU of t) into the tally; true when the file deserves its details
 * in a summary: some GPU runs it other than natively. A file with no verdict (no device
 * code) is counted nowhere and needs no details. */
static bool tally_file(struct arch_tally *tally, const struct arch_target *t, const struct arch_verdict *v)
{
	bool details = false;

	for (size_t i = 0; i < t->n_gpus; i++) {
		if (v[i].verdict == VERDICT_NONE)
			continue;
		tally[i].n[v[i].verdict]++;
		details |= v[i].verdict != VERDICT_NATIVE;
	}
	return details;
}

/* A file or member that could not be read: its one-line error ("NAME: why"), a section
 * unless --cuobjdump, and an object of "files". */
/* rc: why it failed; out of memory is the run's failure (r->oom), not the file's */
static void file_error(struct arch_walk *w, const char *name, int rc, const char *why)
{
	struct report_rec rec;
	char err[CD_ERRMSG], safe_name[CD_ERRMSG];
	size_t mark = report_items_mark(w->files->r);

	if (rc == CD_ENOMEM) {
		w->files->r->oom = true;
		return;
	}
	w->failed++;
	/* an archive's first errors are said; the rest are counted (archive_errors_left) */
	if (w->archive && !archive_budget_error(w->archive))
		return;
	/* why is safe text already (cd_fail): a name with escapes is found in it made safe too */
	safe_text(safe_name, sizeof safe_name, name, strlen(name), 0);
	if (strstr(why, safe_name))
		snprintf(err, sizeof err, "%s", why);
	else
		cd_fail(err, CD_EFORMAT, "%s: %s", name, why);
	progress_end(w->prog); /* the error line starts on a clean line */
	cmd_input_error(w->files->r, "arch", err);
	report_rec_item(w->files, &rec);
	report_rec_section(&rec, "%s", name);
	report_rec_line(&rec, "error: %s", err);
	report_field(&rec, NULL, "path", rv_str(name));
	report_field(&rec, NULL, "error", rv_str(err));
	cmd_note(w->files->r, report_rec_end(&rec));
	w->shown += report_items_mark(w->files->r) > mark;
}

/* f scanned: listed and judged (or its cuobjdump lines); in a summary kept only when some GPU
 * does not run it natively. */
static void judge_scanned(struct arch_walk *w, struct arch_file *f, bool explicit_input, struct release_ctx *rel)
{
	const struct arch_opts *o = w->o;
	struct report *r = w->files->r;
	size_t mark = report_items_mark(r);
	struct arch_verdict *v = NULL;
	bool details = false;

	w->with_code += f->inv.format != DC_NO_DEVICE_CODE;
	if (o->llvm_offloading && explicit_input && arch_llvm_summary(f, &w->llvm_summaries) != CD_OK)
		r->oom = true;
	if (!explicit_input && f->inv.format == DC_NO_DEVICE_CODE)
		return; /* found in a directory or an archive: only what has device code is reported */
	w->listed++;
	if (o->llvm_offloading) {
		arch_llvm_offloading_lines(f, stdout);
		return;
	}
	if (o->cuobjdump) {
		unsigned elf_no = 0, ptx_no = 0;
		arch_cuobjdump_lines(f, &elf_no, &ptx_no, stdout);
		return;
	}
	if (!(v = calloc(o->target.n_gpus ? o->target.n_gpus : 1, sizeof(*v)))) {
		r->oom = true;
		return;
	}
	if (rel)
		rel->done = 0; /* the judge reads small payloads in file order: release behind it too */
	arch_file_fields(w->files, f, o, v);
	details = tally_file(w->tally, &o->target, v);
	free(v);
	if (w->summary && !details)
		report_items_truncate(r, mark); /* runs natively everywhere: counted, not shown */
	else if (report_items_mark(r) > mark)
		w->shown++;
}

/* Whether a member that starts so is judged from a stream (member.c): host ELF and PE files,
 * unless an option needs their images whole. */
static bool streamed(const struct arch_opts *o, const unsigned char *head, size_t got)
{
	if (o->kernels || o->resources)
		return false;
	return pe_has_magic(head, got) || (elf_has_magic(head, got) && !cubin_is_cubin(head, got));
}

void arch_file_error(struct arch_walk *w, const char *name, int rc, const char *why)
{
	file_error(w, name, rc, why);
}

char *arch_member_path(const char *path, const char *member, size_t len)
{
	char *safe = safe_text_dup(member, len, SIZE_MAX, 0), *name;

	if (!safe)
		return NULL;
	name = malloc(strlen(path) + 1 + strlen(safe) + 1);
	if (name)
		sprintf(name, "%s!%s", path, safe);
	free(safe);
	return name;
}

/* The errors of the archive at path past the ones said, as one more; the walk leaves it. */
static void archive_errors_left(struct arch_walk *w, const char *path)
{
	struct archive_budget *b = w->archive;
	char err[CD_ERRMSG];

	w->archive = NULL;
	if (!b || b->errors <= ARCHIVE_ERRORS_SAID)
		return;
	snprintf(err, sizeof err, "%zu more errors in this archive, not listed one by one", b->errors - ARCHIVE_ERRORS_SAID);
	file_error(w, path, CD_EFORMAT, err);
	w->failed--; /* each was counted where it was met */
}

void arch_judge_member(struct arch_walk *w, const char *name, size_t prefix_len, const unsigned char *head,
		       size_t got, const struct arch_source *src, const struct arch_member_release *rel)
{
	struct arch_file f = {0};
	struct arch_member am = {0};
	unsigned char *buf = NULL;
	size_t len = 0;
	char err[CD_ERRMSG] = "";
	int rc = CD_EUNSUPPORTED;

	if (streamed(w->o, head, got) && (rc = arch_member_stream(src, scan_opts(w->o, false), rel, &am, err)) == CD_OK) {
		f.data = am.map;
		f.size = am.size;
	} else if (rc == CD_EUNSUPPORTED) {
		rc = arch_member_whole(src, &buf, &len, err);
		f.data = buf;
		f.size = len;
	}
	f.path = name;
	f.member = name + prefix_len;
	dc_init(&f.inv);
	if (rc == CD_OK)
		rc = dc_scan(&f.inv, f.data, f.size, scan_opts(w->o, false), err);
	if (rc)
		file_error(w, name, rc, err);
	else
		judge_scanned(w, &f, false, NULL);
	dc_free(&f.inv);
	arch_member_free(&am);
	free(buf);
}

/* Every member of the zip archive at data that can carry device code, judged as
 * "PATH!MEMBER"; a conda package's payload tarball, each of its entries so. A damaged central
 * directory fails the whole archive; a damaged member only itself. */
static void walk_zip(struct arch_walk *w, const char *path, const unsigned char *data, size_t size)
{
	struct zip_archive z;
	struct zip_member m;
	struct release_ctx zrel = {.base = data};
	const struct arch_member_release rel = {release_behind, &zrel};
	struct archive_budget budget;
	/* a conda package's payload is read only in a conda package */
	bool conda = str_ends_with(path, ".conda");
	char err[CD_ERRMSG] = "";
	int more, rc;

	if ((rc = zip_open(&z, data, size, err)) != CD_OK || (rc = zip_find_overlaps(&z, err)) != CD_OK) {
		file_error(w, path, rc, err);
		return;
	}
	archive_budget_init(&budget, size);
	z.budget = &budget;
	w->archive = &budget;
	while ((more = zip_next(&z, &m, err)) > 0) {
		unsigned char head[ARCH_MEMBER_HEAD];
		size_t got = 0;
		char *name = NULL;
		struct arch_source src;
		struct arch_zip_source zsrc;

		if (archive_budget_spent(&budget))
			break;
		if (!(name = arch_member_path(path, m.name, m.name_len))) {
			w->files->r->oom = true;
			break;
		}
		/* central entries that share a member's bytes would inflate them once each */
		if (m.overlaps) {
			file_error(w, name, CD_EFORMAT, "its bytes overlap another member's (a crafted archive); skipped");
			free(name);
			continue;
		}
		if (conda && conda_is_pkg_member(m.name, m.name_len)) {
			arch_walk_tar(w, path, &z, &m, NULL, 0, &rel);
			free(name);
			continue;
		}
		if (!dc_name_may_carry_code(m.name, m.name_len)) {
			free(name);
			continue;
		}
		w->searched++;
		/* a member that is no format arch reads is not inflated whole */
		rc = zip_member_head(&z, &m, head, sizeof head, &got, err);
		if (rc)
			file_error(w, name, rc, err);
		else if (dc_has_magic(head, got)) {
			arch_zip_source(&src, &zsrc, &z, &m);
			arch_judge_member(w, name, strlen(path) + 1, head, got, &src, &rel);
		}
		free(name);
	}
	if (more < 0)
		file_error(w, path, CD_EFORMAT, err);
	archive_errors_left(w, path);
	zip_close(&z);
}

void arch_walk_input(struct arch_walk *w, const char *path, bool explicit_input)
{
	struct mapped_file mf;
	struct arch_file f = {.path = path};
	char err[CD_ERRMSG] = "";
	struct release_ctx rel = {0};
	int rc;

	dc_init(&f.inv);
	if ((rc = file_map(path, &mf, err)) != CD_OK) {
		w->searched++;
		file_error(w, path, rc, err);
		goto out;
	}
	if (explicit_input && zip_has_magic(mf.data, mf.size)) {
		walk_zip(w, path, mf.data, mf.size);
		if (!file_map_intact(&mf))
			file_error(w, path, CD_EIO, "the file was cut short while it was read");
		goto out;
	}
	if (explicit_input && conda_has_zstd_magic(mf.data, mf.size)) {
		struct archive_budget budget;

		rel.base = mf.data;
		const struct arch_member_release trel = {release_behind, &rel};
		archive_budget_init(&budget, mf.size);
		w->archive = &budget;
		arch_walk_tar(w, path, NULL, NULL, mf.data, mf.size, &trel);
		archive_errors_left(w, path);
		if (!file_map_intact(&mf))
			file_error(w, path, CD_EIO, "the file was cut short while it was read");
		goto out;
	}
	w->searched++;
	f.data = mf.data;
	f.size = mf.size;
	rel.base = mf.data;
	f.inv.progress = release_behind;
	f.inv.progress_ctx = &rel;
	rc = dc_scan(&f.inv, mf.data, mf.size, scan_opts(w->o, explicit_input), err);
	if (rc == CD_OK && !file_map_intact(&mf))
		rc = cd_fail(err, CD_EIO, "the file was cut short while it was read");
	if (rc) {
		file_error(w, path, rc, err);
		goto out;
	}
	judge_scanned(w, &f, explicit_input, &rel);
out:
	dc_free(&f.inv);
	file_unmap(&mf);
}
