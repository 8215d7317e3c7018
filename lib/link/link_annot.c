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

/* memchr for the 'B' and a compare, not memmem: this runs on every python
 * frame's name (2.3M on the 1 GB OWLv2 trace), names of 40-80 bytes where
 * glibc's memmem spends more setting up than searching (2% of `ops`). */
static int has_backward(const char *s, size_t len)
{
    const char *p = s, *end = s + len;
    while (end - p >= 8 && (p = memchr(p, 'B', (size_t)(end - p) - 7)) != NULL) {
        if (memcmp(p, "Backward", 8) == 0)
            return 1;
        p++;
    }
    return 0;
}

int tp_is_autograd_name(const char *s, size_t len)
{
    return has_backward(s, len) || (len >= 18 && memcmp(s, "autograd::engine::", 18) == 0);
}

static int is_autograd_name(const char *s)
{
    return tp_is_autograd_name(s, strlen(s));
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

/* ---- memos ----
 *
 * A kernel's strings follow from names: its op and mod from the launching
 * operator's name, its layer from the names of the annotations and modules
 * around it, its trace from the call stack or the python_function names
 * around it.  Kernels of every step repeat the same names, so each string
 * is built and interned once per distinct input and looked up after:
 * building and interning them again for each kernel was a tenth of the
 * load of a 1 GB trace.  Interning in the same order as without the memos
 * keeps every string id as it was. */

/* By strtab id, direct-mapped: the mod and op of an operator name. */
enum { NAME_MEMOS = 4096 };
struct opname_memo {
    uint32_t name, mod, op;
};

/* By a sequence of strtab ids (the names a layer or python trace is made
 * of): the interned string, and for a trace its last entry's basename. */
struct seq_entry {
    uint64_t hash;
    uint32_t off, len;     /* the ids: pool[off .. off+len) */
    uint32_t str, last;
};
struct seq_memo {
    struct seq_entry *e; size_t cap, n;
    uint32_t *pool; size_t npool, cappool;
};

static uint64_t hash_ids(const uint32_t *ids, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (size_t i = 0; i < n; i++)
        h = (h ^ ids[i]) * 0xff51afd7ed558ccdULL;
    return h ^ (h >> 29);
}

/* The entry for ids, or NULL with *slot where it would go (NULL when the
 * memo has no table: out of memory earlier, every lookup then misses). */
static struct seq_entry *seq_find(const struct seq_memo *m, const uint32_t *ids, size_t n, uint64_t h,
                                  struct seq_entry **slot)
{
    *slot = NULL;
    if (!m->cap)
        return NULL;
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        struct seq_entry *e = &m->e[i];
        if (!e->len && !e->hash) {
            *slot = e;
            return NULL;
        }
        if (e->hash == h && e->len == n && memcmp(m->pool + e->off, ids, n * sizeof *ids) == 0)
            return e;
    }
}

static int seq_grow(struct seq_memo *m)
{
    size_t cap = m->cap ? m->cap * 2 : 1024;
    struct seq_entry *e = calloc(cap, sizeof *e);
    if (!e)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->e[i].len && !m->e[i].hash)
            continue;
        size_t j = m->e[i].hash & (cap - 1);
        while (e[j].len || e[j].hash)
            j = (j + 1) & (cap - 1);
        e[j] = m->e[i];
    }
    free(m->e);
    m->e = e;
    m->cap = cap;
    return 0;
}

/* Remember ids -> (str, last); -1 when out of memory (reported like any
 * other: issue #11, never a run that went on without what it could not make). */
static int seq_put(struct seq_memo *m, const uint32_t *ids, size_t n, uint64_t h, uint32_t str, uint32_t last)
{
    struct seq_entry *slot;
    if ((m->n + 1) * 2 > m->cap && seq_grow(m) < 0)
        return -1;
    if (seq_find(m, ids, n, h, &slot) || !slot)
        return 0;
    if (m->npool + n > m->cappool) {
        size_t cap = m->cappool ? m->cappool * 2 : 4096;
        while (cap < m->npool + n)
            cap *= 2;
        uint32_t *p = realloc(m->pool, cap * sizeof *p);
        if (!p)
            return -1;
        m->pool = p;
        m->cappool = cap;
    }
    memcpy(m->pool + m->npool, ids, n * sizeof *ids);
    *slot = (struct seq_entry){ h | (h == 0), (uint32_t)m->npool, (uint32_t)n, str, last };
    m->npool += n;
    m->n++;
    return 0;
}

static void seq_free(struct seq_memo *m)
{
    free(m->e);
    free(m->pool);
}

