/* opcall_kineto.c — a kineto operator ("aten::addmm" with "Input Dims" and
 * "Input type") as a tp_opcall for the FLOP formulas (flops_aten.c).
 *
 *   name "aten::addmm", dims [[512],[32,1024],[1024,512],[],[]],
 *   types ["float","float","float","Scalar","Scalar"]
 *   -> mod "aten", op "addmm", args: 3 float32 tensors, 2 scalars
 *
 * Per position: a tensor when the type is a tensor dtype or the dims are a
 * non-empty list of numbers (kineto dtypes: float→float32, c10::Half→float16,
 * c10::BFloat16→bfloat16, double→float64, long int/int64_t→int64,
 * int→int32, bool→bool, unsigned char→uint8, signed char→int8, short
 * int→int16; an unknown dtype keeps the shape with dtype "");
 * "Scalar"/"Double" → TP_ARG_FLOAT, "Int" → TP_ARG_INT, "Bool" →
 * TP_ARG_BOOL (values are not recorded: svalue "unknown");
 * "TensorList" → TP_ARG_LIST with svalue "TensorList" (when the dims hold one
 * shape per tensor: ndim = count, shape[] = each numel, ivalue = total numel);
 * "GenericList"/"ScalarList"/"IntList" → TP_ARG_LIST (values unknown,
 * ivalue 0); "" → TP_ARG_NONE; other types → TP_ARG_OTHER with svalue = type.
 * The JSON is parsed by the small array parser below (numbers, strings,
 * nested arrays, null/true/false). */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "opcall.h"

static int streq_safe(const char *a, const char *b) { return strcmp(a, b) == 0; }

struct jnode {
    char kind;          /* 'a' array, 'n' number, 's' string, 'z' null/bool */
    int first, next;    /* array: first child; siblings; -1 none */
    int count;
    double num;
    int64_t inum;
    int isint;
    const char *s;      /* string: start (raw, escapes kept) */
    size_t slen;
};

struct jp {
    const char *p, *end;
    struct jnode *nodes;
    int n;
    int depth;
    int max;
};

