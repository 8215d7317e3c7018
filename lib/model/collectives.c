/* collectives.c — one rank's collectives as a plain array of records
 * (tp_coll_extract), and the names, sizes and factors they are read with.
 *
 * Where a collective's facts come from, best first:
 *   - the NCCL kernel's own args (PyTorch >= 2.1 copies the collective
 *     metadata there: "Collective name", "In/Out msg nelems", "dtype",
 *     "Group size", "Process Group Name/Description/Ranks");
 *   - the record_param_comms operator around its launch (the same keys,
 *     and "Seq", the collective's number in its group, in newer PyTorch);
 *   - older traces carry neither: the op is that of the c10d:: or nccl:
 *     operator that launched the kernel (c10d::alltoall_base_,
 *     nccl:all_reduce), the size its tensors' (the c10d:: operator lists
 *     output and input, so the larger is nccl-tests' S; a TensorList shows
 *     no shape there, and the nccl: operator's tensor stands in), and the
 *     kernel's name says the rest (ncclKernel_AllReduce_RING_LL_Sum_float).
 * The group is then unknown: every such collective is in one default group. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "collectives.h"
#include "cmp.h"
#include "grow.h"
#include "search.h"

static const char *const op_names[TP_COLL_NOPS] = {
    [TP_COLL_OTHER] = "other", [TP_COLL_ALL_REDUCE] = "all_reduce", [TP_COLL_ALL_GATHER] = "all_gather",
    [TP_COLL_REDUCE_SCATTER] = "reduce_scatter", [TP_COLL_ALL_TO_ALL] = "all_to_all",
    [TP_COLL_BROADCAST] = "broadcast", [TP_COLL_REDUCE] = "reduce", [TP_COLL_SEND] = "send",
    [TP_COLL_RECV] = "recv", [TP_COLL_SEND_RECV] = "send_recv", [TP_COLL_GATHER] = "gather",
    [TP_COLL_SCATTER] = "scatter", [TP_COLL_BARRIER] = "barrier",
};

const char *tp_coll_op_name(enum tp_coll_op op)
{
    return (unsigned)op < TP_COLL_NOPS ? op_names[op] : "other";
}

enum tp_coll_op tp_coll_op_of(const char *name)
{
    /* lower case without '_' and without the namespace or kernel prefix:
     * "_allgather_base" and "all_gather" both read "allgather..." */
    char s[64];
    size_t n = 0;
    if (!name)
        return TP_COLL_OTHER;
    for (const char *p = name; *p && n + 1 < sizeof s; p++)
        if (*p != '_')
            s[n++] = (char)tolower((unsigned char)*p);
    s[n] = 0;
    static const char *const prefixes[] = {"c10d::", "nccl:", "rccl:", "nccldevkernel", "ncclkernel", "rcclkernel"};
    const char *t = s;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(t, prefixes[i], strlen(prefixes[i])) == 0) {
            t += strlen(prefixes[i]);
            break;
        }
    /* longest words first: "reducescatter" before "reduce", "sendrecv" before "send" */
    static const struct { const char *w; enum tp_coll_op op; } words[] = {
        {"allreduce", TP_COLL_ALL_REDUCE}, {"allgather", TP_COLL_ALL_GATHER},
        {"reducescatter", TP_COLL_REDUCE_SCATTER}, {"alltoall", TP_COLL_ALL_TO_ALL},
        {"broadcast", TP_COLL_BROADCAST}, {"sendrecv", TP_COLL_SEND_RECV}, {"reduce", TP_COLL_REDUCE},
        {"send", TP_COLL_SEND}, {"recv", TP_COLL_RECV}, {"gather", TP_COLL_GATHER},
        {"scatter", TP_COLL_SCATTER}, {"barrier", TP_COLL_BARRIER},
    };
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strncmp(t, words[i].w, strlen(words[i].w)) == 0)
            return words[i].op;
    return TP_COLL_OTHER;
}

double tp_coll_busbw_factor(enum tp_coll_op op, int64_t n)
{
    if (n < 1)
        return 0;
    switch (op) {
    case TP_COLL_ALL_REDUCE: return 2.0 * (double)(n - 1) / (double)n;
    case TP_COLL_ALL_GATHER: case TP_COLL_REDUCE_SCATTER: case TP_COLL_ALL_TO_ALL:
    case TP_COLL_GATHER: case TP_COLL_SCATTER:
        return (double)(n - 1) / (double)n;
    case TP_COLL_BROADCAST: case TP_COLL_REDUCE: case TP_COLL_SEND: case TP_COLL_RECV: case TP_COLL_SEND_RECV:
        return 1.0;
    default: return 0;
    }
}