/* What one kernel's annotation reads and reuses across kernels. */
struct annot_ctx {
    tp_store *st;
    int64_t *chain;                 /* the operator and its ancestors, innermost first */
    uint32_t *layer_ids, *trace_ids;   /* names of a layer, a python trace: outermost first */
    struct tp_sbuf buf;
    struct trace_memo { uint32_t call_stack, trace, trace_last; } stacks[1024];
    struct opname_memo opnames[NAME_MEMOS];
    struct seq_memo layers, traces;
    uint8_t *autograd; size_t nautograd;   /* by strtab id: 1 + is_autograd_name, 0 unknown */
};

enum { CHAIN_MAX = 4096 };

/* Whether row names id names an autograd node, once per name: the cache
 * covers the strings the load interned (every row's name); one the linker
 * interned since is tested each time. */
static int autograd_id(struct annot_ctx *c, uint32_t id)
{
    if (id >= c->nautograd)
        return is_autograd_name(tp_store_str(c->st, id));
    if (!c->autograd[id])
        c->autograd[id] = (uint8_t)(1 + is_autograd_name(tp_store_str(c->st, id)));
    return c->autograd[id] - 1;
}

/* mod and op: the operator's name split at its last "::". */
static void split_op_name(struct annot_ctx *c, struct tp_kernel_annot *a, uint32_t name)
{
    struct opname_memo *m = &c->opnames[name % NAME_MEMOS];
    if (name && m->name == name) {
        a->mod = m->mod;
        a->op = m->op;
        return;
    }
    const char *s = tp_store_str(c->st, name), *sep = NULL;
    for (const char *p = s; (p = strstr(p, "::")) != NULL; p += 2)
        sep = p;
    if (sep) {
        a->mod = tp_store_intern(c->st, s, (size_t)(sep - s));
        a->op = tp_store_intern(c->st, sep + 2, strlen(sep + 2));
    } else {
        a->mod = 0;
        a->op = name;
    }
    *m = (struct opname_memo){ name, a->mod, a->op };
}

/* The string a sequence of names makes (layer: joined by ':'; trace: each
 * name as a frame, joined by ','), interned once; *last the trace's last
 * entry's basename.  UINT32_MAX when out of memory. */
static uint32_t seq_string(struct annot_ctx *c, struct seq_memo *m, const uint32_t *ids, size_t n, int is_trace,
                           uint32_t *last)
{
    uint64_t h = hash_ids(ids, n);
    struct seq_entry *slot, *e = seq_find(m, ids, n, h, &slot);
    if (e) {
        *last = e->last;
        return e->str;
    }
    c->buf.len = 0;
    for (size_t i = 0; i < n; i++) {
        const char *nm = tp_store_str(c->st, ids[i]);
        if (i)
            tp_sbuf_put(&c->buf, is_trace ? "," : ":", 1);
        if (is_trace)
            add_frame(&c->buf, nm, strlen(nm));
        else
            tp_sbuf_put(&c->buf, nm, strlen(nm));
    }
    if (c->buf.oom)   /* a string cut short would print as if whole */
        return UINT32_MAX;
    uint32_t str = tp_store_intern(c->st, c->buf.p, c->buf.len);   /* tp_sbuf is not NUL-terminated */
    *last = 0;
    if (is_trace) {
        const char *l = basename_of_last(tp_store_str(c->st, str));
        *last = tp_store_intern(c->st, l, strlen(l));
    }
    return seq_put(m, ids, n, h, str, *last) < 0 ? UINT32_MAX : str;
}

/* The trace of a "Call stack" (strtab id), direct-mapped by id. */
static int call_stack_trace(struct annot_ctx *c, struct tp_kernel_annot *a, uint32_t call_stack)
{
    struct trace_memo *m = &c->stacks[call_stack % (sizeof c->stacks / sizeof c->stacks[0])];
    if (m->call_stack != call_stack) {
        c->buf.len = 0;
        trace_from_call_stack(&c->buf, tp_store_str(c->st, call_stack));
        if (c->buf.oom)
            return -1;
        uint32_t trace = 0, last = 0;
        if (c->buf.len) {
            trace = tp_store_intern(c->st, c->buf.p, c->buf.len);
            const char *l = basename_of_last(tp_store_str(c->st, trace));
            last = tp_store_intern(c->st, l, strlen(l));
        }
        *m = (struct trace_memo){ call_stack, trace, last };
    }
    a->trace = m->trace;
    a->trace_last = m->trace_last;
    return 0;
}

