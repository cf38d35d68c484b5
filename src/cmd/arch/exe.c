/* A program's part of its file report in `arch`: each CUDA DLL it imports and where Windows
 * would load it from (probe/win_exe.c), judged by rules_win_exe, as "dll_search". */
#include <stdlib.h>

#include "cmd/arch/arch.h"
#include "os/fs.h"
#include "probe/win_exe.h"
#include "rules/rules.h"
#include "util/err.h"

#define MAX_COLS 12

int arch_exe_fields(struct report_rec *file, const struct arch_file *f)
{
	struct report *r = file->r;
	struct win_side_opts wo;
	struct win_side ws = {0};
	struct win_exe x;
	struct win_exe_opts xo = {0};
	struct report_rec tab, row;
	const char *hdr[MAX_COLS];
	char err[CD_ERRMSG] = "";
	/* the Windows side's drive and PATH, and this process's current folder */
	char *buf = malloc(3 * FACTS_PATH);
	size_t ncols;
	int rc = CD_OK;

	if (f->member || !win_exe_is_program(f->data, f->size))
		return CD_OK;
	if (!buf)
		return CD_ENOMEM;
	if (win_side_locate(&wo, buf, buf + FACTS_PATH, FACTS_PATH)) {
		xo.side = &wo;
		if (win_side_probe(&ws, &wo, err) != CD_OK) {
			rc = CD_ENOMEM;
			goto out;
		}
		xo.ws = &ws;
		if (os_getcwd(buf + 2 * FACTS_PATH, FACTS_PATH))
			xo.cwd = buf + 2 * FACTS_PATH;
	}
	if ((rc = win_exe_probe(&x, f->path, f->data, f->size, &xo, err)) != CD_OK) {
		rc = rc == CD_ENOMEM ? rc : CD_OK; /* its headers were already read as the file's */
		goto out;
	}
	if (x.n == 0) {
		win_exe_free(&x);
		goto out;
	}
	if ((rc = rules_win_exe(&x, r)) != CD_OK)
		goto done;
	report_rec_section(file, "CUDA DLLs, as Windows looks for them (%s)",
			   x.windows ? x.from : "its own folder only: no Windows drive found");
	report_field(file, NULL, "dll_search_from", x.windows ? rv_str(x.from) : rv_null());
	report_field(file, NULL, "current_folder", x.cwd[0] ? rv_str(x.cwd) : rv_null());
	ncols = report_fields_headers(&win_exe_dll_field_table, FIELD_BRIEF, hdr, MAX_COLS);
	report_rec_table(file, "dll_search", ncols, hdr, &tab);
	for (size_t i = 0; i < x.n; i++) {
		report_rec_item(&tab, &row);
		report_fields(&row, &win_exe_dll_field_table, &x.d[i], FIELD_BRIEF);
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	rc = report_rec_end(&tab);
done:
	win_exe_free(&x);
out:
	win_side_free(&ws);
	free(buf);
	return rc;
}
