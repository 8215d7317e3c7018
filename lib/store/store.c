/* store.c — the columnar event store: growth of the columns and side tables. */
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "search.h"
#include "npu.h"
#include "store.h"
#include "link.h"

static const char *const kind_names[TP_K_COUNT] = {
    [TP_K_OTHER] = "other", [TP_K_CPU_OP] = "cpu_op", [TP_K_USER_ANNOTATION] = "user_annotation",
    [TP_K_GPU_USER_ANNOTATION] = "gpu_user_annotation", [TP_K_PYTHON_FUNCTION] = "python_function",
    [TP_K_RUNTIME] = "runtime", [TP_K_DRIVER] = "driver", [TP_K_KERNEL] = "kernel",
    [TP_K_MEMCPY] = "memcpy", [TP_K_MEMSET] = "memset", [TP_K_MEMORY] = "memory",
    [TP_K_FLOW] = "flow", [TP_K_COUNTER] = "counter", [TP_K_INSTANT] = "instant",
    [TP_K_META] = "metadata", [TP_K_TRACE_SPAN] = "trace_span", [TP_K_NVTX] = "nvtx_range",
    [TP_K_SYNC] = "sync",
};

const char *tp_kind_name(enum tp_kind k)
{
    return (unsigned)k < TP_K_COUNT && kind_names[k] ? kind_names[k] : "?";
}

tp_store *tp_store_new(void)
{
    tp_store *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    if (tp_strtab_init(&st->strings) != 0) {
        tp_strtab_free(&st->strings);   /* init may have taken part of it */
        free(st);
        return NULL;
    }
    st->base_time_ns = TP_NONE;
    st->left_out_first_ts = INT64_MAX;
    st->left_out_lo = INT64_MAX;
    st->left_out_hi = INT64_MIN;
    st->rank = TP_NONE;
    st->world_size = TP_NONE;
    st->compression = "none";
    pthread_mutex_init(&st->model_lock, NULL);
    return st;
}

void *tp_store_model(const tp_store *st, enum tp_model_id id, void *(*build)(const tp_store *st),
                     void (*free_fn)(void *))
{
    tp_store *w = (tp_store *)st;   /* the cache, not the store's content */
    struct tp_model_slot *m = &w->models[id];
    pthread_mutex_lock(&w->model_lock);
    if (!m->tried) {
        m->p = build(st);
        m->free = free_fn;
        /* Out of memory is not remembered: the next view asks again (and
         * says it is out of memory only if it still is). */
        m->tried = m->p != NULL;
    }
    void *p = m->p;
    pthread_mutex_unlock(&w->model_lock);
    return p;
}

/* The event columns, each st->cap long: grown and freed together. */
#define STORE_COLUMNS(X) X(kind) X(ph) X(ts) X(dur) X(name) X(cat) X(pid) X(tid) X(device) X(stream) \
    X(correlation) X(aux)

/* What tp_store_link adds, freed (and cleared) by free_links. */
#define LINK_ARRAYS(X) X(parent) X(dev_launcher) X(dev_launch_op) X(dev_bits) X(dev_before) X(step) X(annots) X(steps)

/* The side tables of the rows (aux), freed with the store. */
#define SIDE_TABLES(X) X(seqs) X(pys) X(pys32) X(fwds) X(kernels) X(ops) X(mems) X(devices) X(colls)

#define FREE_FIELD(f) free(st->f);
#define FREE_AND_CLEAR(f) free(st->f), st->f = NULL;

static void free_links(tp_store *st)
{
    LINK_ARRAYS(FREE_AND_CLEAR)
    st->ndev = 0;
    st->nannots = st->nsteps = 0;
    tp_attribution_free(&st->attr);
    st->linked = 0;
}