int tp_coll_dtype_size(const char *dtype)
{
    /* c10's ScalarType names (collective metadata), then Input type's C++ names */
    static const struct { const char *name; int size; } sz[] = {
        {"Float", 4}, {"BFloat16", 2}, {"Half", 2}, {"Double", 8}, {"Long", 8}, {"Int", 4}, {"Short", 2},
        {"Char", 1}, {"Byte", 1}, {"Bool", 1}, {"UInt16", 2}, {"UInt32", 4}, {"UInt64", 8},
        {"ComplexHalf", 4}, {"ComplexFloat", 8}, {"ComplexDouble", 16},
        {"float", 4}, {"double", 8}, {"c10::Half", 2}, {"c10::BFloat16", 2}, {"long int", 8}, {"long", 8},
        {"int64_t", 8}, {"int", 4}, {"short int", 2}, {"short", 2}, {"signed char", 1},
        {"unsigned char", 1}, {"bool", 1}, {"c10::complex<float>", 8}, {"c10::complex<double>", 16},
    };
    if (!dtype)
        return 0;
    for (size_t i = 0; i < sizeof sz / sizeof *sz; i++)
        if (strcmp(dtype, sz[i].name) == 0)
            return sz[i].size;
    /* Float8_e4m3fn, c10::Float8_e5m2, ... */
    return strstr(dtype, "Float8_") ? 1 : 0;
}

/* ---- sizes from an operator's Input Dims / Input type ---- */

/* The i-th element of a JSON list ("[[6144], [24]]", "[\"float\", \"int\"]"):
 * a pointer to it and its length, or NULL. */
static const char *list_item(const char *s, int i, size_t *len)
{
    if (!s || !(s = strchr(s, '[')))
        return NULL;
    s++;
    for (int k = 0;; k++) {
        while (isspace((unsigned char)*s) || *s == ',')
            s++;
        if (!*s || *s == ']')
            return NULL;
        const char *b = s;
        int depth = 0, str = 0;
        for (; *s; s++) {
            if (str) {
                if (*s == '\\' && s[1])
                    s++;
                else if (*s == '"')
                    str = 0;
            } else if (*s == '"') {
                str = 1;
            } else if (*s == '[') {
                depth++;
            } else if (*s == ']') {
                if (depth-- == 0)
                    break;
                if (depth == 0) {
                    s++;
                    break;
                }
            } else if (*s == ',' && depth == 0) {
                break;
            }
        }
        if (k == i) {
            const char *e = s;
            while (e > b && isspace((unsigned char)e[-1]))
                e--;
            *len = (size_t)(e - b);
            return b;
        }
    }
}

/* Bytes of the i-th input: a flat list of dimensions times its type's size;
 * 0 when it is not a tensor of a known type. */
static int64_t input_bytes(const char *dims, const char *types, int i)
{
    size_t dl, tl;
    const char *d = list_item(dims, i, &dl), *t = list_item(types, i, &tl);
    if (!d || !t || dl < 3 || d[0] != '[' || tl < 2 || t[0] != '"')
        return 0;
    char ty[40];
    if (tl - 2 >= sizeof ty)
        return 0;
    memcpy(ty, t + 1, tl - 2);
    ty[tl - 2] = 0;
    int64_t es = tp_coll_dtype_size(ty), numel = 1;
    const char *p = d + 1, *e = d + dl - 1;
    while (p < e) {
        while (p < e && (isspace((unsigned char)*p) || *p == ','))
            p++;
        if (p >= e)
            break;
        char *end;
        long long x = strtoll(p, &end, 10);
        if (end == p || x < 0 || (x && numel > INT64_MAX / 16 / x))
            return 0;   /* nested (TensorList) or not a shape */
        numel *= x;
        p = end;
    }
    return es * numel;
}

static int64_t op_bytes(const tp_store *st, size_t row)
{
    uint32_t a = st->aux[row];
    if (a == TP_NO_AUX || a >= st->nops)
        return 0;
    const char *dims = st->ops[a].input_dims ? tp_store_str(st, st->ops[a].input_dims) : NULL;
    const char *types = st->ops[a].input_types ? tp_store_str(st, st->ops[a].input_types) : NULL;
    int64_t b0 = input_bytes(dims, types, 0), b1 = input_bytes(dims, types, 1);
    return b0 > b1 ? b0 : b1;
}

/* ---- one rank ---- */

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        if (*s != ' ')
            h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

static int64_t count_ranks(const char *ranks)
{
    if (!ranks || !strchr(ranks, '['))
        return 0;
    int64_t n = 0;
    for (const char *p = ranks; *p; p++)
        if (*p >= '0' && *p <= '9' && (p == ranks || p[-1] < '0' || p[-1] > '9'))
            n++;
    return n;
}

