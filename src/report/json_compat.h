/* JSON keys renamed since earlier releases, in one table: a reader of stored reports
 * (fleet, diff) upgrades an old report first and then reads one spelling only. */
#ifndef CUDOCTOR_REPORT_JSON_COMPAT_H
#define CUDOCTOR_REPORT_JSON_COMPAT_H

#include <jansson.h>
#include <stddef.h>

/* In a report of command, the key at path from is now at path to. A path is keys joined
 * by '.', with "[]" after a key for every element of that array ("gpus[].index"); from and
 * to share their array part. */
struct json_rename {
	const char *command;
	const char *from, *to;
	const char *until; /* the last release that wrote the old spelling */
};

extern const struct json_rename json_renames[];
extern const size_t n_json_renames;

/* Rewrites root, a report of its "command", to today's spelling: every old key present
 * whose new place is free moves there (objects made on the way, an object left empty
 * removed). Anything of another shape than expected is left alone. CD_OK or CD_ENOMEM. */
int report_json_upgrade(json_t *root);

#endif
