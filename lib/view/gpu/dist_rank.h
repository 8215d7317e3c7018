/* dist_rank.h — one rank as `tprof dist` sees it (view_dist.c builds it
 * from a store, dist_summ.c reads it back from a summary) and the tables of
 * ranks (internal to libtprof). */
#ifndef TPROF_DIST_RANK_H
#define TPROF_DIST_RANK_H

#include <stddef.h>
#include <stdint.h>
#include "store.h"
#include "breakdown.h"
#include "ranges.h"

struct dist_cnode {
    int64_t s, e;            /* the op's CPU range */
    uint32_t name;           /* strtab id in the rank's store */
    const char *nm;
    int64_t ext;
    int64_t bytes;
    struct tp_ranges kr;            /* kernel_ranges: the CPU range, then (NCCL) its kernels */
    struct tp_ranges real;          /* real_time_ranges */
    long step;               /* index of the step that contains it, -1 none */
};

/* A step's parts (computation, overlap, communication, other, total): what
 * the overview needs of the step besides its communication nodes. */
struct dist_step { int64_t num; int64_t v[5]; };

struct dist_rank {
    const tp_store *st;      /* NULL for a rank read back from a summary */
    const char *path;        /* the trace (notes) */
    int64_t rank;            /* st->rank */
    struct tp_tb_breakdown bd;   /* the steps' ranges (a rank built from its store) */
    struct dist_step *steps; size_t nsteps;
    struct tp_ranges comp, comm;    /* merged role ranges */
    struct tp_ranges ov;            /* comp ∩ comm */
    int has_comm;
    struct dist_cnode *nodes;
    size_t nnodes;
    int lib;                 /* 1 NCCL, 2 Gloo, 3 both (communication data cleared) */
};

/* Build R from st (R zeroed first); 0, or -1 on out of memory (free R
 * with tp_dist_rank_free either way). */
int tp_dist_rank_build(struct dist_rank *R, const tp_store *st);
void tp_dist_rank_free(struct dist_rank *R);

/* The table of ranks R[0..n) (R malloc'd, with their stores or read back
 * from a summary): align them, then the overview or, with vo->comm, the
 * communication ops; merge: one table for every rank.  Frees the ranks. */
int tp_dist_table(struct dist_rank *R, size_t n, const struct tp_view_opts *vo, int merge, tp_table **out,
                  tp_error *err);

#endif
