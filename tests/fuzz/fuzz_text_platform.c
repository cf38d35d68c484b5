/* A pasted text's platform: the line reader over arbitrary bytes (not NUL-terminated, any
 * length, lines longer than its buffer), each marker's check at the ends of a line, the
 * decision, the id re-reading and the field table's text. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "explain/text_platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ids[] = { "out-of-memory", "no-driver", "torch-cpu-only", "no-kernel-image", "rocm-error" };
	struct text_platform p;
	struct field_value v;

	text_platform_read((const char *)data, size, size && (data[0] & 1), &p);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		(void)text_platform_finding(&p, ids[i]);
	(void)text_platform_cuda(&p);
	for (size_t i = 0; i < text_platform_field_table.n; i++)
		(void)field_value_of(&text_platform_field_table, &text_platform_field_table.fields[i], &p, &v);
	return 0;
}
