/* The names of a fact's sources (facts/textfacts.h), as the JSON gives them. */
#include "facts/textfacts.h"

const char *fact_source_name(enum fact_source s)
{
	static const char *const names[] = { NULL, "text", "here", "given" };

	return names[s];
}