static void jws(struct jp *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static int jvalue(struct jp *j)
{
    jws(j);
    if (j->p >= j->end || j->n >= j->max || j->depth > 64)
        return -1;
    int id = j->n++;
    struct jnode *nd = &j->nodes[id];
    memset(nd, 0, sizeof *nd);
    nd->first = nd->next = -1;
    char c = *j->p;
    if (c == '[') {
        nd->kind = 'a';
        j->p++;
        j->depth++;
        int prev = -1;
        jws(j);
        if (j->p < j->end && *j->p == ']') {
            j->p++;
            j->depth--;
            return id;
        }
        for (;;) {
            int ch = jvalue(j);
            if (ch < 0)
                return -1;
            if (prev < 0)
                j->nodes[id].first = ch;
            else
                j->nodes[prev].next = ch;
            prev = ch;
            j->nodes[id].count++;
            jws(j);
            if (j->p < j->end && *j->p == ',') {
                j->p++;
                continue;
            }
            if (j->p < j->end && *j->p == ']') {
                j->p++;
                j->depth--;
                return id;
            }
            return -1;
        }
    }
    if (c == '"') {
        nd->kind = 's';
        const char *s = ++j->p;
        while (j->p < j->end && *j->p != '"') {
            if (*j->p == '\\')
                j->p++;
            j->p++;
        }
        if (j->p >= j->end)
            return -1;
        nd->s = s;
        nd->slen = (size_t)(j->p - s);
        j->p++;
        return id;
    }
    if (c == 'n' || c == 't' || c == 'f') {
        nd->kind = 'z';
        while (j->p < j->end && *j->p >= 'a' && *j->p <= 'z')
            j->p++;
        return id;
    }
    char buf[64];
    size_t k = 0;
    while (j->p < j->end && k + 1 < sizeof buf && strchr("+-0123456789.eE", *j->p) && *j->p)
        buf[k++] = *j->p++;
    buf[k] = 0;
    if (!k)
        return -1;
    char *e;
    nd->kind = 'n';
    nd->num = strtod(buf, &e);
    if (*e)
        return -1;
    nd->isint = !strpbrk(buf, ".eE");
    nd->inum = nd->isint ? strtoll(buf, NULL, 10) : (int64_t)nd->num;
    return id;
}

static int jparse(struct jp *j, const char *text)
{
    j->p = text;
    j->end = text + strlen(text);
    j->n = 0;
    j->depth = 0;
    int root = jvalue(j);
    if (root < 0)
        return -1;
    jws(j);
    return j->p == j->end && j->nodes[root].kind == 'a' ? root : -1;
}

static int jchild(const struct jp *j, int arr, int i)
{
    if (arr < 0)
        return -1;
    int c = j->nodes[arr].first;
    while (c >= 0 && i-- > 0)
        c = j->nodes[c].next;
    return c;
}

static int jstreq(const struct jnode *n, const char *s)
{
    return n->kind == 's' && n->slen == strlen(s) && memcmp(n->s, s, n->slen) == 0;
}

static const char *map_dtype(const struct jnode *t)
{
    static const struct { const char *k, *v; } map[] = {
        { "float", "float32" }, { "c10::Half", "float16" }, { "c10::BFloat16", "bfloat16" },
        { "double", "float64" }, { "long int", "int64" }, { "int64_t", "int64" }, { "long", "int64" },
        { "int", "int32" }, { "bool", "bool" }, { "unsigned char", "uint8" }, { "signed char", "int8" },
        { "short int", "int16" }, { "short", "int16" }, { "c10::Float8_e4m3fn", "" },
    };
    if (!t || t->kind != 's')
        return NULL;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (jstreq(t, map[i].k))
            return map[i].v;
    return NULL;
}

static int flat_numbers(const struct jp *j, int arr)
{
    if (arr < 0 || j->nodes[arr].kind != 'a' || j->nodes[arr].count == 0)
        return 0;
    for (int c = j->nodes[arr].first; c >= 0; c = j->nodes[c].next)
        if (j->nodes[c].kind != 'n')
            return 0;
    return 1;
}

int tp_opcall_from_kineto(const char *name, const char *input_dims, const char *input_types,
                          struct tp_opcall *call)
{
    memset(call, 0, sizeof *call);
    if (!name)
        return -1;
    const char *sep = strstr(name, "::");
    if (sep) {
        snprintf(call->mod, sizeof call->mod, "%.*s", (int)(sep - name), name);
        snprintf(call->op, sizeof call->op, "%s", sep + 2);
    } else {
        snprintf(call->op, sizeof call->op, "%s", name);
    }
    /* every JSON value takes at least one byte of text */
    int md = input_dims ? (int)strlen(input_dims) + 1 : 1, mt = input_types ? (int)strlen(input_types) + 1 : 1;
    struct jnode *nodes = malloc((size_t)(md + mt) * sizeof *nodes);
    if (!nodes)
        return TP_OPCALL_NOMEM;
    struct jp jd = { .nodes = nodes, .max = md }, jt = { .nodes = nodes + md, .max = mt };
    int rd = input_dims && *input_dims ? jparse(&jd, input_dims) : -1;
    int rt = input_types && *input_types ? jparse(&jt, input_types) : -1;
    int rc = 0;
    if ((input_dims && *input_dims && rd < 0) || (input_types && *input_types && rt < 0))
        rc = -1;
    int nd = rd >= 0 ? jd.nodes[rd].count : 0, nt = rt >= 0 ? jt.nodes[rt].count : 0;
    int n = nd > nt ? nd : nt;
    for (int i = 0; i < n && rc == 0; i++) {
        if (call->nargs >= TP_MAX_ARGS) {
            rc = -2;
            break;
        }
        struct tp_arg *a = &call->args[call->nargs++];
        int d = rd >= 0 ? jchild(&jd, rd, i) : -1;
        int t = rt >= 0 ? jchild(&jt, rt, i) : -1;
        const struct jnode *tn = t >= 0 ? &jt.nodes[t] : NULL;
        const char *dt = map_dtype(tn);
        char tname[64] = "";
        if (tn && tn->kind == 's')
            snprintf(tname, sizeof tname, "%.*s", (int)tn->slen, tn->s);
        if (dt || flat_numbers(&jd, d) || (tn && tn->kind == 's' && strstr(tname, "c10::complex"))) {
            a->type = TP_ARG_TENSOR;
            snprintf(a->dtype, sizeof a->dtype, "%s", dt ? dt : "");
            if (d >= 0 && jd.nodes[d].kind == 'a')
                for (int c = jd.nodes[d].first; c >= 0; c = jd.nodes[c].next) {
                    if (a->ndim >= TP_MAX_DIMS) {
                        rc = -2;
                        break;
                    }
                    a->shape[a->ndim++] = jd.nodes[c].inum;
                }
        } else if (streq_safe(tname, "TensorList")) {
            a->type = TP_ARG_LIST;
            snprintf(a->svalue, sizeof a->svalue, "TensorList");
            int64_t total = 0;
            int ok = d >= 0 && jd.nodes[d].kind == 'a' && jd.nodes[d].count > 0;
            for (int c = ok ? jd.nodes[d].first : -1; c >= 0; c = jd.nodes[c].next) {
                if (jd.nodes[c].kind != 'a') {
                    ok = 0;
                    break;
                }
                int64_t numel = 1;
                for (int e = jd.nodes[c].first; e >= 0; e = jd.nodes[e].next)
                    numel *= jd.nodes[e].inum;
                if (a->ndim < TP_MAX_DIMS)
                    a->shape[a->ndim] = numel;
                a->ndim++;
                total += numel;
            }
            if (a->ndim > TP_MAX_DIMS)
                a->ndim = TP_MAX_DIMS;
            a->ivalue = ok ? total : 0;
        } else if (streq_safe(tname, "Scalar") || streq_safe(tname, "Double")) {
            a->type = TP_ARG_FLOAT;
            snprintf(a->svalue, sizeof a->svalue, "unknown");
        } else if (streq_safe(tname, "Int")) {
            a->type = TP_ARG_INT;
            snprintf(a->svalue, sizeof a->svalue, "unknown");
        } else if (streq_safe(tname, "Bool")) {
            a->type = TP_ARG_BOOL;
            snprintf(a->svalue, sizeof a->svalue, "unknown");
        } else if (strstr(tname, "List")) {
            a->type = TP_ARG_LIST;
            snprintf(a->svalue, sizeof a->svalue, "%s", tname);
        } else if (!tname[0]) {
            a->type = TP_ARG_NONE;
        } else {
            a->type = TP_ARG_OTHER;
            snprintf(a->svalue, sizeof a->svalue, "%s", tname);
        }
    }
    free(nodes);
    return rc;
}

/* ---- "Concrete Inputs" ---------------------------------------------------
 *
 * PyTorch 2.x records the value of each scalar argument as a string beside
 * "Input Dims": ["", "", "", "[16, 16]", "[0, 0]", "[1, 1]", "False", "[0, 0]",
 * "1"] ("" for tensors and absent optionals).  The types in "Input type" say
 * little ("Scalar" for an int, a bool and a float alike; "ScalarList" for
 * an int list), so the value's text decides. */

static int parse_int_text(const char *s, size_t n, int64_t *out)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *e;
    long long v = strtoll(buf, &e, 10);
    if (*e || e == buf)
        return -1;
    *out = v;
    return 0;
}

