/* step_parts.h — every step's wall time cut into pieces, each owned by one
 * event (internal to libtprof; the regression gate of `tprof diff
 * --confidence` reads it).
 *
 * The gate needs two things of a trace.  First, a partition of each step's
 * wall time into what bounded it, so that the change of the step time splits
 * exactly into parts (the waterfall).  Second, samples whose noise it can
 * resample: a profile holds a handful of steps, far too few for a test on
 * step times alone, but thousands of kernels and operators.
 *
 * Within the window [ts, end) of each ProfilerStep, every instant goes to one
 * part, the first that applies:
 *   computation    a kernel other than a communication kernel is running
 *   communication  a communication (NCCL/RCCL) kernel is running
 *   memcpy         a memcpy or memset is running (no kernel)
 *   host           the GPU does nothing and the host is inside a CPU
 *                  operator or a runtime/driver call (launch overhead, data
 *                  loading, Python)
 *   idle           nothing at all
 * and, within its part, to one event: the earliest-started GPU activity still
 * running, or the innermost (latest-started) host call.  Each event instance
 * in each step is a piece: its name and the time it was given, 0 when wholly
 * hidden under a higher part (it is still a sample of its name).  The idle
 * time of each step is one piece named "idle": idle gaps are not samples of
 * anything (a long gap is where the step waits, not a noisy event), so their
 * noise is that of the steps.  The pieces of a step sum to its
 * duration exactly.  A store without steps is one step: the span of its CPU
 * and GPU events. */
#ifndef TPROF_STEP_PARTS_H
#define TPROF_STEP_PARTS_H

#include <stddef.h>
#include <stdint.h>
#include "store.h"

enum tp_part { TP_PART_COMPUTE, TP_PART_COMM, TP_PART_MEMCPY, TP_PART_HOST, TP_PART_IDLE, TP_NPARTS };

struct tp_piece {
    const char *name;        /* the event's name (the store's string table), or "idle" */
    int64_t ns;              /* the time of the step it was given, >= 0 */
    uint64_t shape;          /* what makes instances of one name alike: a hash of a GPU
                                activity's grid, block and bytes, of an operator's input
                                dims; 0 when the trace has none */
    uint8_t part;            /* enum tp_part */
};

struct tp_step_parts {
    struct tp_piece *v;
    size_t n;
    size_t nsteps;           /* steps measured (1 for a store without steps) */
    int has_steps;           /* the store has ProfilerSteps */
    int64_t part_ns[TP_NPARTS];   /* Σ pieces per part over all steps */
    int64_t total_ns;        /* Σ step durations = Σ part_ns */
};

/* Cut every step of a linked store.  TP_OK, or TP_ERR_NOMEM. */
int tp_step_parts_build(const tp_store *st, struct tp_step_parts *out, tp_error *err);
void tp_step_parts_free(struct tp_step_parts *p);

/* "computation", "communication", "memcpy", "host", "idle". */
const char *tp_part_name(int part);

#endif
