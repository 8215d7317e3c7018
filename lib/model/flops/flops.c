/* flops.c — PyProf prof.py's per-operator formulas (FLOPs, bytes, params, TC).
 *
 * Two dialects (opcall.h): TP_PYPROF_APEX reproduces apex-era prof.py
 * (NVIDIA/apex apex/pyprof, 4ad9b3bd + the `bool` dtype of ca00adac): it
 * reproduces the real lm.csv byte for byte.  TP_PYPROF_3X is the final PyProf
 * (NVIDIA/PyProf 218dcc1) for markers, and our own documented formulas for
 * kineto operators (mod "aten", flops_aten.c).
 *
 * Dispatch follows prof.py's foo() in order (SPEC §5.8); the op classes are
 * the functions cls_*() below, each documented with its formula.  Where the
 * reference asserts (an abort of the whole run), we return prof.py's row
 * defaults instead — op from the marker, params "na=na,", tc "na", 0 FLOPs
 * and 0 bytes — and say why in `warning`.
 *
 * Number types matter for printing: Python's true division makes Conv's
 * FLOPs/bytes and apex Pointwise FLOPs floats ("140000.0"); everything else
 * is an int. */
/* sizes come from the input: products of absurd shapes must wrap, not be UB */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("wrapv")
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flops_int.h"
#include "strlist.h"

/* ---- shared helpers --------------------------------------------------- */

int tp_ff_fail(struct fctx *x, const char *fmt, ...)
{
    if (!x->r->warning[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(x->r->warning, sizeof x->r->warning, fmt, ap);
        va_end(ap);
    }
    return -1;
}

#define REQ(cond, ...) do { if (!(cond)) return tp_ff_fail(x, __VA_ARGS__); } while (0)

static int has_any(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strstr(s, *list))
            return 1;
    return 0;
}

int tp_ff_isz(struct fctx *x, const char *t)
{
    static const char *const b1[] = { "uint8", "int8", "byte", "char", "bool", NULL };
    static const char *const b2[] = { "float16", "half", "int16", "short", NULL };
    static const char *const b4[] = { "float32", "float", "int32", "int", NULL };
    static const char *const b8[] = { "int64", "long", "float64", "double", NULL };
    if (tp_str_in(t, b1)) return 1;
    if (tp_str_in(t, b2)) return 2;
    if (tp_str_in(t, b4)) return 4;
    if (tp_str_in(t, b8)) return 8;
    if (tp_streq(t, "bfloat16")) {
        if (x && !x->r->warning[0])
            snprintf(x->r->warning, sizeof x->r->warning,
                     "bfloat16 counted as 2 bytes (an extension: prof.py aborts on it)");
        return 2;
    }
    return 0;
}

/* typeToString (params of the dict style). */
static const char *type_to_string(const char *t)
{
    if (tp_streq(t, "uint8") || tp_streq(t, "byte") || tp_streq(t, "char")) return "uint8";
    if (tp_streq(t, "int8")) return "int8";
    if (tp_streq(t, "int16") || tp_streq(t, "short")) return "int16";
    if (tp_streq(t, "float16") || tp_streq(t, "half")) return "fp16";
    if (tp_streq(t, "float32") || tp_streq(t, "float")) return "fp32";
    if (tp_streq(t, "int32") || tp_streq(t, "int")) return "int32";
    if (tp_streq(t, "int64") || tp_streq(t, "long")) return "int64";
    if (tp_streq(t, "float64") || tp_streq(t, "double")) return "fp64";
    if (tp_streq(t, "bool")) return "bool";
    if (tp_streq(t, "bfloat16")) return "bf16";
    return NULL;
}

/* PyProf 3.x Dtype str(): typeToString except byte/char keep their names. */
const char *tp_ff_dtype_str(const char *t)
{
    if (tp_streq(t, "byte") || tp_streq(t, "char"))
        return t;
    return type_to_string(t);
}

int64_t tp_ff_numel(const int64_t *shape, int ndim)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= shape[i];
    return n;
}

int tp_ff_broadcast(const int64_t *a, int na, const int64_t *b, int nb, int64_t *out, int *nout)
{
    int n = na > nb ? na : nb;
    if (n > TP_MAX_DIMS)
        return -1;
    for (int i = 0; i < n; i++) {
        int64_t da = i < n - na ? 1 : a[i - (n - na)];
        int64_t db = i < n - nb ? 1 : b[i - (n - nb)];
        if (da == db || db == 1)
            out[i] = da;
        else if (da == 1)
            out[i] = db;
        else
            return -1;
    }
    *nout = n;
    return 0;
}

void tp_ff_int(struct tp_pynum *n, int64_t v) { n->value = (double)v; n->is_float = 0; }
void tp_ff_float(struct tp_pynum *n, double v) { n->value = v; n->is_float = 1; }

size_t tp_ff_tensor_str(char *buf, size_t cap, const int64_t *shape, int ndim, const char *dtype)
{
    size_t n = 0;
    n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "[");
    for (int i = 0; i < ndim; i++)
        n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%lld", i ? "," : "", (long long)shape[i]);
    const char *d = tp_ff_dtype_str(dtype);
    n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "]%s", d ? d : dtype);
    return n;
}

/* ---- params text ------------------------------------------------------- */

struct pb {
    char s[2048];
    size_t n;
};