/* "[16, 16]" -> a known int list; "[]" an empty one (an omitted stride);
 * "[True, False]" -> 1, 0 */
static int set_int_list(struct tp_arg *a, const char *s, size_t n)
{
    int64_t v[TP_MAX_DIMS];
    int count = 0;
    size_t i = 1;                   /* past '[' */
    if (n < 2 || s[n - 1] != ']')
        return -1;
    n--;                            /* drop ']' */
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == ','))
            i++;
        size_t start = i;
        while (i < n && s[i] != ',')
            i++;
        size_t end = i;
        while (end > start && s[end - 1] == ' ')
            end--;
        if (end == start)
            continue;
        if (count >= TP_MAX_DIMS)
            return -1;
        /* a bool list (convolution_backward's output_mask) reads as 1/0 */
        if (end - start == 4 && memcmp(s + start, "True", 4) == 0)
            v[count] = 1;
        else if (end - start == 5 && memcmp(s + start, "False", 5) == 0)
            v[count] = 0;
        else if (parse_int_text(s + start, end - start, &v[count]))
            return -1;
        count++;
    }
    a->type = TP_ARG_LIST;
    a->ndim = count;
    memcpy(a->shape, v, (size_t)count * sizeof v[0]);
    a->ivalue = 1;                  /* the values are known */
    snprintf(a->svalue, sizeof a->svalue, "IntList");
    return 0;
}