void tp_store_free(tp_store *st)
{
    if (!st)
        return;
    for (size_t i = 0; i < sizeof st->models / sizeof st->models[0]; i++)
        if (st->models[i].p && st->models[i].free)
            st->models[i].free(st->models[i].p);
    pthread_mutex_destroy(&st->model_lock);
    STORE_COLUMNS(FREE_FIELD)
    free(st->ext32);
    free(st->ext64);
    SIDE_TABLES(FREE_FIELD)
    free(st->pyframes.ts);
    free(st->pyframes.at);
    free(st->pyframes.ids32);
    free(st->pyframes.ids64);
    tp_npu_free(st->npu);
    free_links(st);
    tp_strtab_free(&st->strings);
    free(st);
}

static int grow_columns(tp_store *st)
{
    size_t cap = st->cap ? st->cap * 2 : 4096;
#define GROW_COLUMN(c) do { \
        void *p_ = realloc(st->c, cap * sizeof *st->c); \
        if (!p_) \
            return -1; \
        st->c = p_; \
    } while (0);
    STORE_COLUMNS(GROW_COLUMN)
    if (st->ext64)
        GROW_COLUMN(ext64)
    else
        GROW_COLUMN(ext32)
#undef GROW_COLUMN
    st->cap = cap;
    return 0;
}

int tp_store_widen_ext(tp_store *st)
{
    if (st->ext64)
        return 0;
    int64_t *w = malloc((st->cap ? st->cap : 1) * sizeof *w);
    if (!w)
        return -1;
    for (size_t i = 0; i < st->n; i++)
        w[i] = st->ext32[i] == TP_EXT32_NONE ? TP_NONE : (int64_t)st->ext32[i];
    free(st->ext32);
    st->ext32 = NULL;
    st->ext64 = w;
    return 0;
}

void tp_store_set_kernel_scope(tp_store *st)
{
    if (st)
        st->kernel_scope = 1;
}

void tp_store_set_lean(tp_store *st, int level)
{
    if (st)
        st->lean = level;
}

int64_t tp_store_add(tp_store *st)
{
    if (st->n == st->cap && grow_columns(st) != 0)
        return -1;
    size_t i = st->n++;
    st->kind[i] = TP_K_OTHER;
    st->ph[i] = 'X';
    st->ts[i] = 0;
    st->dur[i] = 0;
    st->name[i] = 0;
    st->cat[i] = 0;
    st->pid[i] = TP_NONE;
    st->tid[i] = TP_NONE;
    st->device[i] = -1;
    st->stream[i] = -1;
    st->correlation[i] = TP_NONE;
    if (st->ext64)
        st->ext64[i] = TP_NONE;
    else
        st->ext32[i] = TP_EXT32_NONE;
    st->aux[i] = TP_NO_AUX;
    return (int64_t)i;
}

/* A zeroed side-table record (kernels, ops, mems) appended to arr and
 * attached to row `row`; NULL on out of memory.  1024 at first: a trace
 * holds thousands of them. */
static void *add_side(tp_store *st, size_t row, void **arr, size_t *n, size_t *cap, size_t size)
{
    if (tp_grow(arr, cap, *n + 1 < 1024 ? 1024 : *n + 1, size) < 0)
        return NULL;
    st->aux[row] = (uint32_t)*n;
    void *rec = (char *)*arr + *n * size;
    memset(rec, 0, size);
    ++*n;
    return rec;
}

struct tp_kernel_info *tp_store_add_kernel_info(tp_store *st, size_t row)
{
    struct tp_kernel_info *k = add_side(st, row, (void **)&st->kernels, &st->nkernels, &st->capkernels, sizeof *st->kernels);
    if (k) {
        for (int d = 0; d < 3; d++)
            k->grid[d] = k->block[d] = -1;
        k->regs = -1;
        k->smem = -1;
        k->bytes = -1;
        k->blocks_per_sm = NAN;
        k->occupancy = NAN;
        k->sync_record_corr = TP_NONE;
        k->sync_wait_stream = -1;
    }
    return k;
}

