/* A program's DLL search, through win_exe_dll_field_table: the section arch's file report and
 * doctor's program both show. */
#include "show/win_exe.h"

#include "util/err.h"

#define MAX_COLS 12

int show_win_exe(struct report_rec *parent, const struct win_exe *x)
{
	struct report_rec tab, row;
	const char *hdr[MAX_COLS];
	size_t ncols = report_fields_headers(&win_exe_dll_field_table, FIELD_BRIEF, hdr, MAX_COLS);

	report_rec_section(parent, "CUDA DLLs of %s, as Windows looks for them (%s)", x->exe,
			   x->windows ? x->from : "its own folder only: no Windows drive found");
	report_field(parent, NULL, "dll_search_from", x->windows ? rv_str(x->from) : rv_null());
	report_field(parent, NULL, "current_folder", x->cwd[0] ? rv_str(x->cwd) : rv_null());
	report_rec_table(parent, "dll_search", ncols, hdr, &tab);
	for (size_t i = 0; i < x->n; i++) {
		report_rec_item(&tab, &row);
		report_fields(&row, &win_exe_dll_field_table, &x->d[i], FIELD_BRIEF);
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	return report_rec_end(&tab);
}
