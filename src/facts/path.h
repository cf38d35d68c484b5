/* The size of a path buffer in the facts (PATH_MAX on Linux), shared with the probes. */
#ifndef CUDOCTOR_FACTS_PATH_H
#define CUDOCTOR_FACTS_PATH_H

#define FACTS_PATH 4096

#endif