struct tp_op_info *tp_store_add_op_info(tp_store *st, size_t row)
{
    struct tp_op_info *o = add_side(st, row, (void **)&st->ops, &st->nops, &st->capops, sizeof *st->ops);
    if (o)
        o->py = TP_NO_AUX;
    return o;
}

struct tp_mem_info *tp_store_add_mem_info(tp_store *st, size_t row)
{
    struct tp_mem_info *m = add_side(st, row, (void **)&st->mems, &st->nmems, &st->capmems, sizeof *st->mems);
    if (m) {
        m->addr = m->bytes = m->total_allocated = m->total_reserved = TP_NONE;
        m->device_type = -1;
        m->device_id = -1;
    }
    return m;
}

int tp_store_copy_info(tp_store *dst, size_t row, const tp_store *src, size_t i, struct tp_op_info **op)
{
    uint32_t a = src->aux[i];
    *op = NULL;
    switch (src->kind[i]) {
    case TP_K_KERNEL: case TP_K_MEMCPY: case TP_K_MEMSET: case TP_K_SYNC:
        if (a < src->nkernels) {
            struct tp_kernel_info *ki = tp_store_add_kernel_info(dst, row);
            if (!ki)
                return -1;
            *ki = src->kernels[a];
        }
        return 0;
    case TP_K_MEMORY:
        if (a < src->nmems) {
            struct tp_mem_info *mi = tp_store_add_mem_info(dst, row);
            if (!mi)
                return -1;
            *mi = src->mems[a];
        }
        return 0;
    case TP_K_CPU_OP: case TP_K_USER_ANNOTATION: case TP_K_GPU_USER_ANNOTATION: case TP_K_PYTHON_FUNCTION:
        if (a < src->nops) {
            struct tp_op_info *oi = tp_store_add_op_info(dst, row);
            if (!oi)
                return -1;
            *oi = src->ops[a];
            oi->py = TP_NO_AUX;
            const struct tp_py_info *py = tp_store_py(src, &src->ops[a]);
            if (tp_store_set_py(dst, oi, py->python_id, py->python_parent_id, py->module_id) < 0 ||
                tp_store_set_fwd_thread(dst, dst->aux[row], tp_store_fwd_thread(src, i)) < 0)
                return -1;
            *op = oi;
        }
        return 0;
    default:
        return 0;
    }
}

struct tp_coll_info *tp_store_add_coll_info(tp_store *st, size_t row)
{
    if (st->ncolls && (size_t)st->colls[st->ncolls - 1].row >= row)
        return NULL;   /* out of order: the binary search of tp_store_coll needs rows ascending */
    if (tp_grow((void **)&st->colls, &st->capcolls, st->ncolls + 1, sizeof *st->colls) < 0)
        return NULL;
    struct tp_coll_info *c = &st->colls[st->ncolls++];
    memset(c, 0, sizeof *c);
    c->row = (int64_t)row;
    c->in_nelems = c->out_nelems = c->group_size = c->seq = TP_NONE;
    return c;
}

const struct tp_coll_info *tp_store_coll(const tp_store *st, size_t row)
{
    size_t lo = TP_SEARCH(st->colls, st->ncolls, struct tp_coll_info, row, (int64_t)row, 0);
    return lo < st->ncolls && (size_t)st->colls[lo].row == row ? &st->colls[lo] : NULL;
}

static int py_fits(int64_t v)
{
    return v == TP_NONE || (v >= 0 && v < (int64_t)TP_PY32_NONE);
}

static uint32_t py_narrow(int64_t v)
{
    return v == TP_NONE ? TP_PY32_NONE : (uint32_t)v;
}

static int64_t py_wide(uint32_t v)
{
    return v == TP_PY32_NONE ? TP_NONE : (int64_t)v;
}

const struct tp_py_info *tp_store_py_wide(const tp_store *st, size_t i)
{
    static _Thread_local struct tp_py_info rec;
    const struct tp_py32 *p = &st->pys32[i];
    rec = (struct tp_py_info){py_wide(p->python_id), py_wide(p->python_parent_id), py_wide(p->module_id)};
    return &rec;
}