static int is_comm_kernel(const tp_store *st, size_t r)
{
    const char *nm = tp_store_str(st, st->name[r]);
    return tp_store_coll(st, r) || strncmp(nm, "nccl", 4) == 0 || strncmp(nm, "rccl", 4) == 0;
}

/* What the operators around the launch say: record_param_comms' metadata,
 * and the c10d:: and nccl: operators' op and size. */
struct around {
    const struct tp_coll_info *param;
    enum tp_coll_op c10d_op, nccl_op;
    int64_t c10d_bytes, nccl_bytes;
};

/* The communication operators (c10d::, nccl:, record_param_comms) by
 * External id: a kernel without a launch record (the plugin's test traces)
 * still finds the operator it was launched by through the id they share. */
struct extop { int64_t ext; int64_t row; };

TP_CMP_FIELDS(cmp_extop, struct extop, ext, row)

static int is_comm_op_name(const char *nm)
{
    return strncmp(nm, "c10d::", 6) == 0 || strncmp(nm, "nccl:", 5) == 0 || strcmp(nm, "record_param_comms") == 0;
}

/* The first of the operators with External id ext (x[*at..] share it). */
static int64_t by_ext(const struct extop *x, size_t n, int64_t ext, size_t *at)
{
    size_t lo = TP_SEARCH(x, n, struct extop, ext, ext, 0);
    *at = lo;
    return lo < n && x[lo].ext == ext ? x[lo].row : -1;
}

/* record_param_comms with the kernel's External id (PyTorch gives the
 * kernel the id of the record_param_comms it was launched in): for a launch
 * whose enclosing operators do not nest it (a range cut at a step's edge). */
static const struct tp_coll_info *param_by_ext(const tp_store *st, const struct extop *x, size_t n, int64_t ext)
{
    size_t i;
    for (by_ext(x, n, ext, &i); i < n && x[i].ext == ext; i++)
        if (strcmp(tp_store_str(st, st->name[x[i].row]), "record_param_comms") == 0)
            return tp_store_coll(st, (size_t)x[i].row);
    return NULL;
}

static void look_around(const tp_store *st, size_t r, const struct extop *x, size_t nx, struct around *a)
{
    memset(a, 0, sizeof *a);
    /* from the launch call's enclosing event: launch_op skips annotations,
     * and legacy nccl:* ranges are user annotations */
    int64_t l = tp_store_launcher(st, r);
    int64_t o = l >= 0 && (size_t)l < st->n && st->parent ? st->parent[l] : tp_store_launch_op(st, r);
    size_t at;
    if (o < 0 && tp_store_ext(st, r) != TP_NONE)
        o = by_ext(x, nx, tp_store_ext(st, r), &at);
    for (int depth = 0; o >= 0 && (size_t)o < st->n && depth < 16; depth++, o = st->parent ? st->parent[o] : -1) {
        const char *nm = tp_store_str(st, st->name[o]);
        if (!a->param && strcmp(nm, "record_param_comms") == 0)
            a->param = tp_store_coll(st, (size_t)o);
        else if (!a->c10d_op && strncmp(nm, "c10d::", 6) == 0) {
            a->c10d_op = tp_coll_op_of(nm);
            a->c10d_bytes = op_bytes(st, (size_t)o);
        } else if (!a->nccl_op && strncmp(nm, "nccl:", 5) == 0) {
            a->nccl_op = tp_coll_op_of(nm);
            a->nccl_bytes = op_bytes(st, (size_t)o);
        }
    }
    if (!a->param && tp_store_ext(st, r) != TP_NONE)
        a->param = param_by_ext(st, x, nx, tp_store_ext(st, r));
}

static void copy_text(char *dst, size_t cap, const tp_store *st, uint32_t id)
{
    snprintf(dst, cap, "%s", id ? tp_store_str(st, id) : "");
}

/* Fill rec from the kernel's metadata (k), the record_param_comms' (p) for
 * what k lacks, else the operators around the launch and the kernel name. */
