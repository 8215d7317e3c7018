/* ops_stack.c — `ops --group stack[=N]`: torch.profiler's
 * key_averages(group_by_stack_n=N), one row per operator name and the first
 * N frames of its "Call stack" (traces recorded with with_stack=True).
 *
 * Kineto writes the stack innermost frame first, frames joined by ';'.
 * torch reads it into FunctionEvent.stack leaving out the frames
 * _filter_stack_entry drops (autograd's backward and _make_grads, the test
 * harness's prof_* wrappers), then keys by stack[:N]; so does this.
 *
 * Backward operators have no stack of their own: torch's
 * _set_backward_stacktraces gives every event under a backward function
 * (RecordScope BACKWARD_FUNCTION: in a trace, the events with a non-zero
 * "Fwd thread id") the stack of the first forward event, in time order, of
 * that function's (sequence number, forward thread).  tp_ops_stacks does the
 * same from the store's op trees, by the sequence number alone: a trace's
 * "Fwd thread id" numbers threads as torch's RecordFunction does (1, 2...),
 * its "tid" as the system does (25738), and nothing in it maps one to the
 * other.  Sequence numbers count per thread, so where several threads run
 * forward passes a backward op may take the stack of another thread's
 * forward op of the same number. */
#include <stdlib.h>
#include <string.h>
#include "store.h"
#include "table.h"
#include "view_extra.h"
#include "agg.h"
#include "cmp.h"

long tp_ops_stack_depth(const char *group)
{
    char arg[32];
    int has = tp_agg_arg(group, "stack", arg, sizeof arg);   /* the word of a --group list */
    if (has <= 0)
        return has < 0 ? 0 : TP_OPS_STACK_DEFAULT;
    if (arg[0] < '1' || arg[0] > '9')
        return -1;
    char *end;
    long n = strtol(arg, &end, 10);
    return *end || n <= 0 || n > 1000000 ? -1 : n;
}

/* torch/autograd/profiler_util.py _filter_stack_entry: 1 to keep. */
static int keep_frame(const char *f, size_t len)
{
    static const char *const dropped[][2] = {
        {"autograd/__init__", "_make_grads"},      {"autograd/__init__", "backward"},
        {"torch/tensor", "backward"},              {"_internal/common_utils", "prof_callable"},
        {"_internal/common_utils", "prof_func_call"}, {"_internal/common_utils", "prof_meth_call"},
    };
    char *s = strndup(f, len);
    int keep = 1;
    for (size_t i = 0; s && keep && i < sizeof dropped / sizeof *dropped; i++)
        keep = !(strstr(s, dropped[i][0]) && strstr(s, dropped[i][1]));
    free(s);
    return keep;
}

size_t tp_ops_stack_frames(const char *call_stack, long n, struct tp_sbuf *b)
{
    size_t kept = 0;
    for (const char *p = call_stack ? call_stack : ""; *p && (long)kept < n;) {
        size_t len = strcspn(p, ";");
        if (len && keep_frame(p, len)) {
            if (kept++)
                tp_sbuf_put(b, TP_OPS_STACK_SEP, strlen(TP_OPS_STACK_SEP));
            tp_sbuf_put(b, p, len);
        }
        p += len + (p[len] == ';');
    }
    return kept;
}

/* A forward event's sequence number and when it starts, for the first one
 * per number. */
struct fwd {
    int64_t seq, ts, dur;
    uint32_t stack;
};

static int cmp_fwd(const void *a, const void *b)
{
    const struct fwd *x = a, *y = b;
    TP_CMP_BY(x, y, seq);
    TP_CMP_BY(x, y, ts);   /* torch's order: start, */
    TP_CMP_BY(y, x, dur);   /* then the outer one, descending */
    return 0;
}

/* A torch FunctionEvent of the host (operator or annotation). */
static int is_op(const tp_store *st, size_t r)
{
    return st->ph[r] == 'X' && (st->kind[r] == TP_K_CPU_OP || st->kind[r] == TP_K_USER_ANNOTATION);
}

static int is_backward_function(const tp_store *st, size_t r)
{
    int64_t f = is_op(st, r) ? tp_store_fwd_thread(st, r) : TP_NONE;
    return f != TP_NONE && f != 0;
}

/* torch's sequence_nr: -1 when the trace has none */
static int64_t seq_nr(const tp_store *st, size_t r)
{
    int64_t seq = tp_store_seq(st, r);
    return seq != TP_NONE ? seq : -1;
}

uint32_t *tp_ops_stacks(const tp_store *st)
{
    size_t n = st->n ? st->n : 1, nf = 0;
    uint32_t *out = calloc(n, sizeof *out);
    int64_t *anc = malloc(n * sizeof *anc);    /* nearest enclosing backward function, -1 none, -2 not yet known */
    int64_t *path = malloc(n * sizeof *path);
    struct fwd *f = malloc(n * sizeof *f);
    if (!out || !anc || !path || !f) {
        free(out);
        out = NULL;
        goto done;
    }
    for (size_t r = 0; r < st->n; r++)
        anc[r] = -2;
    for (size_t r = 0; r < st->n; r++) {
        if (!is_op(st, r) || anc[r] != -2)
            continue;
        size_t np = 0;
        int64_t p = (int64_t)r, v = -1;
        while (p >= 0) {
            if (anc[p] != -2) { v = anc[p]; break; }
            if (is_backward_function(st, (size_t)p)) { v = p; break; }
            path[np++] = p;
            p = st->parent ? st->parent[p] : -1;
        }
        for (size_t j = 0; j < np; j++)
            anc[path[j]] = v;
        if (anc[r] == -2)
            anc[r] = v;   /* r is a backward function itself */
    }
    for (size_t r = 0; r < st->n; r++)
        if (is_op(st, r) && anc[r] == -1)
            f[nf++] = (struct fwd){seq_nr(st, r), st->ts[r], st->dur[r],
                                   st->aux[r] != TP_NO_AUX ? st->ops[st->aux[r]].call_stack : 0};
    qsort(f, nf, sizeof *f, cmp_fwd);
    size_t k = 0;   /* the first of each sequence number */
    for (size_t i = 0; i < nf; i++)
        if (!k || f[i].seq != f[k - 1].seq)
            f[k++] = f[i];
    for (size_t r = 0; r < st->n; r++) {
        if (!is_op(st, r))
            continue;
        if (anc[r] < 0) {
            out[r] = st->aux[r] != TP_NO_AUX ? st->ops[st->aux[r]].call_stack : 0;
            continue;
        }
        struct fwd key = {seq_nr(st, (size_t)anc[r]), INT64_MIN, INT64_MAX, 0};
        size_t lo = 0, hi = k;   /* the first entry not below key: its number when found */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (cmp_fwd(&f[mid], &key) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        out[r] = lo < k && f[lo].seq == key.seq ? f[lo].stack : 0;
    }
done:
    free(anc);
    free(path);
    free(f);
    return out;
}