/* The 32-bit table made struct tp_py_info's (an id that does not fit came):
 * 0, or -1 out of memory. */
static int widen_pys(tp_store *st)
{
    struct tp_py_info *w = malloc((st->cappys ? st->cappys : 1) * sizeof *w);
    if (!w)
        return -1;
    for (size_t i = 0; i < st->npys; i++)
        w[i] = *tp_store_py_wide(st, i);
    free(st->pys32);
    st->pys32 = NULL;
    st->pys = w;
    return 0;
}

int tp_store_put_py(tp_store *st, size_t i, struct tp_py_info v)
{
    if (!st->pys && !(py_fits(v.python_id) && py_fits(v.python_parent_id) && py_fits(v.module_id)) &&
        widen_pys(st) < 0)
        return -1;
    if (st->pys)
        st->pys[i] = v;
    else
        st->pys32[i] = (struct tp_py32){py_narrow(v.python_id), py_narrow(v.python_parent_id), py_narrow(v.module_id)};
    return 0;
}

int tp_store_set_py(tp_store *st, struct tp_op_info *o, int64_t python_id, int64_t python_parent_id,
                    int64_t module_id)
{
    if (python_id == TP_NONE && python_parent_id == TP_NONE && module_id == TP_NONE)
        return 0;
    if (st->npys >= TP_NO_AUX)
        return -1;
    if (st->pys32 && st->npys < st->cappys && py_fits(python_id) && py_fits(python_parent_id) &&
        py_fits(module_id)) {   /* the common case, without the calls below */
        st->pys32[st->npys] = (struct tp_py32){py_narrow(python_id), py_narrow(python_parent_id), py_narrow(module_id)};
        o->py = (uint32_t)st->npys++;
        return 0;
    }
    int grown = st->pys ? tp_grow((void **)&st->pys, &st->cappys, st->npys + 1, sizeof *st->pys)
                        : tp_grow((void **)&st->pys32, &st->cappys, st->npys + 1, sizeof *st->pys32);
    if (grown < 0 || tp_store_put_py(st, st->npys, (struct tp_py_info){python_id, python_parent_id, module_id}) < 0)
        return -1;
    o->py = (uint32_t)st->npys++;
    return 0;
}

/* The (key, value) records sorted by key of the sequence numbers and the
 * "Fwd thread id"s (two int64 each): those at or past `key` dropped, then
 * (key, v) appended unless v is TP_NONE.  0, or -1 out of memory. */
_Static_assert(sizeof(struct tp_seq_rec) == 2 * sizeof(int64_t) && sizeof(struct tp_fwd_rec) == 2 * sizeof(int64_t),
               "keyed records are two int64");
static int set_keyed(void **arr, size_t *n, size_t *cap, size_t key, int64_t v)
{
    int64_t (*rec)[2] = *arr;
    while (*n && (size_t)rec[*n - 1][0] >= key)
        --*n;
    if (v == TP_NONE)
        return 0;
    if (tp_grow(arr, cap, *n + 1, sizeof *rec) < 0)
        return -1;
    rec = *arr;
    rec[*n][0] = (int64_t)key;
    rec[*n][1] = v;
    ++*n;
    return 0;
}

static size_t fwd_at(const tp_store *st, size_t op)
{
    return TP_SEARCH(st->fwds, st->nfwds, struct tp_fwd_rec, op, (int64_t)op, 0);
}

int64_t tp_store_fwd_thread(const tp_store *st, size_t row)
{
    uint32_t a = row < st->n ? st->aux[row] : TP_NO_AUX;
    if (a == TP_NO_AUX || !st->nfwds)
        return TP_NONE;
    size_t k = fwd_at(st, a);
    return k < st->nfwds && (uint32_t)st->fwds[k].op == a ? st->fwds[k].tid : TP_NONE;
}