static void pb_add(struct pb *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pb_add(struct pb *p, const char *fmt, ...)
{
    if (p->n >= sizeof p->s)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(p->s + p->n, sizeof p->s - p->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        p->n += (size_t)k;
    if (p->n > sizeof p->s - 1)
        p->n = sizeof p->s - 1;
}

static void pb_str(struct pb *p, const char *str)
{
    size_t n = strlen(str);
    if (p->n + n >= sizeof p->s)
        n = sizeof p->s - 1 - p->n;
    memcpy(p->s + p->n, str, n);
    p->n += n;
    p->s[p->n] = 0;
}

static void pb_int(struct pb *p, int64_t v)
{
    char buf[24];
    int i = (int)sizeof buf;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    buf[--i] = 0;
    do {
        buf[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        buf[--i] = '-';
    pb_str(p, buf + i);
}

/* Python tuple repr without spaces: (), (a,), (a,b) */
static void pb_tuple(struct pb *p, const int64_t *sh, int nd)
{
    pb_str(p, "(");
    for (int i = 0; i < nd; i++) {
        if (i)
            pb_str(p, ",");
        pb_int(p, sh[i]);
    }
    pb_str(p, nd == 1 ? ",)" : ")");
}

static void pb_kv_int(struct pb *p, const char *k, int64_t v)
{
    pb_str(p, k);
    pb_str(p, "=");
    pb_int(p, v);
    pb_str(p, ",");
}

static void pb_kv_shape(struct pb *p, const char *k, const int64_t *sh, int nd)
{
    pb_str(p, k);
    pb_str(p, "=");
    pb_tuple(p, sh, nd);
    pb_str(p, ",");
}

static int pb_type(struct fctx *x, struct pb *p, const char *t)
{
    const char *s = type_to_string(t);
    REQ(s, "unsupported dtype '%s'", t);
    if (tp_streq(t, "bfloat16"))
        tp_ff_isz(x, t);
    pb_str(p, s);
    pb_str(p, ",");
    return 0;
}

/* The dict-style params string, spaces removed as setParams does. */
static void pb_done(struct fctx *x, struct pb *p)
{
    size_t o = 0;
    for (size_t i = 0; i < p->n && o + 1 < sizeof x->r->params; i++)
        if (p->s[i] != ' ')
            x->r->params[o++] = p->s[i];
    x->r->params[o] = 0;
}

/* The params string unchanged (PyProf 3.x str params). */
static void pb_copy(struct fctx *x, const struct pb *p)
{
    size_t n = p->n < sizeof x->r->params - 1 ? p->n : sizeof x->r->params - 1;
    memcpy(x->r->params, p->s, n);
    x->r->params[n] = 0;
}

/* Tensor-str params of PyProf 3.x: joined with ";". */
static void pb_tensor(struct pb *p, const int64_t *sh, int nd, const char *dtype)
{
    if (p->n)
        pb_str(p, ";");
    pb_str(p, "[");
    for (int i = 0; i < nd; i++) {
        if (i)
            pb_str(p, ",");
        pb_int(p, sh[i]);
    }
    pb_str(p, "]");
    const char *d = tp_ff_dtype_str(dtype);
    pb_str(p, d ? d : dtype);
}

/* ---- argument helpers -------------------------------------------------- */

static const struct tp_arg *arg(struct fctx *x, int i) { return i < x->c->nargs ? &x->c->args[i] : NULL; }

static int has_shape(const struct tp_arg *a)
{
    return a && (a->type == TP_ARG_TENSOR || (a->type == TP_ARG_OTHER && tp_streq(a->svalue, "ndarray")));
}

static int is_tensor(const struct tp_arg *a) { return a && a->type == TP_ARG_TENSOR; }

static int same_shape(const struct tp_arg *a, const struct tp_arg *b)
{
    if (a->ndim != b->ndim)
        return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i])
            return 0;
    return 1;
}

/* Python type name of a marker argument ('tensor', 'int', ...). */
static const char *pytype(const struct tp_arg *a)
{
    switch (a->type) {
    case TP_ARG_TENSOR: return "tensor";
    case TP_ARG_INT: return "int";
    case TP_ARG_FLOAT: return "float";
    case TP_ARG_BOOL: return "bool";
    case TP_ARG_STR: return "str";
    case TP_ARG_NONE: return "NoneType";
    case TP_ARG_LIST: return a->svalue[0] ? a->svalue : "list";
    default: return a->svalue;
    }
}

/* Positional (unnamed) arguments in order. */
static int unnamed(struct fctx *x, const struct tp_arg **out)
{
    int n = 0;
    for (int i = 0; i < x->c->nargs; i++)
        if (!x->c->args[i].name[0])
            out[n++] = &x->c->args[i];
    return n;
}

static const struct tp_arg *named(struct fctx *x, const char *name)
{
    for (int i = 0; i < x->c->nargs; i++)
        if (tp_streq(x->c->args[i].name, name))
            return &x->c->args[i];
    return NULL;
}

/* args[i] if it is positional, else the named one (`list(filter(...))[0]`). */
static const struct tp_arg *pos_or_named(struct fctx *x, const struct tp_arg *const *args, int n, int i,
                                         const char *name)
{
    (void)x;
    if (i < n && !args[i]->name[0])
        return args[i];
    for (int j = 0; j < n; j++)
        if (tp_streq(args[j]->name, name))
            return args[j];
    return NULL;
}

static int isz_req(struct fctx *x, const char *t, int *out)
{
    *out = tp_ff_isz(x, t);
    REQ(*out, "unsupported dtype '%s'", t);
    return 0;
}

static void set_op(struct fctx *x, const char *op) { snprintf(x->r->op, sizeof x->r->op, "%s", op); }
static void set_tc(struct fctx *x, const char *tc) { snprintf(x->r->tc, sizeof x->r->tc, "%s", tc); }

/* The end of a class that never runs on Tensor Cores: its FLOPs, bytes and
 * op; 0. */
static int done_no_tc(struct fctx *x, int64_t flops, int64_t bytes, const char *op)
{
    tp_ff_int(&x->r->flops, flops);
    tp_ff_int(&x->r->bytes, bytes);
    set_tc(x, "-");
    set_op(x, op);
    return 0;
}

/* The call's arguments but out= (prof.py drops it before counting); how many. */
static int args_but_out(const struct tp_opcall *c, const struct tp_arg **f)
{
    int n = 0;
    for (int j = 0; j < c->nargs; j++)
        if (!tp_streq(c->args[j].name, "out"))
            f[n++] = &c->args[j];
    return n;
}

/* The arguments of torch.NAME or Tensor.NAME, `out` aside: *out[i] is the
 * i-th, given by position or as names[i] (NULL when neither).  0, or -1
 * (the warning set) unless the module is one of these and there are `want`. */
static int tensor_fn_args(struct fctx *x, const char *name, const char *const *names, int want,
                          const struct tp_arg **const *out)
{
    const struct tp_opcall *c = x->c;
    REQ(tp_streq(c->mod, "Tensor") || tp_streq(c->mod, "torch"), "%s: module %s", name, c->mod);
    const struct tp_arg *f[TP_MAX_ARGS];
    int n = args_but_out(c, f);
    REQ(n == want, "%s: %d arguments", name, n);
    for (int i = 0; i < want; i++)
        *out[i] = pos_or_named(x, f, n, i, names[i]);
    return 0;
}

/* TC test of the GEMM classes: apex 884gemm/1688gemm, 3.x the whitelist. */
static const char *tc_gemm(struct fctx *x, const char *const *apex_list)
{
    if (x->apex)
        return has_any(x->k, apex_list) ? "1" : "0";
    return tp_kernel_uses_tc(x->k) ? "1" : "0";
}

static const char *const TC_GEMMS[] = { "884gemm", "1688gemm", NULL };
static const char *const TC_884[] = { "884gemm", NULL };

/* A simple "T=shape,type" (dict) or "[..]type" (3.x str) params for one tensor. */
static int params_T(struct fctx *x, const struct tp_arg *a, int str_style)
{
    struct pb p = { .n = 0 };
    if (str_style) {
        REQ(tp_ff_dtype_str(a->dtype), "unsupported dtype '%s'", a->dtype);
        pb_tensor(&p, a->shape, a->ndim, a->dtype);
        pb_copy(x, &p);
        return 0;
    }
    pb_kv_shape(&p, "T", a->shape, a->ndim);
    if (pb_type(x, &p, a->dtype))
        return -1;
    pb_done(x, &p);
    return 0;
}

/* ---- the op classes ---------------------------------------------------- */

/* Linear (F.linear): x(...,k), w(m,k), b(m) or None.  M=m, N=x[:-1], K=k.
 * GEMM kernel: FLOPs 2·m·N·k, bytes m·N + m·k + N·k·isz (prof.py's operator
 * precedence, kept for parity); bprop sub>=2 0/0.  Bias kernel: m·N FLOPs,
 * 2·m·N·isz bytes. */
static int cls_linear(struct fctx *x)
{
    static const char *const gemm_apex[] = { "gemm", "gemv", "dot_kernel", "splitKreduce_kernel",
                                             "reduce_1Block_kernel", NULL };
    static const char *const gemm_3x[] = { "gemm", "gemv", "dot_kernel", "splitKreduce_kernel",
                                           "reduce_1Block_kernel", "cutlass", NULL };
    static const char *const bias_apex[] = { "kernelReduceContigDim", "kernelReduceNoncontigDim_shared",
                                             "elementwise_kernel", "reduce_kernel", NULL };
    static const char *const bias_3x[] = { "kernelReduceContigDim", "kernelReduceNoncontigDim_shared",
                                           "elementwise_kernel", "reduce_kernel", "kernelPointwiseApply2",
                                           "2d_grouped_direct_kernel", NULL };
    const struct tp_opcall *c = x->c;
    REQ(tp_streq(c->mod, "torch.nn.functional"), "linear: module %s is not torch.nn.functional", c->mod);
    REQ(c->nargs == 2 || c->nargs == 3, "linear: %d arguments (2 or 3 expected)", c->nargs);
    const struct tp_arg *X = arg(x, 0), *W = arg(x, 1), *B = c->nargs == 3 ? arg(x, 2) : NULL;
    if (B) {
        REQ(is_tensor(X) && is_tensor(W), "linear: input and weight must be tensors");
        if (B->type == TP_ARG_TENSOR)
            REQ(B->ndim == 1, "linear: bias is not 1-D");
        else
            REQ(B->type == TP_ARG_NONE, "linear: bias is a %s", pytype(B));
        if (B->type == TP_ARG_NONE)
            B = NULL;
    }
    REQ(has_shape(X) && has_shape(W) && X->ndim >= 1, "linear: input/weight without shape");
    REQ(W->ndim == 2, "linear: weight is not 2-D");
    int64_t k = X->shape[X->ndim - 1], m = W->shape[0];
    REQ(k == W->shape[1], "linear: inner dimensions differ");
    if (B)
        REQ(B->shape[0] == m, "linear: bias length differs");
    REQ(tp_streq(X->dtype, W->dtype), "linear: input and weight dtypes differ");
    int64_t N = tp_ff_numel(X->shape, X->ndim - 1);
    const char *op;
    if (has_any(x->k, x->apex ? gemm_apex : gemm_3x))
        op = "linear";
    else if (x->apex ? tp_str_in(x->k, bias_apex) : has_any(x->k, bias_3x))
        op = "bias";
    else
        return tp_ff_fail(x, "linear: kernel %s is neither a GEMM nor a bias kernel", x->k);
    int isz;
    if (isz_req(x, X->dtype, &isz))
        return -1;
    struct pb p = { .n = 0 };
    const char *t = X->dtype;
    /* N prints as an int when x is 2-D, else as the tuple x[:-1] */
    char nbuf[256];
    {
        struct pb q = { .n = 0 };
        if (X->ndim - 1 == 1)
            pb_add(&q, "%lld", (long long)X->shape[0]);
        else
            pb_tuple(&q, X->shape, X->ndim - 1);
        size_t nn = q.n < sizeof nbuf - 1 ? q.n : sizeof nbuf - 1;
        memcpy(nbuf, q.s, nn);
        nbuf[nn] = 0;
    }
    int64_t f = 0, b = 0;
    if (tp_streq(op, "linear")) {
        if (!x->bp) {
            pb_add(&p, "M=%lld,N=%s,K=%lld,", (long long)m, nbuf, (long long)k);
        } else if (x->sub == 0) {
            pb_add(&p, "M=%lld,N=%s,K=%lld,", (long long)k, nbuf, (long long)m);
        } else if (x->sub == 1) {
            pb_add(&p, "M=%lld,N=%lld,K=%s,", (long long)k, (long long)m, nbuf);
        } else {
            pb_kv_shape(&p, "X", X->shape, X->ndim);
            pb_kv_shape(&p, "W", W->shape, W->ndim);
        }
        if (!x->bp || x->sub == 0 || x->sub == 1) {
            f = m * N * k * 2;
            b = m * N + m * k + N * k * isz;
        }
        set_tc(x, tc_gemm(x, TC_884));
    } else {
        pb_add(&p, "M=%lld,N=%s,", (long long)m, nbuf);
        f = m * N;
        b = 2 * m * N * isz;
        set_tc(x, "-");
    }
    if (pb_type(x, &p, t))
        return -1;
    pb_done(x, &p);
    set_op(x, op);
    tp_ff_int(&x->r->flops, f);
    tp_ff_int(&x->r->bytes, b);
    return 0;
}

/* RNNCell / LSTMCell / GRUCell forward: x(B,X), h(B,H), mult = 4/3/1.
 * fprop sub%3: 0 layer GEMM (M=mult·H, N=B, K=X), 1 recurrent GEMM (K=H),
 * 2 elementwise ((2·mult+3)·H·B elements, 0 FLOPs).  bprop: the GEMM shape is
 * read from the kernel's CTA tile ("128x64") × grid.  GEMM FLOPs 2mnk, bytes
 * (mk+kn+mn)·isz. */
static int cls_rnncell(struct fctx *x)
{
    const struct tp_opcall *c = x->c;
    REQ(tp_streq(c->op, "forward"), "rnncell: op is not forward");
    REQ(tp_streq(c->mod, "LSTMCell") || tp_streq(c->mod, "GRUCell") || tp_streq(c->mod, "RNNCell"),
        "rnncell: module %s", c->mod);
    REQ(c->nargs == 2 || c->nargs == 3, "rnncell: %d arguments", c->nargs);
    const struct tp_arg *X = arg(x, 0), *H = arg(x, 1);
    REQ(has_shape(X) && has_shape(H) && X->ndim == 2 && H->ndim == 2, "rnncell: inputs are not 2-D");
    REQ(X->shape[0] == H->shape[0], "rnncell: batch sizes differ");
    REQ(tp_streq(X->dtype, H->dtype), "rnncell: dtypes differ");
    int64_t B = X->shape[0], in = X->shape[1], hid = H->shape[1];
    int64_t mult = tp_streq(c->mod, "LSTMCell") ? 4 : tp_streq(c->mod, "GRUCell") ? 3 : 1;
    const char *gemm = NULL;
    int64_t m = 0, n = 0, k = 0, elems = 0;
    if (!x->bp) {
        int s = x->sub % 3;
        if (s < 0)
            s += 3;
        if (s == 0) { gemm = "layer"; m = mult * hid; n = B; k = in; }
        else if (s == 1) { gemm = "recur"; m = mult * hid; n = B; k = hid; }
        else elems = mult * hid * B * 2 + 2 * hid * B + hid * B;
    } else if (strstr(x->k, "gemm") &&
               (strstr(x->k, "sgemm") || strstr(x->k, "884gemm") || strstr(x->k, "hgemm"))) {
        /* ctaTile: the one "_" token containing "x" but not "slice" */
        char name[256];
        snprintf(name, sizeof name, "%s", x->k);
        const char *tile = NULL;
        int ntile = 0;
        for (char *save = NULL, *tok = strtok_r(name, "_", &save); tok; tok = strtok_r(NULL, "_", &save))
            if (strchr(tok, 'x') && !strstr(tok, "slice")) {
                tile = tok;
                ntile++;
            }
        REQ(ntile == 1, "rnncell: no single CTA tile in kernel name %s", x->k);
        long long tx, ty;
        char rest;
        REQ(sscanf(tile, "%lldx%lld%c", &tx, &ty, &rest) == 2, "rnncell: bad CTA tile %s", tile);
        REQ(x->grid, "rnncell: grid unknown");
        int64_t gm = tx * x->grid[0], gn = ty * x->grid[1];
        size_t L = strlen(x->k);
        const char *end3 = L >= 3 ? x->k + L - 3 : x->k;
        if (tp_streq(end3, "_nn")) {
            if (gm == hid) { gemm = "recur"; m = gm; n = B; k = mult * hid; }
            else if (gm == in) { gemm = "layer"; m = gm; n = gn; k = mult * hid; }
        } else if (tp_streq(end3, "_nt")) {
            if (gm == hid || gm == in) {
                REQ(gn == mult * hid, "rnncell: wgrad N %lld != %lld", (long long)gn, (long long)(mult * hid));
                gemm = gm == hid ? "recur" : "layer";
                m = gm; n = gn; k = B;
            }
        }
    }
    struct pb p = { .n = 0 };
    if (!gemm) {
        pb_add(&p, "cell=%s,", c->mod);
        pb_kv_int(&p, "X", in);
        pb_kv_int(&p, "H", hid);
        pb_kv_int(&p, "B", B);
    } else {
        pb_add(&p, "gemm=%s,", gemm);
        pb_kv_int(&p, "M", m);
        pb_kv_int(&p, "N", n);
        pb_kv_int(&p, "K", k);
    }
    int isz;
    if (isz_req(x, X->dtype, &isz) || pb_type(x, &p, X->dtype))
        return -1;
    pb_done(x, &p);
    set_tc(x, strstr(x->k, "gemm") ? tc_gemm(x, TC_884) : "-");
    set_op(x, c->op);
    if (gemm) {
        tp_ff_int(&x->r->bytes, (m * k + k * n + m * n) * isz);
        tp_ff_int(&x->r->flops, 2 * m * n * k);
    } else {
        tp_ff_int(&x->r->bytes, elems * isz);
        tp_ff_int(&x->r->flops, 0);
    }
    return 0;
}

/* conv1d/conv2d: input (N,C,H,W), weight (K,C/g,R,S); output P×Q with
 * P = int(1 + (H + 2ph - ((R-1)dh + 1)) / sh) (true division, truncated).
 * Compute kernels: FLOPs 2·N·K·P·Q·C·R·S/g and bytes (N·C·H·W + K·C·R·S/g +
 * N·K·P·Q)·isz, both Python floats; when g>1 and the kernel runs per group,
 * C/g and K/g with g=1.  calc_bias_diff: N·K·P·Q FLOPs, 2·N·K·P·Q·isz bytes
 * (ints).  Auxiliary and unknown kernels: 0. */
static int conv_param(struct fctx *x, const struct tp_arg *a, int two, int64_t *v0, int64_t *v1)
{
    if (a->type == TP_ARG_INT || a->type == TP_ARG_BOOL) {
        *v0 = *v1 = a->ivalue;
        return 0;
    }
    REQ(a->type != TP_ARG_FLOAT, "conv: float %s not supported", a->name[0] ? a->name : "parameter");
    if (!two) {      /* conv1d: value[0] of any sequence */
        REQ(a->type == TP_ARG_LIST && a->ndim >= 1 && a->ivalue, "conv: bad %s", pytype(a));
        *v0 = *v1 = a->shape[0];
        return 0;
    }
    REQ(a->type == TP_ARG_LIST && tp_streq(a->svalue, "tuple"), "conv: parameter is a %s, not a tuple", pytype(a));
    REQ(a->ndim == 2 && a->ivalue, "conv: parameter tuple of %d values", a->ndim);
    *v0 = a->shape[0];
    *v1 = a->shape[1];
    return 0;
}

static void conv_bf(int64_t N, double C, int64_t H, int64_t W, double K, int64_t P, int64_t Q, int64_t R,
                    int64_t S, int64_t g, int isz, int ints, double *b, double *f)
{
    if (ints) {      /* g == 1 or a whole-tensor kernel: exact ints, then one division */
        int64_t c = (int64_t)C, kk = (int64_t)K;
        *f = (double)(2 * N * kk * P * Q * c * R * S) / (double)g;
        double e = (double)(N * c * H * W) + (double)(kk * c * R * S) / (double)g;
        e += (double)(N * kk * P * Q);
        *b = e * isz;
    } else {         /* per group: C/g, K/g are floats in Python */
        double ff = (double)(2 * N) * K;
        ff = ff * (double)P * (double)Q * C * (double)R * (double)S;
        *f = ff / 1.0;
        double e = (double)N * C * (double)H * (double)W;
        e += K * C * (double)R * (double)S / 1.0;
        e += (double)N * K * (double)P * (double)Q;
        *b = e * isz;
    }
}

static int cls_conv(struct fctx *x)
{
    static const char *const aux[] = { "nchwToNhwc", "nhwcToNchw", "OffsetsKernel",
        "generateWinogradTilesKernel", "winogradWgradData", "winogradWgradOutput", "winogradWgradDelta",
        "compute_gemm_pointers", "flip_filter", "fft2d_r2c_", "fft2d_c2r_", "fft1d_r2c", "fft1d_c2r",
        "scaleTensor_kernel", NULL };
    static const char *const comp[] = { "_s884cudnn_", "_s1688cudnn_", "_scudnn_", "2d_grouped_direct_kernel",
        "cudnn::detail::implicit_convolve_sgemm", "cudnn::detail::dgrad2d_alg1_1",
        "cudnn::detail::wgrad_alg0_engine", "cudnn::detail::dgrad_engine", "dgrad_1x1_stride_2x2",
        "spatialDepthwiseConvolutionUpdateOutput", "winograd3x3Kernel", "_sgemm_",
        "fermiPlusCgemmLDS128_batched", "_gcgemm_", NULL };
    const struct tp_opcall *c = x->c;
    REQ(tp_streq(c->mod, "torch.nn.functional"), "conv: module %s", c->mod);
    int n = c->nargs;
    REQ(n >= 2 && n <= 7, "conv: %d arguments", n);
    const struct tp_arg *I = arg(x, 0), *Wt = arg(x, 1);
    REQ(is_tensor(I) && is_tensor(Wt), "conv: input/weight are not tensors");
    struct tp_arg def_s = { .type = TP_ARG_INT, .ivalue = 1 }, def_p = { .type = TP_ARG_INT, .ivalue = 0 };
    struct tp_arg def_d = { .type = TP_ARG_INT, .ivalue = 1 }, def_g = { .type = TP_ARG_INT, .ivalue = 1 };
    const struct tp_arg *s = n >= 4 && !c->args[3].name[0] ? &c->args[3] : named(x, "stride");
    const struct tp_arg *p = n >= 5 && !c->args[4].name[0] ? &c->args[4] : named(x, "padding");
    const struct tp_arg *d = n >= 6 && !c->args[5].name[0] ? &c->args[5] : named(x, "dilation");
    const struct tp_arg *g = n == 7 && !c->args[6].name[0] ? &c->args[6] : named(x, "groups");
    if (!s) s = &def_s;
    if (!p) p = &def_p;
    if (!d) d = &def_d;
    if (!g) g = &def_g;
    REQ(g->type == TP_ARG_INT, "conv: groups is a %s", pytype(g));
    int64_t G = g->ivalue;
    int64_t N, C, H, W, K, R, S, P, Q, ph, pw, sh, sw, dh, dw;
    REQ(tp_streq(I->dtype, Wt->dtype), "conv: dtypes differ");
    if (tp_streq(c->op, "conv1d")) {
        REQ(I->ndim == 3 && Wt->ndim == 3, "conv1d: shapes are not 3-D");
        N = I->shape[0]; C = I->shape[1]; W = I->shape[2];
        K = Wt->shape[0]; S = Wt->shape[2];
        REQ(C == Wt->shape[1], "conv1d: channels differ");
        int64_t dummy;
        if (conv_param(x, p, 0, &pw, &dummy) || conv_param(x, s, 0, &sw, &dummy) ||
            conv_param(x, d, 0, &dw, &dummy))
            return -1;
        REQ(G == 1, "conv1d: groups %lld", (long long)G);
        REQ(sw != 0, "conv1d: stride 0");
        REQ(llabs(pw) < (1LL << 31) && llabs(sw) < (1LL << 31) && llabs(dw) < (1LL << 31) && W < (1LL << 31) &&
            S < (1LL << 31), "conv1d: implausible sizes");
        H = 1; R = 1; P = 1; ph = 0; sh = 1; dh = 1;
        Q = (int64_t)(1 + (double)(W + 2 * pw - ((S - 1) * dw + 1)) / (double)sw);
        REQ(W != 1 || Q == 1, "conv1d: W == 1 but Q != 1");
    } else {
        REQ(I->ndim == 4 && Wt->ndim == 4, "conv2d: shapes are not 4-D");
        N = I->shape[0]; C = I->shape[1]; H = I->shape[2]; W = I->shape[3];
        K = Wt->shape[0]; R = Wt->shape[2]; S = Wt->shape[3];
        if (conv_param(x, p, 1, &ph, &pw) || conv_param(x, s, 1, &sh, &sw) || conv_param(x, d, 1, &dh, &dw))
            return -1;
        REQ(G >= 1, "conv2d: groups %lld", (long long)G);
        REQ(llabs(ph) < (1LL << 31) && llabs(pw) < (1LL << 31) && llabs(sh) < (1LL << 31) &&
            llabs(sw) < (1LL << 31) && llabs(dh) < (1LL << 31) && llabs(dw) < (1LL << 31) &&
            H < (1LL << 31) && W < (1LL << 31) && R < (1LL << 31) && S < (1LL << 31),
            "conv2d: implausible sizes");
        REQ(C == Wt->shape[1] * G, "conv2d: channels %lld != %lld x %lld", (long long)C,
            (long long)Wt->shape[1], (long long)G);
        REQ(sh != 0 && sw != 0, "conv2d: stride 0");
        P = (int64_t)(1 + (double)(H + 2 * ph - ((R - 1) * dh + 1)) / (double)sh);
        Q = (int64_t)(1 + (double)(W + 2 * pw - ((S - 1) * dw + 1)) / (double)sw);
        REQ(H != 1 || P == 1, "conv2d: H == 1 but P != 1");
        REQ(W != 1 || Q == 1, "conv2d: W == 1 but Q != 1");
    }
    struct pb pbuf = { .n = 0 };
    pb_kv_int(&pbuf, "N", N); pb_kv_int(&pbuf, "C", C); pb_kv_int(&pbuf, "H", H); pb_kv_int(&pbuf, "W", W);
    pb_kv_int(&pbuf, "K", K); pb_kv_int(&pbuf, "P", P); pb_kv_int(&pbuf, "Q", Q); pb_kv_int(&pbuf, "R", R);
    pb_kv_int(&pbuf, "S", S); pb_kv_int(&pbuf, "ph", ph); pb_kv_int(&pbuf, "pw", pw);
    pb_kv_int(&pbuf, "U", sh); pb_kv_int(&pbuf, "V", sw); pb_kv_int(&pbuf, "dh", dh);
    pb_kv_int(&pbuf, "dw", dw); pb_kv_int(&pbuf, "g", G);
    if (pb_type(x, &pbuf, I->dtype))
        return -1;
    int isz;
    if (isz_req(x, I->dtype, &isz))
        return -1;
    double b = 0, f = 0;
    int isfloat = 0;
    if (has_any(x->k, aux)) {
        b = f = 0;
    } else if (has_any(x->k, comp)) {
        isfloat = 1;
        if (G == 1 || strstr(x->k, "2d_grouped_direct_kernel") ||
            strstr(x->k, "spatialDepthwiseConvolutionUpdateOutput"))
            conv_bf(N, (double)C, H, W, (double)K, P, Q, R, S, G, isz, 1, &b, &f);
        else
            conv_bf(N, (double)C / (double)G, H, W, (double)K / (double)G, P, Q, R, S, 1, isz, 0, &b, &f);
    } else if (strstr(x->k, "calc_bias_diff")) {
        int64_t e = N * K * P * Q;
        f = (double)e;
        b = (double)(2 * e * isz);
    }
    pb_done(x, &pbuf);
    if (isfloat) {
        tp_ff_float(&x->r->bytes, b);
        tp_ff_float(&x->r->flops, f);
    } else {
        tp_ff_int(&x->r->bytes, (int64_t)b);
        tp_ff_int(&x->r->flops, (int64_t)f);
    }
    if (x->apex) {
        static const char *const tc[] = { "884cudnn", "1688cudnn", NULL };
        set_tc(x, has_any(x->k, tc) ? "1" : "-");
    } else {
        set_tc(x, tp_kernel_uses_tc(x->k) ? "1" : "-");
    }
    set_op(x, c->op);
    return 0;
}

/* Pointwise ops (SPEC §5.8 list). */
static const char *const PW_UNARY[] = { "abs", "abs_", "neg", "neg_", "reciprocal", "reciprocal_", "__abs__",
                                        "__neg__", "__invert__", NULL };
static const char *const PW_EXPLOG[] = { "exp", "exp_", "exp1m", "exp1m_", "log", "log_", "log10", "log10_",
                                         "log1p", "log1p_", "log2", "log2_", NULL };
static const char *const PW_SQRT[] = { "rsqrt", "rsqrt_", "sqrt", "sqrt_", NULL };
static const char *const PW_REPR[] = { "ceil", "ceil_", "clamp", "clamp_", "floor", "floor_", "frac", "frac_",
                                       "round", "round_", "sign", "sign_", "trunc", "trunc_", NULL };
static const char *const PW_TRIG[] = { "acos", "acos_", "asin", "asin_", "atan", "atan_", "atan2", "atan2_",
                                       "cos", "cos_", "cosh", "cosh_", "sin", "sin_", "sinh", "sinh_", "tan",
                                       "tan_", "sigmoid", "sigmoid_", "tanh", "tanh_", NULL };
static const char *const PW_ERROR[] = { "erf", "erf_", "erfc", "erfc_", "erfinv", "erfinv_", NULL };
static const char *const PW_BINARY[] = { "add", "add_", "div", "div_", "mul", "mul_", "remainder", "remainder_",
                                         "sub", "sub_", "__add__", "__sub__", "__mul__", "__floordiv__",
                                         "__truediv__", "__mod__", "__radd__", "__rsub__", "__rmul__", "__rdiv__",
                                         "__rtruediv__", "__rfloordiv__", "fmod", "fmod_", NULL };
static const char *const PW_IBINARY[] = { "__iadd__", "__isub__", "__imul__", "__itruediv__", NULL };
static const char *const PW_POWER[] = { "pow", "pow_", "__pow__", "__rpow__", NULL };
static const char *const PW_COMP[] = { "lt", "lt_", "gt", "gt_", "ge", "ge_", "le", "le_", "eq", "eq_", "ne",
                                       "ne_", "__lt__", "__gt__", "__ge__", "__le__", "__eq__", "__ne__", NULL };
static const char *const PW_LOGICAL[] = { "__and__", "__or__", "__xor__", "__lshift__", "__rshift__", NULL };
static const char *const PW_ILOGICAL[] = { "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__", NULL };
static const char *const PW_TERNARY[] = { "addcdiv", "addcdiv_", "addcmul", "addcmul_", NULL };
static const char *const PW_MISC[] = { "digamma", "lerp", "lerp_", "mvlgamma", NULL };

/* every op of the lists above, sorted (strcmp order), for bsearch */
static const char *const PW_SORTED[] = {
    "__abs__", "__add__", "__and__", "__eq__", "__floordiv__", "__ge__", "__gt__", "__iadd__", "__iand__",
    "__ilshift__", "__imul__", "__invert__", "__ior__", "__irshift__", "__isub__", "__itruediv__", "__ixor__",
    "__le__", "__lshift__", "__lt__", "__mod__", "__mul__", "__ne__", "__neg__", "__or__", "__pow__",
    "__radd__", "__rdiv__", "__rfloordiv__", "__rmul__", "__rpow__", "__rshift__", "__rsub__", "__rtruediv__",
    "__sub__", "__truediv__", "__xor__", "abs", "abs_", "acos", "acos_", "add", "add_", "addcdiv", "addcdiv_",
    "addcmul", "addcmul_", "asin", "asin_", "atan", "atan2", "atan2_", "atan_", "ceil", "ceil_", "clamp",
    "clamp_", "cos", "cos_", "cosh", "cosh_", "digamma", "div", "div_", "eq", "eq_", "erf", "erf_", "erfc",
    "erfc_", "erfinv", "erfinv_", "exp", "exp1m", "exp1m_", "exp_", "floor", "floor_", "fmod", "fmod_",
    "frac", "frac_", "ge", "ge_", "gt", "gt_", "le", "le_", "lerp", "lerp_", "log", "log10", "log10_",
    "log1p", "log1p_", "log2", "log2_", "log_", "lt", "lt_", "mul", "mul_", "mvlgamma", "ne", "ne_", "neg",
    "neg_", "pow", "pow_", "reciprocal", "reciprocal_", "remainder", "remainder_", "round", "round_", "rsqrt",
    "rsqrt_", "sigmoid", "sigmoid_", "sign", "sign_", "sin", "sin_", "sinh", "sinh_", "sqrt", "sqrt_", "sub",
    "sub_", "tan", "tan_", "tanh", "tanh_", "trunc", "trunc_",
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int is_pointwise(const char *op)
{
    return bsearch(&op, PW_SORTED, sizeof PW_SORTED / sizeof PW_SORTED[0], sizeof PW_SORTED[0], cmp_str) != NULL;
}

/* apex Pointwise: unnamed tensor args only (0 → one (1,) fp32).  elems: 1
 * tensor 2·numel; 2 equal shapes numel × (fp 3 | bp add/sub 2, mul/div 3);
 * 2 broadcast shapes numel(a)+numel(b)+numel(out); 3 equal shapes 4·numel.
 * bytes = elems·isz.  FLOPs elems/2 (a float) for the simple family, elems
 * for fmod, 2·elems for tanh/sigmoid/log*, 10·elems for asin/acos/atan. */
static int pointwise_apex(struct fctx *x)
{
    static const char *const half[] = { "__abs__", "__neg__", "__add__", "__sub__", "__mul__", "__radd__",
        "__rmul__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "abs", "abs_", "neg", "neg_", "add",
        "add_", "div", "div_", "mul", "mul_", "sub", "sub_", "exp", "exp_", "sign", "sign_", "trunc", "trunc_",
        "sin", "sin_", "cos", "cos_", "sinh", "sinh_", "cosh", "cosh_", "sqrt", "sqrt_", "rsqrt", "rsqrt_",
        "__lt__", "__gt__", "__ge__", "__le__", "__eq__", "__ne__", "lt", "lt_", "gt", "gt_", "ge", "ge_", "le",
        "le_", "eq", "eq_", "ne", "ne_", "ceil", "ceil_", "clamp", "clamp_", "floor", "floor_", "round", NULL };
    static const char *const twice[] = { "tanh", "tanh_", "sigmoid", "sigmoid_", "log", "log_", "log2", "log2_",
                                         "log10", "log10_", NULL };
    static const char *const ten[] = { "asin", "asin_", "acos", "acos_", "atan", "atan_", NULL };
    const char *op = x->c->op;
    const struct tp_arg *t[TP_MAX_ARGS];
    int n = 0;
    for (int i = 0; i < x->c->nargs; i++)
        if (!x->c->args[i].name[0] && x->c->args[i].type == TP_ARG_TENSOR)
            t[n++] = &x->c->args[i];
    REQ(n <= 3, "pointwise: %d tensor arguments", n);
    for (int i = 1; i < n; i++)
        REQ(tp_streq(t[i]->dtype, t[0]->dtype), "pointwise: dtypes differ");
    static const int64_t one[1] = { 1 };
    const char *dtype = n ? t[0]->dtype : "float32";
    int64_t elems;
    if (n <= 1) {
        elems = 2 * (n ? tp_ff_numel(t[0]->shape, t[0]->ndim) : 1);
    } else if (n == 2) {
        if (same_shape(t[0], t[1])) {
            elems = tp_ff_numel(t[0]->shape, t[0]->ndim);
            if (!x->bp)
                elems *= 3;
            else if (tp_streq(op, "add") || tp_streq(op, "__add__") || tp_streq(op, "sub") || tp_streq(op, "__sub__") ||
                     tp_streq(op, "__isub__"))
                elems *= 2;
            else if (tp_streq(op, "__mul__") || tp_streq(op, "__rmul__") || tp_streq(op, "div") || tp_streq(op, "__truediv__"))
                elems *= 3;
            else
                return tp_ff_fail(x, "pointwise: %s in bprop not supported by prof.py", op);
        } else {
            int64_t out[TP_MAX_DIMS];
            int no;
            REQ(tp_ff_broadcast(t[0]->shape, t[0]->ndim, t[1]->shape, t[1]->ndim, out, &no) == 0,
                "pointwise: shapes do not broadcast");
            elems = tp_ff_numel(t[0]->shape, t[0]->ndim) + tp_ff_numel(t[1]->shape, t[1]->ndim) +
                    tp_ff_numel(out, no);
        }
    } else {
        REQ(same_shape(t[0], t[1]) && same_shape(t[1], t[2]), "pointwise: 3 tensors of different shapes");
        elems = 4 * tp_ff_numel(t[0]->shape, t[0]->ndim);
    }
    int isz;
    if (isz_req(x, dtype, &isz))
        return -1;
    struct pb p = { .n = 0 };
    pb_add(&p, "T=[");
    if (!n)
        pb_tuple(&p, one, 1);
    for (int i = 0; i < n; i++) {
        if (i)
            pb_add(&p, ",");
        pb_tuple(&p, t[i]->shape, t[i]->ndim);
    }
    pb_add(&p, "],");
    if (pb_type(x, &p, dtype))
        return -1;
    pb_done(x, &p);
    tp_ff_int(&x->r->bytes, elems * isz);
    if (tp_str_in(op, half))
        tp_ff_float(&x->r->flops, (double)elems / 2.0);
    else if (tp_streq(op, "fmod") || tp_streq(op, "fmod_"))
        tp_ff_int(&x->r->flops, elems);
    else if (tp_str_in(op, twice))
        tp_ff_int(&x->r->flops, elems * 2);
    else if (tp_str_in(op, ten))
        tp_ff_int(&x->r->flops, elems * 10);
    else
        tp_ff_int(&x->r->flops, 0);
    set_tc(x, "-");
    set_op(x, op);
    return 0;
}

/* 3.x Pointwise: unnamed args (<=4); tensors, and int/float scalars as 0-d
 * int32/fp32 tensors.  Params "[35,20]fp32;[]fp32".  unary/representation:
 * numel FLOPs, 2·bytes; exp/log/trig/sqrt/erf (one input): 20·numel, 2·bytes;
 * binary/comparison/logical (two inputs, out = broadcast, bool for
 * comparisons): fp numel(out) FLOPs, Σbytes(in)+bytes(out); bp add/sub 0 and
 * 2·bytes(out), mul/div numel(out) and 3·bytes(out); power: 20·numel(out),
 * Σin+out; ternary (3 non-scalar inputs): 3·numel(out), Σin+out. */
struct ten { const int64_t *shape; int ndim; const char *dtype; int64_t numel; int isz; };

static int pointwise_3x(struct fctx *x)
{
    const char *op = x->c->op;
    const struct tp_arg *a[TP_MAX_ARGS];
    int n = unnamed(x, a);
    REQ(n <= 4, "pointwise: %d positional arguments (at most 4)", n);
    struct ten in[4];
    struct pb p = { .n = 0 };
    for (int i = 0; i < n; i++) {
        if (a[i]->type == TP_ARG_TENSOR) {
            in[i].shape = a[i]->shape;
            in[i].ndim = a[i]->ndim;
            in[i].dtype = a[i]->dtype;
        } else if (a[i]->type == TP_ARG_FLOAT || a[i]->type == TP_ARG_INT) {
            in[i].shape = NULL;
            in[i].ndim = 0;
            in[i].dtype = a[i]->type == TP_ARG_FLOAT ? "float" : "int";
        } else {
            return tp_ff_fail(x, "pointwise: argument %d is a %s", i, pytype(a[i]));
        }
        in[i].numel = tp_ff_numel(in[i].shape, in[i].ndim);
        REQ(tp_ff_dtype_str(in[i].dtype), "unsupported dtype '%s'", in[i].dtype);
        if (isz_req(x, in[i].dtype, &in[i].isz))
            return -1;
        pb_tensor(&p, in[i].shape, in[i].ndim, in[i].dtype);
    }
    int64_t b = 0, f = 0;
    int64_t out[TP_MAX_DIMS];
    int no = 0;
    int64_t onumel = 0;
    /* broadcast of the listed inputs; dtype of the first */
    #define BCAST(list, cnt) do { \
            no = (list)[0].ndim; \
            for (int d_ = 0; d_ < no; d_++) out[d_] = (list)[0].shape[d_]; \
            for (int i_ = 1; i_ < (cnt); i_++) { \
                int64_t tmp_[TP_MAX_DIMS]; int nt_; \
                REQ(tp_ff_broadcast(out, no, (list)[i_].shape, (list)[i_].ndim, tmp_, &nt_) == 0, \
                    "pointwise: shapes do not broadcast"); \
                memcpy(out, tmp_, sizeof tmp_); no = nt_; \
            } \
            onumel = tp_ff_numel(out, no); \
        } while (0)
    if (tp_str_in(op, PW_UNARY) || tp_str_in(op, PW_REPR)) {
        REQ(n >= 1, "pointwise: no input");
        b = 2 * in[0].numel * in[0].isz;
        f = in[0].numel;
    } else if (tp_str_in(op, PW_EXPLOG) || tp_str_in(op, PW_TRIG) || tp_str_in(op, PW_SQRT) || tp_str_in(op, PW_ERROR)) {
        REQ(n == 1, "pointwise: %s with %d inputs", op, n);
        b = 2 * in[0].numel * in[0].isz;
        f = in[0].numel * 20;
    } else if (tp_str_in(op, PW_COMP) || tp_str_in(op, PW_BINARY) || tp_str_in(op, PW_IBINARY) ||
               tp_str_in(op, PW_LOGICAL) || tp_str_in(op, PW_ILOGICAL)) {
        REQ(n == 2, "pointwise: %s with %d positional arguments (2 expected)", op, n);
        BCAST(in, 2);
        int oisz = in[0].isz;
        if (!x->bp) {
            b = in[0].numel * in[0].isz + in[1].numel * in[1].isz;
            if (tp_str_in(op, PW_COMP))
                oisz = 1;
            b += onumel * oisz;
            f = onumel;
        } else if (tp_streq(op, "add") || tp_streq(op, "__add__") || tp_streq(op, "sub") || tp_streq(op, "__sub__") ||
                   tp_streq(op, "__isub__")) {
            b = 2 * onumel * oisz;
            f = 0;
        } else if (tp_streq(op, "__mul__") || tp_streq(op, "__imul__") || tp_streq(op, "__rmul__") || tp_streq(op, "div") ||
                   tp_streq(op, "__truediv__")) {
            b = 3 * onumel * oisz;
            f = onumel;
        } else {
            return tp_ff_fail(x, "pointwise: %s bprop not supported by PyProf", op);
        }
    } else if (tp_str_in(op, PW_POWER)) {
        REQ(n == 2, "pointwise: %s with %d inputs", op, n);
        BCAST(in, 2);
        b = in[0].numel * in[0].isz + in[1].numel * in[1].isz + onumel * in[0].isz;
        f = onumel * 20;
    } else if (tp_str_in(op, PW_TERNARY)) {
        struct ten t3[4];
        int m = 0;
        for (int i = 0; i < n; i++)
            if (in[i].ndim)
                t3[m++] = in[i];
        REQ(m == 3, "pointwise: %s with %d tensor inputs (3 expected)", op, m);
        BCAST(t3, 3);
        b = t3[0].numel * t3[0].isz + t3[1].numel * t3[1].isz + t3[2].numel * t3[2].isz + onumel * t3[0].isz;
        f = 3 * onumel;
    } else {
        return tp_ff_fail(x, "pointwise: %s%s not supported by PyProf", op, tp_str_in(op, PW_MISC) ? " (misc)" : "");
    }
    #undef BCAST
    pb_copy(x, &p);
    return done_no_tc(x, f, b, op);
}

/* Convert (Tensor.half() ... .to()): one input; bytes in + out (same shape,
 * target dtype; `to` keeps the dtype); 0 FLOPs.  Params apex T,stype,dtype;
 * 3.x str(input). */
static int cls_convert(struct fctx *x)
{
    const struct tp_opcall *c = x->c;
    REQ(tp_streq(c->mod, "Tensor"), "convert: module %s", c->mod);
    REQ(c->nargs == 1, "convert: %d arguments", c->nargs);
    const struct tp_arg *t = arg(x, 0);
    static const int64_t one[1] = { 1 };
    const int64_t *shape;
    int nd;
    const char *stype;
    if (t->type == TP_ARG_TENSOR) {
        shape = t->shape; nd = t->ndim; stype = t->dtype;
    } else {
        shape = x->apex ? one : NULL;
        nd = x->apex ? 1 : 0;
        stype = pytype(t);
    }
    const char *dtype = tp_streq(c->op, "to") ? stype : c->op;
    int si, di;
    if (isz_req(x, stype, &si) || isz_req(x, dtype, &di))
        return -1;
    int64_t numel = tp_ff_numel(shape, nd);
    if (x->apex) {
        struct pb p = { .n = 0 };
        pb_kv_shape(&p, "T", shape, nd);
        if (pb_type(x, &p, stype) || pb_type(x, &p, dtype))
            return -1;
        pb_done(x, &p);
    } else {
        REQ(tp_ff_dtype_str(stype), "unsupported dtype '%s'", stype);
        tp_ff_tensor_str(x->r->params, sizeof x->r->params, shape, nd, stype);
    }
    return done_no_tc(x, 0, numel * (si + di), c->op);
}

/* Matmul (torch.matmul / Tensor.__matmul__): (b,m,n,k) from numpy's matmul
 * rules, batch broadcast.  Non-GEMM kernels (exact names) 0 FLOPs and
 * 2·isz·numel(A) bytes; else 2·numel(b)·m·n·k and isz·(mn+mk+nk) (batch not
 * in bytes: prof.py's formula). */
static int cls_matmul(struct fctx *x)
{
    static const char *const non_gemm[] = { "kernelPointwiseApply2", "reduce_1Block_kernel", "elementwise_kernel",
                                            NULL };
    static const char *const non_tc[] = { "kernelPointwiseApply2", "reduce_1Block_kernel", "elementwise_kernel",
                                          "dot_kernel", NULL };
    static const char *const any[] = { "kernelPointwiseApply2", "reduce_1Block_kernel", "elementwise_kernel",
                                       "dot_kernel", "gemm", "gemv", NULL };
    const struct tp_opcall *c = x->c;
    REQ((tp_streq(c->mod, "torch") && tp_streq(c->op, "matmul")) || (tp_streq(c->mod, "Tensor") && tp_streq(c->op, "__matmul__")),
        "matmul: %s.%s", c->mod, c->op);
    REQ(c->nargs == 2, "matmul: %d arguments", c->nargs);
    REQ(has_any(x->k, any), "matmul: unexpected kernel %s", x->k);
    const struct tp_arg *A = arg(x, 0), *B = arg(x, 1);
    REQ(has_shape(A) && has_shape(B), "matmul: arguments without shape");
    REQ(tp_streq(A->dtype, B->dtype), "matmul: dtypes differ");
    int la = A->ndim, lb = B->ndim;
    const int64_t *a = A->shape, *bb = B->shape;
    int64_t m, n, k, batch = 1;
    if (la == 1 && lb == 1) {
        REQ(a[0] == bb[0], "matmul: sizes differ");
        m = 1; n = 1; k = a[0];
    } else if (la == 2 && lb == 2) {
        REQ(a[1] == bb[0], "matmul: inner sizes differ");
        m = a[0]; n = bb[1]; k = a[1];
    } else if (la == 1 && lb == 2) {
        REQ(a[0] == bb[0], "matmul: inner sizes differ");
        m = 1; n = bb[1]; k = a[0];
    } else if (la == 2 && lb == 1) {
        REQ(a[1] == bb[0], "matmul: inner sizes differ");
        m = a[0]; n = 1; k = a[1];
    } else if (la == 1 && lb > 2) {
        REQ(a[0] == bb[lb - 2], "matmul: inner sizes differ");
        batch = tp_ff_numel(bb, lb - 2);
        m = 1; n = bb[lb - 1]; k = bb[lb - 2];
    } else if (lb == 1 && la > 2) {
        REQ(bb[0] == a[la - 1], "matmul: inner sizes differ");
        batch = tp_ff_numel(a, la - 2);
        m = a[la - 2]; n = 1; k = a[la - 1];
    } else {
        REQ(la >= 2 && lb >= 2, "matmul: empty shapes");
        REQ(a[la - 1] == bb[lb - 2], "matmul: inner sizes differ");
        m = a[la - 2]; n = bb[lb - 1]; k = a[la - 1];
        int64_t out[TP_MAX_DIMS];
        int no;
        REQ(tp_ff_broadcast(a, la - 2, bb, lb - 2, out, &no) == 0, "matmul: batch shapes do not broadcast");
        batch = tp_ff_numel(out, no);
    }
    int isz;
    if (isz_req(x, A->dtype, &isz))
        return -1;
    struct pb p = { .n = 0 };
    pb_kv_shape(&p, "A", a, la);
    pb_kv_shape(&p, "B", bb, lb);
    if (pb_type(x, &p, A->dtype))
        return -1;
    pb_done(x, &p);
    if (tp_str_in(x->k, non_tc))
        set_tc(x, "-");
    else
        set_tc(x, tc_gemm(x, TC_GEMMS));
    if (tp_str_in(x->k, non_gemm)) {
        tp_ff_int(&x->r->bytes, 2 * isz * tp_ff_numel(a, la));
        tp_ff_int(&x->r->flops, 0);
    } else {
        tp_ff_int(&x->r->bytes, isz * (m * n + m * k + n * k));
        tp_ff_int(&x->r->flops, batch * m * n * k * 2);
    }
    set_op(x, c->op);
    return 0;
}

/* addmm(C, A(m,k), B(k,n)), mm(A, B), bmm(A(b,m,k), B(b,k,n)): params
 * M=n,N=m,K=k (the BLAS column-major view), FLOPs 2·[b]·m·n·k, bytes
 * isz·[b]·(mn+mk+nk). */
static int cls_gemm(struct fctx *x, int kind /* 0 addmm, 1 mm, 2 bmm */)
{
    const struct tp_opcall *c = x->c;
    const struct tp_arg *u[TP_MAX_ARGS];
    int nu = unnamed(x, u);
    const struct tp_arg *A, *B, *C = NULL;
    if (kind == 0) {
        REQ(tp_streq(c->mod, "torch") || tp_streq(c->mod, "Tensor"), "addmm: module %s", c->mod);
        REQ(nu == 3, "addmm: %d positional arguments", nu);
        C = u[0]; A = u[1]; B = u[2];
        REQ(has_shape(A) && has_shape(B) && A->ndim == 2 && B->ndim == 2, "addmm: A/B are not 2-D");
    } else if (kind == 1) {
        REQ(tp_streq(c->mod, "torch") && tp_streq(c->op, "mm"), "mm: %s.%s", c->mod, c->op);
        REQ(c->nargs == 2, "mm: %d arguments", c->nargs);
        A = arg(x, 0); B = arg(x, 1);
        REQ(has_shape(A) && has_shape(B) && A->ndim == 2 && B->ndim == 2, "mm: A/B are not 2-D");
    } else {
        REQ(tp_streq(c->mod, "torch") && tp_streq(c->op, "bmm"), "bmm: %s.%s", c->mod, c->op);
        REQ(nu == 2, "bmm: %d positional arguments", nu);
        A = u[0]; B = u[1];
        REQ(has_shape(A) && has_shape(B) && A->ndim == 3 && B->ndim == 3, "bmm: A/B are not 3-D");
        REQ(A->shape[0] == B->shape[0], "bmm: batch sizes differ");
    }
    int o = kind == 2;
    int64_t bt = kind == 2 ? A->shape[0] : 1;
    int64_t m = A->shape[o], k = A->shape[o + 1], n = B->shape[o + 1];
    REQ(k == B->shape[o], "%s: inner sizes differ", c->op);
    REQ(tp_streq(A->dtype, B->dtype), "%s: dtypes differ", c->op);
    if (C)
        REQ(has_shape(C) && tp_streq(C->dtype, A->dtype), "addmm: C dtype differs");
    int isz;
    if (isz_req(x, A->dtype, &isz))
        return -1;
    struct pb p = { .n = 0 };
    if (kind == 2)
        pb_kv_int(&p, "B", bt);
    pb_kv_int(&p, "M", n);
    pb_kv_int(&p, "N", m);
    pb_kv_int(&p, "K", k);
    if (pb_type(x, &p, A->dtype))
        return -1;
    pb_done(x, &p);
    set_tc(x, tc_gemm(x, TC_GEMMS));
    tp_ff_int(&x->r->flops, bt * m * n * k * 2);
    tp_ff_int(&x->r->bytes, isz * bt * (m * n + m * k + n * k));
    set_op(x, c->op);
    return 0;
}

/* F.embedding(indices, weight(V,E)): fp bytes(indices) + 2·numel(idx)·E·isz;
 * bp 3·numel(idx)·E·isz (0 when sub>0); 0 FLOPs. */
static int cls_embedding(struct fctx *x)
{
    const struct tp_opcall *c = x->c;
    REQ(tp_streq(c->mod, "torch.nn.functional"), "embedding: module %s", c->mod);
    REQ(c->nargs >= 2, "embedding: %d arguments", c->nargs);
    const struct tp_arg *I = arg(x, 0), *E = arg(x, 1);
    REQ(has_shape(I) && has_shape(E), "embedding: arguments without shape");
    REQ(E->ndim == 2, "embedding: weight is not 2-D");
    int ii, ei;
    if (isz_req(x, I->dtype, &ii) || isz_req(x, E->dtype, &ei))
        return -1;
    int64_t n = tp_ff_numel(I->shape, I->ndim), b;
    if (!x->bp)
        b = n * ii + n * E->shape[1] * 2 * ei;
    else
        b = x->sub > 0 ? 0 : n * E->shape[1] * 3 * ei;
    if (x->apex) {
        struct pb p = { .n = 0 };
        pb_kv_shape(&p, "I", I->shape, I->ndim);
        if (pb_type(x, &p, I->dtype))
            return -1;
        pb_kv_shape(&p, "E", E->shape, E->ndim);
        if (pb_type(x, &p, E->dtype))
            return -1;
        pb_done(x, &p);
    } else {
        struct pb p = { .n = 0 };
        REQ(tp_ff_dtype_str(I->dtype) && tp_ff_dtype_str(E->dtype), "unsupported dtype");
        pb_tensor(&p, I->shape, I->ndim, I->dtype);
        pb_tensor(&p, E->shape, E->ndim, E->dtype);
        pb_copy(x, &p);
    }
    return done_no_tc(x, 0, b, c->op);
}

/* sum: numel FLOPs, numel·isz bytes (3.x: 0 bytes when sub>0).
 * mean: numel+1 FLOPs and numel·isz bytes (3.x: +isz, scalar input allowed),
 * both 0 when sub>0.  norm: 2·numel+1 FLOPs, numel·isz bytes (3.x: 0 when
 * sub>0). */
static int cls_reduction(struct fctx *x, int kind /* 0 sum, 1 mean, 2 norm */)
{
    const struct tp_opcall *c = x->c;
    REQ(tp_streq(c->mod, "torch") || tp_streq(c->mod, "Tensor"), "%s: module %s", c->op, c->mod);
    const struct tp_arg *i = NULL;
    struct tp_arg scalar;
    if (kind == 0) {
        REQ(c->nargs >= 1, "sum: no arguments");
        i = !c->args[0].name[0] ? &c->args[0] : named(x, "input");
        REQ(i, "sum: no input");
    } else if (kind == 1) {
        const struct tp_arg *u[TP_MAX_ARGS];
        int nu = unnamed(x, u);
        REQ(nu <= 2 && nu >= 1, "mean: %d positional arguments", nu);
        i = u[0];
    } else {
        REQ(c->nargs >= 1, "norm: no arguments");
        i = &c->args[0];
    }
    if (!has_shape(i)) {
        REQ(kind == 1 && !x->apex && (i->type == TP_ARG_INT || i->type == TP_ARG_FLOAT || i->type == TP_ARG_BOOL),
            "%s: input is a %s", c->op, pytype(i));
        memset(&scalar, 0, sizeof scalar);
        scalar.type = TP_ARG_TENSOR;
        snprintf(scalar.dtype, sizeof scalar.dtype, "%s", pytype(i));
        i = &scalar;
    }
    int isz;
    if (isz_req(x, i->dtype, &isz))
        return -1;
    int64_t n = tp_ff_numel(i->shape, i->ndim);
    int64_t f, b;
    int str_style = 0;
    if (kind == 0) {
        f = n;
        b = n * isz;
        if (!x->apex && x->sub != 0)
            b = 0;
    } else if (kind == 1) {
        f = x->sub == 0 ? n + 1 : 0;
        b = x->sub == 0 ? n * isz + (x->apex ? 0 : isz) : 0;
        str_style = !x->apex;
    } else {
        f = 2 * n + 1;
        b = n * isz;
        if (!x->apex && x->sub != 0)
            f = b = 0;
    }
    if (params_T(x, i, str_style))
        return -1;
    return done_no_tc(x, f, b, c->op);
}

/* One-input classes: dropout (5·numel FLOPs, 2·bytes), softmax (apex 0, 3.x
 * 40·numel FLOPs; fp 3·bytes, bp 5·bytes), log_softmax (apex 0, 3.x
 * 21·numel; same bytes), activation (numel FLOPs; fp 2·bytes, bp 3·bytes),
 * batch_norm (8·numel FLOPs; fp 4·bytes, bp 5·bytes, 3.x 0 when sub>0). */
enum one_kind { K_DROPOUT, K_SOFTMAX, K_LOGSOFTMAX, K_ACTIVATION, K_BATCHNORM };

static int cls_one(struct fctx *x, enum one_kind kind)
{
    const struct tp_opcall *c = x->c;
    const struct tp_arg *u[TP_MAX_ARGS];
    int nu = unnamed(x, u);
    const struct tp_arg *i = NULL;
    switch (kind) {
    case K_DROPOUT:
        REQ(tp_streq(c->mod, "torch.nn.functional"), "dropout: module %s", c->mod);
        i = arg(x, 0);
        break;
    case K_SOFTMAX:
        REQ(tp_streq(c->mod, "torch.nn.functional"), "softmax: module %s", c->mod);
        REQ(nu <= 2 && nu >= 1, "softmax: %d positional arguments", nu);
        i = u[0];
        break;
    case K_LOGSOFTMAX:
        if (x->apex)
            REQ(tp_streq(c->mod, "torch.nn.functional"), "log_softmax: module %s (apex prof.py needs F)", c->mod);
        else
            REQ(tp_streq(c->mod, "torch") || tp_streq(c->mod, "Tensor") || tp_streq(c->mod, "torch.nn.functional"),
                "log_softmax: module %s", c->mod);
        REQ(nu <= 2 && nu >= 1, "log_softmax: %d positional arguments", nu);
        i = u[0];
        break;
    case K_ACTIVATION:
        REQ(tp_streq(c->mod, "torch.nn.functional") || tp_streq(c->mod, "torch") || tp_streq(c->mod, "Tensor"),
            "%s: module %s", c->op, c->mod);
        REQ(nu >= 1, "%s: no positional argument", c->op);
        i = u[0];
        REQ(is_tensor(i), "%s: input is a %s", c->op, pytype(i));
        break;
    case K_BATCHNORM:
        if (x->apex)
            REQ(c->nargs == 8, "batch_norm: %d arguments (8 expected)", c->nargs);
        else
            REQ(c->nargs >= 1, "batch_norm: no arguments");
        i = arg(x, 0);
        REQ(is_tensor(i), "batch_norm: input is a %s", pytype(i));
        break;
    }
    REQ(has_shape(i), "%s: input without shape", c->op);
    int isz;
    if (isz_req(x, i->dtype, &isz))
        return -1;
    int64_t n = tp_ff_numel(i->shape, i->ndim), by = n * isz, f = 0, b = 0;
    switch (kind) {
    case K_DROPOUT: f = 5 * n; b = 2 * by; break;
    case K_SOFTMAX: f = x->apex ? 0 : 40 * n; b = by * (x->bp ? 5 : 3); break;
    case K_LOGSOFTMAX: f = x->apex ? 0 : 21 * n; b = by * (x->bp ? 5 : 3); break;
    case K_ACTIVATION: f = n; b = by * (x->bp ? 3 : 2); break;
    case K_BATCHNORM:
        f = 8 * n;
        b = by * (x->bp ? 5 : 4);
        if (!x->apex && x->sub > 0)
            b = 0;
        break;
    }
    if (params_T(x, i, !x->apex))
        return -1;
    return done_no_tc(x, f, b, c->op);
}

/* torch.cat: all tensor args (one dtype); 2·Σbytes (3.x: 0 when sub>0). */
static int cls_cat(struct fctx *x)
{
    const struct tp_opcall *c = x->c;
    REQ(tp_streq(c->mod, "torch"), "cat: module %s", c->mod);
    REQ(c->nargs >= 2, "cat: %d arguments", c->nargs);
    REQ(has_shape(&c->args[0]), "cat: first argument is a %s", pytype(&c->args[0]));
    const char *t = c->args[0].dtype;
    int isz;
    if (isz_req(x, t, &isz))
        return -1;
    struct pb p = { .n = 0 };
    int64_t total = 0;
    int nt = 0;
    if (x->apex)
        pb_add(&p, "T=[");
    for (int i = 0; i < c->nargs; i++) {
        const struct tp_arg *a = &c->args[i];
        if (a->type != TP_ARG_TENSOR)
            continue;
        REQ(tp_streq(a->dtype, t), "cat: dtypes differ");
        total += tp_ff_numel(a->shape, a->ndim);
        if (x->apex) {
            if (nt)
                pb_add(&p, ",");
            pb_tuple(&p, a->shape, a->ndim);
        } else {
            REQ(tp_ff_dtype_str(t), "unsupported dtype '%s'", t);
            pb_tensor(&p, a->shape, a->ndim, t);
        }
        nt++;
    }
    if (x->apex) {
        pb_add(&p, "],");
        if (pb_type(x, &p, t))
            return -1;
        pb_done(x, &p);
    } else {
        REQ(nt > 0, "cat: no tensor arguments");
        pb_copy(x, &p);
    }
    int64_t b = 2 * total * isz;
    if (!x->apex && x->sub != 0)
        b = 0;
    return done_no_tc(x, 0, b, c->op);
}

/* The small data-movement classes, all 0 FLOPs and "T=shape,type" params:
 * reshape 0 bytes; gather 2·bytes; clone/contiguous 2·bytes; any bytes;
 * masked_scatter_ 2·bytes + numel (apex aborts: it compares the seqId list
 * with 0), 0 when sub>0; nonzero bytes + numel·ndim·8 (apex aborts likewise),
 * 0 when sub>0. */
enum mv_kind { M_RESHAPE, M_GATHER, M_CLONE, M_CONTIGUOUS, M_ANY, M_MSCATTER, M_NONZERO };

static int cls_move(struct fctx *x, enum mv_kind kind)
{
    const struct tp_opcall *c = x->c;
    const struct tp_arg *i = NULL;
    struct tp_arg boolarg;
    switch (kind) {
    case M_RESHAPE:
        REQ(tp_streq(c->mod, "Tensor"), "reshape: module %s", c->mod);
        REQ(c->nargs >= 1 && is_tensor(arg(x, 0)), "reshape: input is not a tensor");
        i = arg(x, 0);
        break;
    case M_GATHER: {
        const struct tp_arg *dim, *index;
        if (tensor_fn_args(x, "gather", (const char *const[]){"input", "dim", "index"}, 3,
                           (const struct tp_arg **const[]){&i, &dim, &index}) < 0)
            return -1;
        REQ(is_tensor(i), "gather: input is not a tensor");
        break;
    }
    case M_CLONE: case M_CONTIGUOUS:
        REQ(tp_streq(c->mod, "Tensor"), "%s: module %s", c->op, c->mod);
        REQ(c->nargs == 1, "%s: %d arguments", c->op, c->nargs);
        i = arg(x, 0);
        break;
    case M_ANY:
        REQ(tp_streq(c->mod, "Tensor"), "any: module %s", c->mod);
        if (x->apex) {
            REQ(c->nargs == 1, "any: %d arguments", c->nargs);
            i = arg(x, 0);
        } else {
            REQ(c->nargs == 1 || c->nargs == 2, "any: %d arguments", c->nargs);
            i = arg(x, 0);
            REQ(i->type == TP_ARG_TENSOR || i->type == TP_ARG_BOOL, "any: input is a %s", pytype(i));
            if (i->type == TP_ARG_BOOL) {
                memset(&boolarg, 0, sizeof boolarg);
                boolarg.ndim = 1;
                boolarg.shape[0] = 1;
                snprintf(boolarg.dtype, sizeof boolarg.dtype, "bool");
                boolarg.type = TP_ARG_TENSOR;
                i = &boolarg;
            }
        }
        break;
    case M_MSCATTER: {
        REQ(tp_streq(c->mod, "Tensor"), "masked_scatter_: module %s", c->mod);
        REQ(c->nargs == 3, "masked_scatter_: %d arguments", c->nargs);
        const struct tp_arg *dst = arg(x, 0), *mask = arg(x, 1), *src = arg(x, 2);
        REQ(is_tensor(dst) && is_tensor(mask) && is_tensor(src), "masked_scatter_: arguments are not tensors");
        REQ(tp_streq(mask->dtype, "uint8"), "masked_scatter_: mask is %s", mask->dtype);
        REQ(tp_streq(dst->dtype, src->dtype), "masked_scatter_: dtypes differ");
        REQ(same_shape(dst, mask), "masked_scatter_: shapes differ");
        REQ(!x->apex, "masked_scatter_: apex prof.py compares the seqId list with 0 (TypeError)");
        i = dst;
        break;
    }
    case M_NONZERO:
        REQ(tp_streq(c->mod, "torch") || tp_streq(c->mod, "Tensor"), "nonzero: module %s", c->mod);
        REQ(c->nargs == 1, "nonzero: %d arguments", c->nargs);
        i = arg(x, 0);
        REQ(has_shape(i), "nonzero: input without shape");
        REQ(!x->apex, "nonzero: apex prof.py compares the seqId list with 0 (TypeError)");
        break;
    }
    REQ(has_shape(i), "%s: input without shape", c->op);
    int isz;
    if (isz_req(x, i->dtype, &isz))
        return -1;
    int64_t n = tp_ff_numel(i->shape, i->ndim), b = 0;
    switch (kind) {
    case M_RESHAPE: b = 0; break;
    case M_GATHER: case M_CLONE: case M_CONTIGUOUS: b = 2 * n * isz; break;
    case M_ANY: b = n * isz; break;
    case M_MSCATTER: b = x->sub > 0 ? 0 : 2 * n * isz + n; break;
    case M_NONZERO: b = x->sub > 0 ? 0 : n * isz + n * i->ndim * 8; break;
    }
    if (params_T(x, i, 0))
        return -1;
    return done_no_tc(x, 0, b, c->op);
}

/* index_select(input, dim, index): bytes 2·numel(out)·isz + 8·len(index),
 * out = input with out[dim] = len(index).  apex aborts (numElems of a list). */
static int cls_index_select(struct fctx *x)
{
    const struct tp_opcall *c = x->c;
    const struct tp_arg *t, *d, *i;
    if (tensor_fn_args(x, "index_select", (const char *const[]){"input", "dim", "index"}, 3,
                       (const struct tp_arg **const[]){&t, &d, &i}) < 0)
        return -1;
    REQ(t && d && i && is_tensor(t) && is_tensor(i), "index_select: input/index are not tensors");
    REQ(d->type == TP_ARG_INT, "index_select: dim is a %s", pytype(d));
    REQ(tp_streq(i->dtype, "int64"), "index_select: index is %s", i->dtype);
    REQ(i->ndim == 1, "index_select: index is not 1-D");
    int64_t dim = d->ivalue;
    REQ(dim < t->ndim && dim >= -t->ndim, "index_select: dim %lld out of range", (long long)dim);
    REQ(!x->apex, "index_select: apex prof.py passes a list to numElems (assert)");
    int isz;
    if (isz_req(x, t->dtype, &isz))
        return -1;
    int64_t out[TP_MAX_DIMS];
    memcpy(out, t->shape, sizeof out);
    out[dim < 0 ? dim + t->ndim : dim] = i->shape[0];
    struct pb p = { .n = 0 };
    pb_kv_shape(&p, "T", t->shape, t->ndim);
    pb_kv_int(&p, "D", dim);
    pb_kv_int(&p, "I", i->shape[0]);
    if (pb_type(x, &p, t->dtype))
        return -1;
    pb_done(x, &p);
    return done_no_tc(x, 0, 2 * tp_ff_numel(out, t->ndim) * isz + i->shape[0] * 8, c->op);
}

/* masked_select(input, mask uint8): 2·numel(input)·isz + numel(mask). */
static int cls_masked_select(struct fctx *x)
{
    const struct tp_opcall *c = x->c;
    const struct tp_arg *t, *m;
    if (tensor_fn_args(x, "masked_select", (const char *const[]){"input", "mask"}, 2,
                       (const struct tp_arg **const[]){&t, &m}) < 0)
        return -1;
    REQ(t && m && has_shape(t) && has_shape(m), "masked_select: arguments without shape");
    REQ(tp_streq(m->dtype, "uint8"), "masked_select: mask is %s", m->dtype);
    if (!same_shape(t, m)) {
        int64_t out[TP_MAX_DIMS];
        int no;
        REQ(tp_ff_broadcast(t->shape, t->ndim, m->shape, m->ndim, out, &no) == 0,
            "masked_select: shapes do not broadcast");
    }
    int isz;
    if (isz_req(x, t->dtype, &isz))
        return -1;
    struct pb p = { .n = 0 };
    pb_kv_shape(&p, "T", t->shape, t->ndim);
    pb_kv_shape(&p, "M", m->shape, m->ndim);
    if (pb_type(x, &p, t->dtype))
        return -1;
    pb_done(x, &p);
    return done_no_tc(x, 0, 2 * tp_ff_numel(t->shape, t->ndim) * isz + tp_ff_numel(m->shape, m->ndim), c->op);
}

/* F.mse_loss(input, target, reduction): e = numel × (fp: 3 none / 2 else;
 * bp: 4 none / 3 else); FLOPs 2e+1, bytes e·isz. */
static int cls_mse(struct fctx *x)
{
    const struct tp_opcall *c = x->c;
    REQ(tp_streq(c->mod, "torch.nn.functional"), "mse_loss: module %s", c->mod);
    REQ(c->nargs == 3, "mse_loss: %d arguments", c->nargs);
    const struct tp_arg *all[3] = { arg(x, 0), arg(x, 1), arg(x, 2) };
    const struct tp_arg *in = pos_or_named(x, all, 3, 0, "input"), *tg = pos_or_named(x, all, 3, 1, "target"),
                        *r = pos_or_named(x, all, 3, 2, "reduction");
    REQ(in && tg && r, "mse_loss: missing arguments");
    REQ(is_tensor(in) && is_tensor(tg), "mse_loss: input/target are not tensors");
    REQ(same_shape(in, tg) && tp_streq(in->dtype, tg->dtype), "mse_loss: input/target differ");
    REQ(r->type == TP_ARG_STR, "mse_loss: reduction is a %s", pytype(r));
    REQ(tp_streq(r->svalue, "none") || tp_streq(r->svalue, "mean") || tp_streq(r->svalue, "sum"),
        "mse_loss: reduction %s", r->svalue);
    int isz;
    if (isz_req(x, in->dtype, &isz))
        return -1;
    int none = tp_streq(r->svalue, "none");
    int64_t e = tp_ff_numel(in->shape, in->ndim) * (x->bp ? (none ? 4 : 3) : (none ? 3 : 2));
    struct pb p = { .n = 0 };
    pb_kv_shape(&p, "T", in->shape, in->ndim);
    if (pb_type(x, &p, in->dtype))
        return -1;
    pb_add(&p, "red=%s,", r->svalue);
    pb_done(x, &p);
    return done_no_tc(x, e * 2 + 1, e * isz, c->op);
}

/* apex fused adam(w, hw, m, v, g, ...): bytes 6·numel·isz(w) + numel·isz(g)
 * (+ numel·isz(g) more when w and g differ: the fp16 copy), 0 FLOPs; 3.x 0
 * bytes when sub>0. */
static int cls_adam(struct fctx *x)
{
    const struct tp_opcall *c = x->c;
    REQ(c->nargs == 12 || c->nargs == 14, "adam: %d arguments", c->nargs);
    const struct tp_arg *w = arg(x, 0), *hw = arg(x, 1), *m = arg(x, 2), *v = arg(x, 3), *g = arg(x, 4);
    REQ(is_tensor(w) && is_tensor(hw) && is_tensor(m) && is_tensor(v) && is_tensor(g),
        "adam: arguments are not tensors");
    REQ(same_shape(w, m) && same_shape(m, v) && same_shape(v, g), "adam: shapes differ");
    REQ(same_shape(hw, w) || (hw->ndim == 1 && hw->shape[0] == 0), "adam: hw shape");
    REQ(tp_streq(w->dtype, "float32") && tp_streq(m->dtype, "float32") && tp_streq(v->dtype, "float32"),
        "adam: w/m/v are not float32");
    int wi, gi;
    if (isz_req(x, w->dtype, &wi) || isz_req(x, g->dtype, &gi))
        return -1;
    int64_t n = tp_ff_numel(w->shape, w->ndim);
    int64_t b = 6 * n * wi + n * gi;
    if (!tp_streq(w->dtype, g->dtype))
        b += n * gi;
    if (!x->apex && x->sub != 0)
        b = 0;
    struct pb p = { .n = 0 };
    pb_kv_shape(&p, "T", w->shape, w->ndim);
    if (pb_type(x, &p, w->dtype) || pb_type(x, &p, g->dtype))
        return -1;
    pb_done(x, &p);
    return done_no_tc(x, 0, b, c->op);
}

/* torch.randperm(n): 3n FLOPs, 8n bytes. */
static int cls_randperm(struct fctx *x)
{
    const struct tp_opcall *c = x->c;
    REQ(tp_streq(c->mod, "torch"), "randperm: module %s", c->mod);
    REQ(c->nargs == 1 && c->args[0].type == TP_ARG_INT, "randperm: expects one int");
    int64_t n = c->args[0].ivalue;
    snprintf(x->r->params, sizeof x->r->params, "N=%lld,", (long long)n);
    return done_no_tc(x, n * 3, n * 8, c->op);
}

/* Tensor.copy_(dst, src): numel·(isz(src)+isz(dst)) bytes. */
static int cls_copy(struct fctx *x)
{
    const struct tp_opcall *c = x->c;
    REQ(tp_streq(c->mod, "Tensor"), "copy_: module %s", c->mod);
    REQ(c->nargs == 2, "copy_: %d arguments", c->nargs);
    const struct tp_arg *dst = arg(x, 0), *src = arg(x, 1);
    REQ(dst->type == src->type && has_shape(dst) && has_shape(src), "copy_: arguments without shape");
    REQ(same_shape(dst, src), "copy_: shapes differ");
    int si, di;
    if (isz_req(x, src->dtype, &si) || isz_req(x, dst->dtype, &di))
        return -1;
    struct pb p = { .n = 0 };
    pb_kv_shape(&p, "T", src->shape, src->ndim);
    if (pb_type(x, &p, src->dtype) || pb_type(x, &p, dst->dtype))
        return -1;
    pb_done(x, &p);
    return done_no_tc(x, 0, tp_ff_numel(src->shape, src->ndim) * (si + di), c->op);
}

/* 3.x memory ops: ones/zeros (size list or int args → fp32), ones_like,
 * zeros_like, zero_ (the input), fill_ (args[0]), full(size, value → fp32 or
 * int32): bytes of the tensor written, 0 FLOPs, params str(tensor). */
static int cls_memory(struct fctx *x)
{
    const struct tp_opcall *c = x->c;
    const char *op = c->op;
    int64_t shape[TP_MAX_DIMS];
    int nd = 0;
    const char *dtype = "float";
    if (tp_streq(op, "fill_")) {
        REQ(tp_streq(c->mod, "Tensor"), "fill_: module %s", c->mod);
        REQ(c->nargs == 2 && has_shape(arg(x, 0)), "fill_: expects (tensor, value)");
        nd = c->args[0].ndim;
        memcpy(shape, c->args[0].shape, sizeof shape);
        dtype = c->args[0].dtype;
    } else if (tp_streq(op, "full")) {
        REQ(tp_streq(c->mod, "torch"), "full: module %s", c->mod);
        REQ(c->nargs == 2, "full: %d arguments", c->nargs);
        const struct tp_arg *s = arg(x, 0), *v = arg(x, 1);
        REQ(s->type == TP_ARG_LIST && s->ivalue, "full: size is a %s", pytype(s));
        REQ(v->type == TP_ARG_FLOAT || v->type == TP_ARG_INT, "full: value is a %s", pytype(v));
        nd = s->ndim;
        memcpy(shape, s->shape, sizeof shape);
        dtype = pytype(v);
    } else {
        REQ(tp_streq(c->mod, "torch") || tp_streq(c->mod, "Tensor"), "%s: module %s", op, c->mod);
        if (tp_streq(op, "ones_like") || tp_streq(op, "zero_") || tp_streq(op, "zeros_like")) {
            REQ(c->nargs == 1 && has_shape(arg(x, 0)), "%s: expects one tensor", op);
            nd = c->args[0].ndim;
            memcpy(shape, c->args[0].shape, sizeof shape);
            dtype = c->args[0].dtype;
        } else {
            REQ(c->nargs >= 1, "%s: no arguments", op);
            const struct tp_arg *a0 = arg(x, 0);
            if (a0->type == TP_ARG_LIST) {
                REQ(c->nargs == 1 && a0->ivalue, "%s: bad size", op);
                nd = a0->ndim;
                memcpy(shape, a0->shape, sizeof shape);
            } else if (a0->type == TP_ARG_INT) {
                for (int i = 0; i < c->nargs && nd < TP_MAX_DIMS; i++)
                    if (!c->args[i].name[0] && c->args[i].type == TP_ARG_INT)
                        shape[nd++] = c->args[i].ivalue;
            } else {
                return tp_ff_fail(x, "%s: size is a %s", op, pytype(a0));
            }
        }
    }
    int isz;
    if (isz_req(x, dtype, &isz))
        return -1;
    REQ(tp_ff_dtype_str(dtype), "unsupported dtype '%s'", dtype);
    tp_ff_tensor_str(x->r->params, sizeof x->r->params, shape, nd, dtype);
    return done_no_tc(x, 0, tp_ff_numel(shape, nd) * isz, op);
}

/* Foo (any other op): params "T=[shapes],[dtypes]", 0 FLOPs, 0 bytes. */
static int cls_foo(struct fctx *x)
{
    struct pb p = { .n = 0 };
    pb_add(&p, "T=[");
    int n = 0;
    for (int i = 0; i < x->c->nargs; i++)
        if (x->c->args[i].type == TP_ARG_TENSOR) {
            if (n++)
                pb_add(&p, ",");
            pb_tuple(&p, x->c->args[i].shape, x->c->args[i].ndim);
        }
    pb_add(&p, "],[");
    n = 0;
    for (int i = 0; i < x->c->nargs; i++)
        if (x->c->args[i].type == TP_ARG_TENSOR)
            pb_add(&p, "%s'%s'", n++ ? "," : "", x->c->args[i].dtype);
    pb_add(&p, "]");
    pb_done(x, &p);
    tp_ff_int(&x->r->bytes, 0);
    tp_ff_int(&x->r->flops, 0);
    set_tc(x, "-");
    set_op(x, x->c->op);
    x->r->known = 0;
    return 1;
}

/* ---- dispatch (prof.py foo(), SPEC §5.8) -------------------------------- *
 *
 * prof.py picks an op class with an if-chain on the op name; the chain has
 * one order that matters: the modules' forward (LSTMCell, GRUCell), then
 * linear and conv, then every pointwise op, then the rest, whose names are
 * all different.  So: the three rules that come first, then one sorted
 * table of exact names searched once (bsearch), then Foo.  flops_test
 * checks that the table is sorted and has no name twice. */

/* Every class behind one signature: arg is the class's own selector (the
 * reduction kind, the one_kind, the mv_kind, the gemm kind). */
typedef int (*op_class)(struct fctx *x, int arg);
static int r_linear(struct fctx *x, int a) { (void)a; return cls_linear(x); }
static int r_conv(struct fctx *x, int a) { (void)a; return cls_conv(x); }
static int r_convert(struct fctx *x, int a) { (void)a; return cls_convert(x); }
static int r_matmul(struct fctx *x, int a) { (void)a; return cls_matmul(x); }
static int r_embedding(struct fctx *x, int a) { (void)a; return cls_embedding(x); }
static int r_reduction(struct fctx *x, int a) { return cls_reduction(x, a); }
static int r_one(struct fctx *x, int a) { return cls_one(x, (enum one_kind)a); }
static int r_cat(struct fctx *x, int a) { (void)a; return cls_cat(x); }
static int r_move(struct fctx *x, int a) { return cls_move(x, (enum mv_kind)a); }
static int r_index_select(struct fctx *x, int a) { (void)a; return cls_index_select(x); }
static int r_masked_select(struct fctx *x, int a) { (void)a; return cls_masked_select(x); }
static int r_gemm(struct fctx *x, int a) { return cls_gemm(x, a); }
static int r_mse(struct fctx *x, int a) { (void)a; return cls_mse(x); }
static int r_adam(struct fctx *x, int a) { (void)a; return cls_adam(x); }
static int r_randperm(struct fctx *x, int a) { (void)a; return cls_randperm(x); }
static int r_memory(struct fctx *x, int a) { (void)a; return cls_memory(x); }
static int r_copy(struct fctx *x, int a) { (void)a; return cls_copy(x); }

#define NOT_APEX 1   /* a 3.x class: apex-era prof.py sends the op to Foo */

struct op_route {
    const char *op;
    op_class fn;
    int arg, flags;
};

/* Sorted by name (strcmp).  ROUTE: a class that takes no argument; most
 * ops take one of three routes: an activation (one elementwise pass), a
 * conversion of the dtype, or a fill of memory (a 3.x class). */
#define ROUTE(op, fn) {op, fn, 0, 0}
#define ACTIVATION(op) {op, r_one, K_ACTIVATION, 0}
#define CONVERT(op) ROUTE(op, r_convert)
#define FILL(op) {op, r_memory, 0, NOT_APEX}
static const struct op_route ROUTES[] = {
    ROUTE("__matmul__", r_matmul),
    ROUTE("adam", r_adam),
    ROUTE("addmm", r_gemm),
    ROUTE("addmm_", r_gemm),
    {"any", r_move, M_ANY, 0},
    {"batch_norm", r_one, K_BATCHNORM, 0},
    {"bmm", r_gemm, 2, 0},
    CONVERT("byte"),
    ROUTE("cat", r_cat),
    ACTIVATION("celu"),
    CONVERT("char"),
    {"clone", r_move, M_CLONE, 0},
    {"contiguous", r_move, M_CONTIGUOUS, 0},
    ROUTE("copy_", r_copy),
    CONVERT("double"),
    {"dropout", r_one, K_DROPOUT, 0},
    ACTIVATION("elu"),
    ACTIVATION("elu_"),
    ROUTE("embedding", r_embedding),
    FILL("fill_"),
    CONVERT("float"),
    FILL("full"),
    {"gather", r_move, M_GATHER, 0},
    CONVERT("half"),
    ACTIVATION("hardshrink"),
    ACTIVATION("hardtanh"),
    ACTIVATION("hardtanh_"),
    ROUTE("index_select", r_index_select),
    CONVERT("int"),
    ACTIVATION("leaky_relu"),
    ACTIVATION("leaky_relu_"),
    {"log_softmax", r_one, K_LOGSOFTMAX, 0},
    ACTIVATION("logsigmoid"),
    CONVERT("long"),
    {"masked_scatter_", r_move, M_MSCATTER, 0},
    ROUTE("masked_select", r_masked_select),
    ROUTE("matmul", r_matmul),
    {"mean", r_reduction, 1, 0},
    {"mm", r_gemm, 1, 0},
    ROUTE("mse_loss", r_mse),
    {"nonzero", r_move, M_NONZERO, 0},
    {"norm", r_reduction, 2, 0},
    FILL("ones"),
    FILL("ones_like"),
    ACTIVATION("prelu"),
    ROUTE("randperm", r_randperm),
    ACTIVATION("relu"),
    ACTIVATION("relu6"),
    ACTIVATION("relu_"),
    {"reshape", r_move, M_RESHAPE, 0},
    ACTIVATION("rrelu"),
    ACTIVATION("rrelu_"),
    ACTIVATION("selu"),
    CONVERT("short"),
    ACTIVATION("sigmoid"),
    {"softmax", r_one, K_SOFTMAX, 0},
    ACTIVATION("softplus"),
    ACTIVATION("softshrink"),
    ACTIVATION("softsign"),
    ROUTE("sum", r_reduction),
    ACTIVATION("tanh"),
    ACTIVATION("tanhshrink"),
    ACTIVATION("threshold"),
    ACTIVATION("threshold_"),
    CONVERT("to"),
    FILL("zero_"),
    FILL("zeros"),
    FILL("zeros_like"),
};

static int cmp_route(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const struct op_route *)elem)->op);
}

