/* breakdown.h — the TensorBoard plugin's step breakdown (SPEC §4) as data,
 * for `tprof steps`, dist, the GPU summary (`gpu`, its metrics are taken
 * over the adjusted steps) and the recommendations (`advice`, DataLoader and
 * communication shares).  Internal to libtprof; breakdown.c computes it. */
#ifndef TPROF_BREAKDOWN_H
#define TPROF_BREAKDOWN_H

#include <stddef.h>
#include <stdint.h>
#include "store.h"

/* Cost roles in the plugin's priority order, then Other and Total. */
enum { TP_TB_KERNEL, TP_TB_MEMCPY, TP_TB_MEMSET, TP_TB_COMM, TP_TB_RUNTIME, TP_TB_DATALOADER, TP_TB_CPU,
       TP_TB_OTHER, TP_TB_TOTAL, TP_TB_NCOST };

struct tp_tb_step {
    int64_t num;                  /* ProfilerStep number; 0 for the single step of a trace without one */
    int64_t start, end;           /* ns, after the GPU adjustment */
    int64_t cost[TP_TB_NCOST];    /* ns per role; the roles 0..OTHER sum to TOTAL = end - start */
};

struct tp_tb_breakdown {
    struct tp_tb_step *steps;     /* in time order, trailing steps without GPU work trimmed */
    size_t nsteps;
    int64_t sum[TP_TB_NCOST];     /* over all steps */
};

/* Compute the breakdown of a linked kineto store.  0, or -1 when out of
 * memory.  A trace with no CPU op and no ProfilerStep has no step.  Call it
 * under the store's model lock (as tp_store_breakdown does): it shares the
 * X rows' order with the operator tree's build through the store. */
int tp_tb_breakdown(const tp_store *st, struct tp_tb_breakdown *out);
void tp_tb_breakdown_free(struct tp_tb_breakdown *b);

/* The breakdown of a linked store, computed on first use and kept with the
 * store (tp_store_model); NULL when out of memory.  Read-only. */
const struct tp_tb_breakdown *tp_store_breakdown(const tp_store *st);
/* Free a breakdown and its struct (the model slot's free function). */
void tp_tb_breakdown_delete(void *p);

/* What a .tprof store keeps of the breakdown is what this breakdown.c
 * computes: bump this whenever it changes a result (store_file_model.c). */
#define TP_TB_BREAKDOWN_VERSION 1

#endif