int tp_store_set_fwd_thread(tp_store *st, size_t op, int64_t tid)
{
    return set_keyed((void **)&st->fwds, &st->nfwds, &st->capfwds, op, tid);
}

/* The frames' ids made 64-bit (an id past 32 bits came): 0, or -1. */
static int widen_pyframes(struct tp_pyframes *f)
{
    int64_t *w = malloc((f->cap ? f->cap : 1) * 2 * sizeof *w);
    if (!w)
        return -1;
    for (size_t i = 0; i < 2 * f->n; i++)
        w[i] = py_wide(f->ids32[i]);
    free(f->ids32);
    f->ids32 = NULL;
    f->ids64 = w;
    return 0;
}

static int realloc_to(void **p, size_t n, size_t size)
{
    void *q = realloc(*p, n * size);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

/* The frames' arrays share one capacity (4096, then doubling). */
static int grow_pyframes(struct tp_pyframes *f)
{
    size_t cap = f->cap ? f->cap * 2 : 4096;
    if (realloc_to((void **)&f->ts, cap, sizeof *f->ts) < 0 || realloc_to((void **)&f->at, cap, sizeof *f->at) < 0 ||
        (f->ids64 ? realloc_to((void **)&f->ids64, 2 * cap, sizeof *f->ids64)
                  : realloc_to((void **)&f->ids32, 2 * cap, sizeof *f->ids32)) < 0)
        return -1;
    f->cap = cap;
    return 0;
}

int tp_store_add_pyframe(tp_store *st, int64_t ts, int64_t python_id, int64_t python_parent_id)
{
    struct tp_pyframes *f = &st->pyframes;
    if (st->n > UINT32_MAX || (f->n == f->cap && grow_pyframes(f) < 0))
        return -1;
    if (!f->ids64 && (!py_fits(python_id) || !py_fits(python_parent_id)) && widen_pyframes(f) < 0)
        return -1;
    size_t i = f->n++;
    f->ts[i] = ts;
    f->at[i] = (uint32_t)st->n;
    if (f->ids64) {
        f->ids64[2 * i] = python_id;
        f->ids64[2 * i + 1] = python_parent_id;
    } else {
        f->ids32[2 * i] = py_narrow(python_id);
        f->ids32[2 * i + 1] = py_narrow(python_parent_id);
    }
    return 0;
}

void tp_store_trim_fwds(tp_store *st)
{
    while (st->nfwds && (size_t)st->fwds[st->nfwds - 1].op >= st->nops)
        st->nfwds--;
}

void tp_store_trim_seqs(tp_store *st)
{
    while (st->nseqs && (size_t)st->seqs[st->nseqs - 1].row >= st->n)
        st->nseqs--;
}

/* One memory record into the peaks: a GPU's first one ("Device Type" 1)
 * gives it a place, while there is room (advice names the first GPU past
 * its threshold, in this order). */
static void peak_add(struct tp_gpu_mem_peak *p, size_t *n, size_t cap, const struct tp_mem_info *m)
{
    if (m->device_type != 1)
        return;
    size_t q = 0;
    while (q < *n && p[q].device_id != m->device_id)
        q++;
    if (q == *n) {
        if (*n == cap)
            return;
        p[(*n)++] = (struct tp_gpu_mem_peak){m->device_id, 0};
    }
    if (m->total_allocated != TP_NONE && m->total_allocated > p[q].peak)
        p[q].peak = m->total_allocated;
}

void tp_store_fold_memory_row(tp_store *st, size_t row)
{
    uint32_t a = st->aux[row];
    if (a != TP_NO_AUX && a < st->nmems)
        peak_add(st->gpu_peaks, &st->ngpu_peaks, TP_GPU_MEM_PEAKS, &st->mems[a]);
    /* no row of such a store has a memory record: the table stays one
     * record long (a malformed event's, dropped with its row, goes too) */
    st->nmems = 0;
    st->gpu_peaks_kept = 1;
    st->n = row;
}

size_t tp_store_gpu_memory_peaks(const tp_store *st, struct tp_gpu_mem_peak *out, size_t cap)
{
    size_t n = 0;
    if (st->gpu_peaks_kept) {
        n = st->ngpu_peaks < cap ? st->ngpu_peaks : cap;
        memcpy(out, st->gpu_peaks, n * sizeof *out);
        return n;
    }
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_MEMORY && st->aux[i] != TP_NO_AUX)
            peak_add(out, &n, cap, &st->mems[st->aux[i]]);
    return n;
}

