/* link_annot.c — prof.py's per-kernel row for kineto traces.
 *
 * PyProf derived direction, layer, trace, op and arguments from NVTX markers;
 * a kineto trace carries the same facts in the op tree around the runtime
 * call that launched each kernel:
 *   op, mod    the launching op's name split at its last "::" (aten::conv2d ->
 *              mod aten, op conv2d); "na" when no op launched the kernel;
 *   dir        bprop when the op or one of its ancestors is an autograd node
 *              (name contains "Backward" or starts "autograd::engine::");
 *   seq        the nearest "Sequence number" on the op or its ancestors;
 *   sub        the kernel's index among the kernels its op launched;
 *   layer      the enclosing user annotations and nn.Module python_function
 *              events, outermost first, joined by ':' (ProfilerStep excluded);
 *   trace      the op's "Call stack" (or its python_function ancestors),
 *              outermost first, each entry "file:line";
 *   arguments  the op's "Input Dims" / "Input type" for the FLOP formulas. */
#include <stdlib.h>
#include <string.h>
#include "link.h"
#include "table.h"   /* struct tp_sbuf, the shared growable buffer */

static int is_autograd_name(const char *s)
{
    return strstr(s, "Backward") != NULL || strncmp(s, "autograd::engine::", 18) == 0;
}

/* "path/file.py(123): func" -> "path/file.py:123" */
static void add_frame(struct tp_sbuf *b, const char *s, size_t n)
{
    const char *open = NULL;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '(')
            open = s + i;
    const char *close = open ? memchr(open, ')', n - (size_t)(open - s)) : NULL;
    if (open && close && close > open + 1) {
        tp_sbuf_put(b, s, (size_t)(open - s));
        tp_sbuf_put(b, ":", 1);
        tp_sbuf_put(b, open + 1, (size_t)(close - open - 1));
    } else {
        tp_sbuf_put(b, s, n);
    }
}

/* "Call stack" is innermost first, ';'-separated; emit outermost first. */
static void trace_from_call_stack(struct tp_sbuf *b, const char *cs)
{
    const char *ends[512];
    const char *starts[512];
    size_t nf = 0;
    const char *s = cs;
    while (*s && nf < 512) {
        const char *e = strchr(s, ';');
        if (!e)
            e = s + strlen(s);
        if (e > s) {
            starts[nf] = s;
            ends[nf] = e;
            nf++;
        }
        s = *e ? e + 1 : e;
    }
    for (size_t k = nf; k-- > 0;) {
        if (b->len)
            tp_sbuf_put(b, ",", 1);
        add_frame(b, starts[k], (size_t)(ends[k] - starts[k]));
    }
}

static const char *basename_of_last(const char *trace)
{
    const char *last = strrchr(trace, ',');
    last = last ? last + 1 : trace;
    const char *slash = strrchr(last, '/');
    return slash ? slash + 1 : last;
}

static _Thread_local const tp_store *sort_st;