static void describe(const tp_store *st, size_t r, const struct extop *x, size_t nx, struct tp_coll_rec *rec)
{
    const struct tp_coll_info *k = tp_store_coll(st, r);
    struct around a;
    look_around(st, r, x, nx, &a);
    const struct tp_coll_info *p = a.param;
#define PICK(f, none) (k && k->f != (none) ? k->f : p ? p->f : (none))
    uint32_t name = PICK(name, 0u), dtype = PICK(dtype, 0u), pg = PICK(pg_name, 0u);
    uint32_t desc = PICK(pg_desc, 0u), ranks = PICK(pg_ranks, 0u);
    int64_t in = PICK(in_nelems, TP_NONE), out = PICK(out_nelems, TP_NONE);
    int64_t gsize = PICK(group_size, TP_NONE);
    rec->seq = PICK(seq, TP_NONE);
#undef PICK
    rec->op = name ? tp_coll_op_of(tp_store_str(st, name)) : TP_COLL_OTHER;
    if (rec->op == TP_COLL_OTHER)
        rec->op = a.c10d_op ? a.c10d_op : a.nccl_op ? a.nccl_op : tp_coll_op_of(tp_store_str(st, st->name[r]));
    int64_t es = dtype ? tp_coll_dtype_size(tp_store_str(st, dtype)) : 0;
    int64_t ne = in > out ? in : out;
    rec->bytes = es && ne >= 0 && ne <= INT64_MAX / 16 ? ne * es
               : a.c10d_bytes > 0 ? a.c10d_bytes : a.nccl_bytes > 0 ? a.nccl_bytes : -1;
    rec->group_size = gsize > 0 ? gsize : count_ranks(ranks ? tp_store_str(st, ranks) : NULL);
    if (rec->group_size <= 0 && st->world_size > 0 && !pg)
        rec->group_size = st->world_size;   /* no group named: the default group, the world */
    if (rec->group_size < 0)
        rec->group_size = 0;
    copy_text(rec->group, sizeof rec->group, st, pg);
    copy_text(rec->desc, sizeof rec->desc, st, desc);
    rec->group_id = pg || ranks ? fnv(fnv(0xcbf29ce484222325ULL, pg ? tp_store_str(st, pg) : ""),
                                      ranks ? tp_store_str(st, ranks) : "") | 1
                                : 0;
}

TP_CMP_FIELDS(cmp_rec, struct tp_coll_rec, start, end)

/* nth: the place among the same group and seq (or, without a seq, step), in
 * start order: the records sorted by that key (start order kept by idx). */
struct numkey { uint64_t group; int64_t seq, step; size_t idx; };

TP_CMP_FIELDS(cmp_numkey, struct numkey, group, seq, step, idx)

static int number(struct tp_coll_rec *v, size_t n)
{
    struct numkey *k = malloc((n ? n : 1) * sizeof *k);
    if (!k)
        return -1;
    for (size_t i = 0; i < n; i++)
        k[i] = (struct numkey){v[i].group_id, v[i].seq, v[i].seq != TP_NONE ? 0 : v[i].step, i};
    if (n > 0)
        qsort(k, n, sizeof *k, cmp_numkey);
    for (size_t i = 0; i < n; i++) {
        int same = i > 0 && k[i].group == k[i - 1].group && k[i].seq == k[i - 1].seq && k[i].step == k[i - 1].step;
        v[k[i].idx].nth = same ? v[k[i - 1].idx].nth + 1 : 0;
    }
    free(k);
    return 0;
}

int tp_coll_extract(const tp_store *st, struct tp_coll_list *out)
{
    memset(out, 0, sizeof *out);
    out->rank = st->rank;
    out->base_time_ns = st->base_time_ns;
    size_t cap = 0, nx = 0, capx = 0;
    struct extop *x = NULL;
    for (size_t r = 0; r < st->n; r++) {
        if (st->ph[r] != 'X' || tp_store_ext(st, r) == TP_NONE || st->kind[r] == TP_K_KERNEL ||
            !is_comm_op_name(tp_store_str(st, st->name[r])))
            continue;
        if (tp_grow((void **)&x, &capx, nx + 1, sizeof *x) < 0) {
            free(x);
            return -1;
        }
        x[nx++] = (struct extop){tp_store_ext(st, r), (int64_t)r};
    }
    if (nx > 1)
        if (nx > 0)
            qsort(x, nx, sizeof *x, cmp_extop);
    for (size_t r = 0; r < st->n; r++) {
        if (st->kind[r] != TP_K_KERNEL || st->ph[r] != 'X' || !is_comm_kernel(st, r))
            continue;
        if (tp_grow((void **)&out->v, &cap, out->n + 1, sizeof *out->v) < 0) {
            free(x);
            tp_coll_list_free(out);
            return -1;
        }
        struct tp_coll_rec *rec = &out->v[out->n++];
        memset(rec, 0, sizeof *rec);
        rec->start = st->ts[r];
        rec->end = st->ts[r] + st->dur[r];
        int64_t s = tp_store_row_step(st, (size_t)r);
        rec->step = s >= 0 && (size_t)s < st->nsteps ? st->steps[s].number : TP_NONE;
        describe(st, r, x, nx, rec);
    }
    free(x);
    if (out->n > 1)
        if (out->n > 0)
            qsort(out->v, out->n, sizeof *out->v, cmp_rec);
    if (number(out->v, out->n) < 0) {
        tp_coll_list_free(out);
        return -1;
    }
    return 0;
}

void tp_coll_list_free(struct tp_coll_list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = 0;
}