int tp_store_set_seq(tp_store *st, size_t row, int64_t seq)
{
    return set_keyed((void **)&st->seqs, &st->nseqs, &st->capseqs, row, seq);
}

int64_t tp_store_seq(const tp_store *st, size_t row)
{
    size_t lo = TP_SEARCH(st->seqs, st->nseqs, struct tp_seq_rec, row, (int64_t)row, 0);
    return lo < st->nseqs && (size_t)st->seqs[lo].row == row ? st->seqs[lo].seq : TP_NONE;
}

static struct tp_skip *skip_slot(tp_store *st, const char *reason, uint64_t offset);

void tp_store_skip(tp_store *st, const char *reason, uint64_t offset)
{
    skip_slot(st, reason, offset);
}

void tp_store_bad(tp_store *st, const char *reason, uint64_t offset)
{
    struct tp_skip *s = skip_slot(st, reason, offset);
    s->malformed = 1;
}

static struct tp_skip *row_slot(tp_store *st, const char *reason, int64_t rowid)
{
    struct tp_skip *s = skip_slot(st, reason, rowid < 0 ? 0 : (uint64_t)rowid);
    if (s->count == 1)
        s->at_row = 1;
    return s;
}

void tp_store_skip_row(tp_store *st, const char *reason, int64_t rowid)
{
    row_slot(st, reason, rowid);
}

void tp_store_bad_row(tp_store *st, const char *reason, int64_t rowid)
{
    row_slot(st, reason, rowid)->malformed = 1;
}

static struct tp_skip *skip_slot(tp_store *st, const char *reason, uint64_t offset)
{
    for (size_t i = 0; i < st->nskips; i++)
        if (strcmp(st->skips[i].reason, reason) == 0) {
            st->skips[i].count++;
            return &st->skips[i];
        }
    size_t i = st->nskips < 32 ? st->nskips++ : 31;   /* the last slot takes the overflow */
    if (i == 31 && st->skips[31].count)
        snprintf(st->skips[31].reason, sizeof st->skips[31].reason, "other reasons");
    else
        snprintf(st->skips[i].reason, sizeof st->skips[i].reason, "%s", reason);
    if (!st->skips[i].count)
        st->skips[i].first_offset = offset;
    st->skips[i].count++;
    return &st->skips[i];
}

const char *tp_store_tid_str(const tp_store *st, int64_t tid, char buf[32])
{
    if (tid == TP_NONE)
        return "-";
    if (tid >= 0 && (tid & TP_TID_STRING))
        return tp_store_str(st, (uint32_t)(tid & ~TP_TID_STRING));
    snprintf(buf, 32, "%lld", (long long)tid);
    return buf;
}

uint32_t tp_store_intern_nul(tp_store *st, const char *s, size_t len)
{
    size_t nnul = 0;
    for (size_t i = 0; i < len; i++)
        nnul += s[i] == 0;
    if (len > (SIZE_MAX - 1) / 4)
        return UINT32_MAX;
    char *buf = malloc(len + 3 * nnul + 1);
    if (!buf)
        return UINT32_MAX;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i]) {
            buf[n++] = s[i];
        } else {
            memcpy(buf + n, "\\x00", 4);
            n += 4;
        }
    }
    uint32_t id = tp_strtab_intern(&st->strings, buf, n);
    free(buf);
    return id;
}