static int cmp_kernel(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    if (sort_st->ts[x] != sort_st->ts[y])
        return sort_st->ts[x] < sort_st->ts[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The trace of a "Call stack" (strtab id), direct-mapped by id. */
enum { TRACE_MEMOS = 1024 };
struct trace_memo {
    uint32_t call_stack, trace, trace_last;
};

int tp_link_kernel_annots(tp_store *st, tp_error *err)
{
    struct trace_memo memos[TRACE_MEMOS];
    memset(memos, 0, sizeof memos);   /* call_stack 0: empty (0 is "no call stack") */
    size_t nk = 0;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_KERNEL)
            nk++;
    st->annots = calloc(nk ? nk : 1, sizeof *st->annots);
    int64_t *order = malloc((nk ? nk : 1) * sizeof *order);
    uint32_t *launched = calloc(st->n ? st->n : 1, sizeof *launched);   /* kernels per op so far */
    int64_t *chain = malloc(4096 * sizeof *chain);
    if (!st->annots || !order || !launched || !chain) {
        free(order);
        free(launched);
        free(chain);
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory while linking", st->path);
    }
    nk = 0;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_KERNEL)
            order[nk++] = (int64_t)i;
    sort_st = st;
    qsort(order, nk, sizeof *order, cmp_kernel);

    uint32_t na = tp_store_intern(st, "na", 2);
    struct tp_sbuf layer = {0}, trace = {0};
    for (size_t k = 0; k < nk; k++) {
        int64_t kr = order[k];
        struct tp_kernel_annot *a = &st->annots[k];
        a->event = (uint32_t)kr;
        int64_t rt = tp_store_launcher(st, kr);
        int64_t op = tp_store_launch_op(st, kr);
        a->op_event = op;
        a->tid = rt >= 0 ? st->tid[rt] : TP_NONE;
        a->mod = a->op = na;
        a->sub = op >= 0 ? (int32_t)launched[op]++ : 0;
        if (op < 0)
            continue;
        const char *name = tp_store_str(st, st->name[op]);
        const char *sep = NULL;
        for (const char *p = name; (p = strstr(p, "::")) != NULL; p += 2)
            sep = p;
        if (sep) {
            a->mod = tp_store_intern(st, name, (size_t)(sep - name));
            a->op = tp_store_intern(st, sep + 2, strlen(sep + 2));
        } else {
            a->mod = 0;
            a->op = st->name[op];
        }
        if (st->aux[op] != TP_NO_AUX) {
            a->input_dims = st->ops[st->aux[op]].input_dims;
            a->input_types = st->ops[st->aux[op]].input_types;
            a->concrete_inputs = st->ops[st->aux[op]].concrete_inputs;
        }
        /* Ancestors, innermost first. */
        size_t nc = 0;
        for (int64_t r = op; r >= 0 && nc < 4096; r = st->parent[r])
            chain[nc++] = r;
        int64_t seq = TP_NONE;
        uint32_t call_stack = 0;
        layer.len = trace.len = 0;
        for (size_t c = 0; c < nc; c++) {
            int64_t r = chain[c];
            const char *nm = tp_store_str(st, st->name[r]);
            if (is_autograd_name(nm))
                a->bprop = 1;
            if (seq == TP_NONE && st->kind[r] == TP_K_CPU_OP)
                seq = tp_store_seq(st, (size_t)r);
            if (!call_stack && st->aux[r] != TP_NO_AUX && st->kind[r] != TP_K_RUNTIME &&
                st->ops[st->aux[r]].call_stack)
                call_stack = st->ops[st->aux[r]].call_stack;
        }
        /* Outermost first for layer and python trace. */
        for (size_t c = nc; c-- > 0;) {
            int64_t r = chain[c];
            const char *nm = tp_store_str(st, st->name[r]);
            int is_module = st->kind[r] == TP_K_PYTHON_FUNCTION && st->aux[r] != TP_NO_AUX &&
                            tp_store_py(st, &st->ops[st->aux[r]])->module_id != TP_NONE;
            if ((st->kind[r] == TP_K_USER_ANNOTATION && strncmp(nm, "ProfilerStep#", 13) != 0) || is_module) {
                if (layer.len)
                    tp_sbuf_put(&layer, ":", 1);
                tp_sbuf_put(&layer, nm, strlen(nm));
            } else if (!call_stack && st->kind[r] == TP_K_PYTHON_FUNCTION) {
                if (trace.len)
                    tp_sbuf_put(&trace, ",", 1);
                add_frame(&trace, nm, strlen(nm));
            }
        }
        /* A call stack's trace is memoised: the kernels of every step have
         * the same few thousand stacks, and building and interning a trace
         * of a kilobyte again for each was a twentieth of the load. */
        struct trace_memo *memo = call_stack ? &memos[call_stack % TRACE_MEMOS] : NULL;
        int memo_hit = memo && memo->call_stack == call_stack;
        trace.len = 0;
        if (call_stack && !memo_hit)
            trace_from_call_stack(&trace, tp_store_str(st, call_stack));
        if (seq != TP_NONE) {
            char buf[32];
            int n = snprintf(buf, sizeof buf, "%lld", (long long)seq);
            a->seq = tp_store_intern(st, buf, (size_t)n);
        }
        if (layer.oom || trace.oom) {   /* a layer or trace cut short would print as if whole */
            tp_sbuf_free(&layer);
            tp_sbuf_free(&trace);
            free(order);
            free(launched);
            free(chain);
            return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
        }
        if (layer.len)
            a->layer = tp_store_intern(st, layer.p, layer.len);
        if (memo_hit) {
            a->trace = memo->trace;
            a->trace_last = memo->trace_last;
        } else if (trace.len) {
            a->trace = tp_store_intern(st, trace.p, trace.len);   /* tp_sbuf is not NUL-terminated */
            const char *last = basename_of_last(tp_store_str(st, a->trace));
            a->trace_last = tp_store_intern(st, last, strlen(last));
        }
        if (memo && !memo_hit)
            *memo = (struct trace_memo){ call_stack, a->trace, a->trace_last };
    }
    st->nannots = nk;
    tp_sbuf_free(&layer);
    tp_sbuf_free(&trace);
    free(order);
    free(launched);
    free(chain);
    return TP_OK;
}