/* Everything the kernel's launching operator `op` decides; -1 when out of memory. */
static int annotate(struct annot_ctx *c, struct tp_kernel_annot *a, int64_t op)
{
    tp_store *st = c->st;
    split_op_name(c, a, st->name[op]);
    if (st->aux[op] != TP_NO_AUX) {
        a->input_dims = st->ops[st->aux[op]].input_dims;
        a->input_types = st->ops[st->aux[op]].input_types;
        a->concrete_inputs = st->ops[st->aux[op]].concrete_inputs;
    }
    size_t nc = 0;
    for (int64_t r = op; r >= 0 && nc < CHAIN_MAX; r = st->parent[r])
        c->chain[nc++] = r;
    int64_t seq = TP_NONE;
    uint32_t call_stack = 0;
    for (size_t i = 0; i < nc; i++) {
        int64_t r = c->chain[i];
        if (autograd_id(c, st->name[r]))
            a->bprop = 1;
        if (seq == TP_NONE && st->kind[r] == TP_K_CPU_OP)
            seq = tp_store_seq(st, (size_t)r);
        if (!call_stack && st->aux[r] != TP_NO_AUX && st->kind[r] != TP_K_RUNTIME && st->ops[st->aux[r]].call_stack)
            call_stack = st->ops[st->aux[r]].call_stack;
    }
    /* Outermost first for layer and python trace. */
    size_t nl = 0, nt = 0;
    for (size_t i = nc; i-- > 0;) {
        int64_t r = c->chain[i];
        int is_module = st->kind[r] == TP_K_PYTHON_FUNCTION && st->aux[r] != TP_NO_AUX &&
                        tp_store_py(st, &st->ops[st->aux[r]])->module_id != TP_NONE;
        if ((st->kind[r] == TP_K_USER_ANNOTATION && strncmp(tp_store_str(st, st->name[r]), "ProfilerStep#", 13) != 0) ||
            is_module)
            c->layer_ids[nl++] = st->name[r];
        else if (!call_stack && st->kind[r] == TP_K_PYTHON_FUNCTION)
            c->trace_ids[nt++] = st->name[r];
    }
    if (seq != TP_NONE) {
        char buf[32];
        int n = snprintf(buf, sizeof buf, "%lld", (long long)seq);
        a->seq = tp_store_intern(st, buf, (size_t)n);
    }
    uint32_t last;
    if (nl && (a->layer = seq_string(c, &c->layers, c->layer_ids, nl, 0, &last)) == UINT32_MAX)
        return -1;
    if (call_stack)
        return call_stack_trace(c, a, call_stack);
    if (nt && (a->trace = seq_string(c, &c->traces, c->trace_ids, nt, 1, &a->trace_last)) == UINT32_MAX)
        return -1;
    return 0;
}

static void annot_ctx_free(struct annot_ctx *c)
{
    free(c->chain);
    free(c->layer_ids);
    free(c->trace_ids);
    tp_sbuf_free(&c->buf);
    seq_free(&c->layers);
    seq_free(&c->traces);
    free(c->autograd);
    free(c);
}

int tp_link_kernel_annots(tp_store *st, tp_error *err)
{
    size_t nk = 0;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_KERNEL)
            nk++;
    st->annots = calloc(nk ? nk : 1, sizeof *st->annots);
    int64_t *order = malloc((nk ? nk : 1) * sizeof *order);
    uint32_t *launched = calloc(st->n ? st->n : 1, sizeof *launched);   /* kernels per op so far */
    struct annot_ctx *c = calloc(1, sizeof *c);
    if (c) {
        c->st = st;
        c->chain = malloc(CHAIN_MAX * sizeof *c->chain);
        c->layer_ids = malloc(CHAIN_MAX * sizeof *c->layer_ids);
        c->trace_ids = malloc(CHAIN_MAX * sizeof *c->trace_ids);
        c->nautograd = st->strings.count;
        c->autograd = calloc(c->nautograd ? c->nautograd : 1, 1);
    }
    int oom = !st->annots || !order || !launched || !c || !c->chain || !c->layer_ids || !c->trace_ids || !c->autograd;
    if (!oom) {
        nk = 0;
        for (size_t i = 0; i < st->n; i++)
            if (st->kind[i] == TP_K_KERNEL)
                order[nk++] = (int64_t)i;
        sort_st = st;
        qsort(order, nk, sizeof *order, cmp_kernel);
    }
    uint32_t na = oom ? 0 : tp_store_intern(st, "na", 2);
    for (size_t k = 0; k < nk && !oom; k++) {
        int64_t kr = order[k];
        struct tp_kernel_annot *a = &st->annots[k];
        a->event = (uint32_t)kr;
        int64_t rt = tp_store_launcher(st, kr);
        int64_t op = tp_store_launch_op(st, kr);
        a->op_event = op;
        a->tid = rt >= 0 ? st->tid[rt] : TP_NONE;
        a->mod = a->op = na;
        a->sub = op >= 0 ? (int32_t)launched[op]++ : 0;
        if (op >= 0 && annotate(c, a, op) < 0)
            oom = 1;
    }
    if (!oom)
        st->nannots = nk;
    free(order);
    free(launched);
    if (c)
        annot_ctx_free(c);
    return oom ? tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory while linking", st->path) : TP_OK;
}
