/* What an NCCL log says (NCCL_DEBUG=INFO/WARN/TRACE lines, and the errors PyTorch prints
 * around them), as facts: the versions ranks report, the transport of each channel between two
 * ranks, the network and bootstrap interface, and the failures seen. explain/nccl_log.h reads
 * a log into them; rules/nccl.h judges them. */
#ifndef CUDOCTOR_FACTS_NCCL_LOG_H
#define CUDOCTOR_FACTS_NCCL_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/field.h"

#define NCCL_LOG_LINE 240   /* characters of a line kept as evidence */
#define NCCL_LOG_VERSIONS 8
#define NCCL_LOG_CHANNELS 512
#define NCCL_LOG_HOSTS 16

/* "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read"; before 2.5 "Ring 00 : 0[0] -> 1[1] via direct
 * shared memory" (SHM) and "Ring 00 : 15 -> 0 [send] via NET/Socket/0" (no device) */
struct nccl_channel {
	int channel;
	int src_rank, dst_rank;
	char src_dev[24], dst_dev[24];   /* the bracketed device: CUDA ordinal or PCI bus id */
	char transport[12];              /* "P2P", "SHM", "NET", "COLLNET" */
	char via[48];                    /* everything after "via ": "P2P/CUMEM/read", "NET/IB/0/GDRDMA" */
};

/* Things the log says happened; each keeps how often and the first line. */
enum nccl_event {
	NCCL_EV_CUDA,          /* unhandled cuda error, Cuda failure '...' */
	NCCL_EV_SYSTEM,        /* unhandled system error, /dev/shm, fallocate, socket errors */
	NCCL_EV_INTERNAL,      /* internal error */
	NCCL_EV_INVALID_USAGE, /* invalid usage */
	NCCL_EV_INVALID_ARG,   /* invalid argument */
	NCCL_EV_REMOTE,        /* remote process exited or there was a network error */
	NCCL_EV_TIMEOUT,       /* watchdog, ran for N milliseconds before timing out */
	NCCL_EV_DUP_GPU,       /* Duplicate GPU detected */
	NCCL_EV_P2P_DISABLED,  /* P2P is disabled between ..., NCCL_P2P_DISABLE set */
	NCCL_EV_IB_MISSING,    /* NET/IB : No device found */
	NCCL_EV_IB_CONFIGURED, /* NCCL_IB_HCA set, NCCL_NET=IB */
	NCCL_EV_SHM_DEV,       /* the /dev/shm or shared-memory segment failure among system errors */
	NCCL_EV_NO_IFACE,      /* Bootstrap : no socket interface found */
	NCCL_EV_NVLS,          /* a line of the NVLS (NVLink SHARP) transport: transport/nvls.cc */
	NCCL_EV_COUNT
};

struct nccl_seen {
	size_t count;
	char line[NCCL_LOG_LINE];
};

struct nccl_log {
	size_t nccl_lines;                       /* lines that are NCCL's (or about NCCL) */
	size_t warn_lines;                       /* "NCCL WARN" lines and errors a framework raised */
	size_t n_hosts;                          /* distinct "host:pid:tid [dev]" prefixes, up to NCCL_LOG_HOSTS */
	char hosts[NCCL_LOG_HOSTS][64];
	char last_host[64];                      /* the last line's host as it was written (most lines repeat it) */
	size_t last_host_len;
	bool socket_net;                         /* "NET/Socket : Using ..." */
	char versions[NCCL_LOG_VERSIONS][32];    /* distinct "2.18.1+cuda12.1", first seen first */
	size_t n_versions;
	char version_lines[NCCL_LOG_VERSIONS][NCCL_LOG_LINE];
	char network[32];                        /* "Using network Socket" -> "Socket" */
	char bootstrap_if[64];                   /* "Bootstrap : Using eth0:10.0.0.1<0>" -> "eth0" */
	struct nccl_channel *ch;
	size_t n_ch;
	size_t n_ch_dropped;                     /* beyond NCCL_LOG_CHANNELS */
	struct nccl_seen ev[NCCL_EV_COUNT];
	size_t result_codes[8];                  /* "-> N" trace lines by ncclResult_t */
	char result_line[8][NCCL_LOG_LINE];      /* the first "-> N" line of each code */
	char cuda_error[96];                     /* "invalid device function" from Cuda failure '...' */
	int cuda_code;                           /* the number beside it, -1 when none */
	size_t ch_cap;                           /* allocated entries of ch */
};

/* explain's "nccl" object and its "channels" rows (nccl_log_fields.c) */
extern const struct field_table nccl_log_field_table, nccl_channel_field_table;

#endif
