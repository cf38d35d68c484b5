/* Node names and finding ids from reports, checked against their alphabets (RFC 1123;
 * docs/findings.md) before anything of the report is kept. */
#include "fleet/names.h"

#include <string.h>

static bool alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool fleet_node_name_ok(const char *s)
{
	size_t len = strlen(s), label = 0;

	if (len == 0 || len > 253)
		return false;
	for (size_t i = 0; i <= len; i++) {
		char c = s[i];

		if (c == '.' || c == '\0') {
			/* a label: 1..63 bytes, neither starting nor ending with '-' */
			if (label == 0 || label > 63 || s[i - label] == '-' || s[i - 1] == '-')
				return false;
			label = 0;
			continue;
		}
		if (!alnum(c) && c != '-')
			return false;
		label++;
	}
	return true;
}

bool fleet_finding_id_ok(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len > FLEET_ID_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}
