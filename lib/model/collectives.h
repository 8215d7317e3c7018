/* collectives.h — the collectives of a run, rank by rank, and matched
 * across ranks (tprof collectives, tprof stragglers).
 *
 * Each rank is reduced to a plain array of records, one per NCCL/RCCL
 * kernel (tp_coll_extract): no pointers into the store, so the array can be
 * kept after the store is freed, or written to a summary file.  Matching
 * works on those arrays alone (tp_coll_match). */
#ifndef TPROF_COLLECTIVES_H
#define TPROF_COLLECTIVES_H

#include <stddef.h>
#include <stdint.h>
#include "store.h"

enum tp_coll_op {
    TP_COLL_OTHER, TP_COLL_ALL_REDUCE, TP_COLL_ALL_GATHER, TP_COLL_REDUCE_SCATTER, TP_COLL_ALL_TO_ALL,
    TP_COLL_BROADCAST, TP_COLL_REDUCE, TP_COLL_SEND, TP_COLL_RECV, TP_COLL_SEND_RECV, TP_COLL_GATHER,
    TP_COLL_SCATTER, TP_COLL_BARRIER, TP_COLL_NOPS
};

/* "all_reduce", "all_gather", ... "other". */
const char *tp_coll_op_name(enum tp_coll_op op);
/* The operation a collective name, a c10d::/nccl: operator or an NCCL
 * kernel name stands for ("allreduce", "_allgather_base", "nccl:all_to_all",
 * "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL"); TP_COLL_OTHER when none. */
enum tp_coll_op tp_coll_op_of(const char *name);
/* NCCL's bus bandwidth factor (nccl-tests, doc/PERFORMANCE.md) for n ranks:
 * all_reduce 2(n-1)/n; all_gather, reduce_scatter, all_to_all, gather,
 * scatter (n-1)/n; broadcast, reduce, send, recv 1; 0 when there is no
 * bandwidth to speak of (barrier, other, n < 1). */
double tp_coll_busbw_factor(enum tp_coll_op op, int64_t n);
/* Bytes of one element of a dtype as PyTorch names it in collective
 * metadata ("Float", "BFloat16") or in Input type ("float", "c10::Half",
 * "long int"); 0 unknown. */
int tp_coll_dtype_size(const char *dtype);

/* One collective on one rank. */
struct tp_coll_rec {
    int64_t start, end;        /* its kernel, ns on the rank's own clock */
    int64_t bytes;             /* nccl-tests' size S: the larger of the input and output
                                  messages (elements x dtype size); -1 unknown */
    int64_t seq;               /* "Seq" (its number in its group), TP_NONE absent */
    int64_t step;              /* ProfilerStep number (by launch), TP_NONE outside steps */
    int64_t nth;               /* 0-based: its place among the rank's collectives of the same
                                  group and seq (with a seq) or step (without) */
    int64_t group_size;        /* ranks in its group; 0 unknown */
    uint64_t group_id;         /* a hash of the group's name and ranks: 0 the default group
                                  of a trace without collective metadata */
    int32_t op;                /* enum tp_coll_op */
    char group[32];            /* "Process Group Name" ("" unknown) */
    char desc[32];             /* "Process Group Description" ("" unknown) */
};

/* A rank's records, in kernel start order. */
struct tp_coll_list {
    int64_t rank;              /* the store's rank (TP_NONE: unknown) */
    int64_t base_time_ns;      /* baseTimeNanoseconds, TP_NONE absent */
    struct tp_coll_rec *v;
    size_t n;
};

/* The collectives of a linked store: every NCCL/RCCL kernel (by name, or
 * with collective metadata), its metadata from its own args or from the
 * record_param_comms around its launch, else its op and size from the
 * c10d::/nccl: operator that launched it.  0, or -1 out of memory. */
int tp_coll_extract(const tp_store *st, struct tp_coll_list *out);
void tp_coll_list_free(struct tp_coll_list *l);

/* One collective matched across ranks: the records of the ranks with the
 * same group, seq (or step) and nth. */
struct tp_coll_inst {
    int32_t op;
    int mixed;                 /* the ranks disagree on the op: the matching is off */
    const struct tp_coll_rec *first_rec;   /* the record of the first rank (for group, step) */
    int64_t group_size;        /* the group's size, else the ranks that took part */
    size_t nranks;             /* ranks that took part (records matched) */
    size_t part;               /* its participants: part .. part + nranks - 1 in tp_coll_match's parts */
    int64_t first_start, last_start;   /* on the common clock */
    size_t last;               /* the list index of the last rank to arrive */
    int64_t transfer;          /* the last arriver's kernel duration: last arrival to its end */
    int64_t wait;              /* sum over the ranks of last_start - start */
    int64_t bytes;             /* the largest S among the ranks, -1 unknown */
};

struct tp_coll_part {         /* one rank's part in a matched collective */
    size_t list;               /* index into the lists */
    int64_t start, end;        /* on the common clock */
};

struct tp_coll_match {
    struct tp_coll_inst *inst; size_t ninst;   /* in order of first start */
    struct tp_coll_part *parts; size_t nparts;
    int use_base;              /* 1: the common clock is baseTimeNanoseconds + ts */
};

/* Match the collectives of n ranks.  0, or -1 out of memory. */
int tp_coll_match(const struct tp_coll_list *lists, size_t n, struct tp_coll_match *m);
void tp_coll_match_free(struct tp_coll_match *m);

#endif
