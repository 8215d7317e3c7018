/* torch_tree.c — the torch events (operators, record_function labels,
 * runtime and driver calls) nested among themselves, as torch nests them.
 *
 * The linker's tree (st->parent) nests them with the python frames too,
 * which is not the same where a frame straddles a torch event's end: the
 * frame closes that event early, and what comes after the frame but inside
 * the torch event nests under the frame instead.  key_averages' "Self CPU
 * time total" (view_ops.c) and a label's device time (view_labels.c) are
 * torch's: on a torch.compile trace of Flux a label whose GPU-side copy
 * spans 35.6 s of kernels got 43 us of them through the linker's tree. */
#include <stdlib.h>
#include "link.h"

int tp_link_is_torch_event(const tp_store *st, size_t r)
{
    uint8_t k = st->kind[r];
    return st->ph[r] == 'X' && (k == TP_K_CPU_OP || k == TP_K_USER_ANNOTATION || k == TP_K_RUNTIME || k == TP_K_DRIVER);
}

int tp_link_torch_parents(const tp_store *st, int32_t **out)
{
    *out = NULL;
    size_t n = 0, npy = 0;
    for (size_t i = 0; i < st->n; i++) {
        n += tp_link_is_torch_event(st, i);
        npy += st->ph[i] == 'X' && st->kind[i] == TP_K_PYTHON_FUNCTION;
    }
    if (npy == 0)
        return 0;   /* st->parent is that nesting already */
    int32_t *parent = malloc((st->n ? st->n : 1) * sizeof *parent);
    int64_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!parent || !idx) {
        free(parent);
        free(idx);
        return -1;
    }
    n = 0;
    for (size_t i = 0; i < st->n; i++) {
        parent[i] = -1;
        if (tp_link_is_torch_event(st, i))
            idx[n++] = (int64_t)i;
    }
    if (tp_link_host_order(st, idx, n) < 0) {
        free(parent);
        free(idx);
        return -1;
    }
    /* the linker's rule (build_trees): the open events are the chain of
     * parents from the last one pushed */
    int64_t top = -1;
    for (size_t k = 0; k < n; k++) {
        int64_t r = idx[k];
        if (k > 0 && (st->pid[idx[k - 1]] != st->pid[r] || st->tid[idx[k - 1]] != st->tid[r]))
            top = -1;   /* a new thread */
        int64_t end = st->ts[r] + st->dur[r];
        /* what ended before r starts, or does not hold r whole, encloses nothing after */
        while (top >= 0 && (st->ts[top] + st->dur[top] <= st->ts[r] || st->ts[top] + st->dur[top] < end))
            top = parent[top];
        parent[r] = (int32_t)top;
        top = r;
    }
    free(idx);
    *out = parent;
    return 0;
}