static void set_value(struct tp_arg *a, const char *s, size_t n)
{
    int64_t iv;
    char buf[64];
    if (s[0] == '[') {
        if (set_int_list(a, s, n) == 0)
            return;
        a->type = TP_ARG_LIST;      /* a list of floats or tensors: values unknown */
        return;
    }
    if ((n == 4 && memcmp(s, "True", 4) == 0) || (n == 5 && memcmp(s, "False", 5) == 0)) {
        a->type = TP_ARG_BOOL;
        a->ivalue = s[0] == 'T';
        a->svalue[0] = 0;
        return;
    }
    if (parse_int_text(s, n, &iv) == 0) {
        a->type = TP_ARG_INT;
        a->ivalue = iv;
        a->fvalue = (double)iv;
        a->svalue[0] = 0;
        return;
    }
    snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), s);
    char *e;
    double d = strtod(buf, &e);
    if (e != buf && !*e && n < sizeof buf) {
        a->type = TP_ARG_FLOAT;
        a->fvalue = d;
        a->svalue[0] = 0;
        return;
    }
    if (n == 4 && memcmp(s, "None", 4) == 0) {
        a->type = TP_ARG_NONE;
        return;
    }
    a->type = TP_ARG_STR;           /* padding="same", reduction names ... */
    snprintf(a->svalue, sizeof a->svalue, "%s", buf);
}

int tp_opcall_add_concrete(struct tp_opcall *call, const char *concrete_inputs)
{
    if (!concrete_inputs || !*concrete_inputs)
        return 0;
    int max = (int)strlen(concrete_inputs) + 1;
    struct jnode *nodes = malloc((size_t)max * sizeof *nodes);
    if (!nodes)
        return TP_OPCALL_NOMEM;
    struct jp j = { .nodes = nodes, .max = max };
    int root = jparse(&j, concrete_inputs);
    if (root < 0) {
        free(nodes);
        return -1;
    }
    int i = 0;
    for (int c = j.nodes[root].first; c >= 0 && i < call->nargs; c = j.nodes[c].next, i++) {
        const struct jnode *v = &j.nodes[c];
        struct tp_arg *a = &call->args[i];
        /* tensors keep their shapes; "" means no value recorded */
        if (v->kind != 's' || v->slen == 0 || a->type == TP_ARG_TENSOR ||
            (a->type == TP_ARG_LIST && streq_safe(a->svalue, "TensorList")))
            continue;
        set_value(a, v->s, v->slen);
    }
    free(nodes);
    return 0;
}