/* For flops_test: the table, to check its order and that no name repeats. */
const char *tp_flops_route_name(size_t i)
{
    return i < sizeof ROUTES / sizeof *ROUTES ? ROUTES[i].op : NULL;
}

static int dispatch(struct fctx *x)
{
    const char *op = x->c->op, *mod = x->c->mod;
    if ((tp_streq(mod, "LSTMCell") || tp_streq(mod, "GRUCell")) && tp_streq(op, "forward"))
        return cls_rnncell(x);
    if (tp_streq(op, "linear"))
        return r_linear(x, 0);
    if (tp_streq(op, "conv1d") || tp_streq(op, "conv2d"))
        return r_conv(x, 0);
    if (is_pointwise(op))
        return x->apex ? pointwise_apex(x) : pointwise_3x(x);
    const struct op_route *r = bsearch(op, ROUTES, sizeof ROUTES / sizeof *ROUTES, sizeof *ROUTES, cmp_route);
    if (r && !(x->apex && (r->flags & NOT_APEX)))
        return r->fn(x, r->arg);
    return cls_foo(x);
}

void tp_flops_eval_grid(const struct tp_opcall *call, const char *kernel, int bprop, int sub,
                        const int32_t *grid, enum tp_pyprof_dialect dialect, struct tp_flops_result *out)
{
    memset(out, 0, sizeof *out);
    struct fctx x = { .c = call, .k = kernel ? kernel : "", .bp = bprop, .sub = sub, .grid = grid,
                      .apex = dialect == TP_PYPROF_APEX, .r = out };
    int rc = 0;
    /* shapes that are not sizes (negative, or whose element count does not
     * fit in 2^62) get "na" instead of arithmetic on them */
    for (int i = 0; i < call->nargs && rc == 0; i++) {
        const struct tp_arg *a = &call->args[i];
        if (a->type != TP_ARG_TENSOR && !(a->type == TP_ARG_OTHER && tp_streq(a->svalue, "ndarray")))
            continue;
        int64_t n = 1;
        for (int d = 0; d < a->ndim && d < TP_MAX_DIMS; d++)
            if (a->shape[d] < 0 || __builtin_mul_overflow(n, a->shape[d], &n) || n > (INT64_C(1) << 62))
                rc = tp_ff_fail(&x, "argument %d: implausible shape", i);
    }
    if (rc < 0)
        ;
    else if (!x.apex && tp_flops_kineto_owns(call))
        rc = tp_flops_aten(&x);
    else
        rc = dispatch(&x);
    if (rc < 0) {
        /* the reference would abort here: print prof.py's row defaults */
        char w[sizeof out->warning];
        memcpy(w, out->warning, sizeof w);
        memset(out, 0, sizeof *out);
        memcpy(out->warning, w, sizeof w);
        snprintf(out->op, sizeof out->op, "%s", call->op);
        snprintf(out->params, sizeof out->params, "na=na,");
        snprintf(out->tc, sizeof out->tc, "na");
        out->known = 0;
        return;
    }
    out->known = rc == 0;
}

void tp_flops_eval(const struct tp_opcall *call, const char *kernel, int bprop, int sub,
                   enum tp_pyprof_dialect dialect, struct tp_flops_result *out)
{
    tp_flops_eval_grid(call, kernel, bprop, sub, NULL, dialect, out);
}
