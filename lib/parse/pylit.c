/* pylit.c — Python literal parser for PyProf markers and dict lines (see pylit.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "pylit.h"

struct block {
    struct block *next;
    size_t used, cap;
    char data[];
};

struct pylit_arena {
    struct block *head;     /* current block first */
    int oom;                /* an allocation failed since the last reset */
};

pylit_arena *pylit_arena_new(void)
{
    return calloc(1, sizeof(pylit_arena));
}

void pylit_arena_reset(pylit_arena *a)
{
    if (a)
        a->oom = 0;
    if (!a || !a->head)
        return;
    /* keep the first (largest recent) block, free the rest */
    struct block *b = a->head->next;
    while (b) {
        struct block *n = b->next;
        free(b);
        b = n;
    }
    a->head->next = NULL;
    a->head->used = 0;
}

void pylit_arena_free(pylit_arena *a)
{
    if (!a)
        return;
    struct block *b = a->head;
    while (b) {
        struct block *n = b->next;
        free(b);
        b = n;
    }
    free(a);
}

static void *arena_alloc(pylit_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    struct block *b = a->head;
    if (!b || b->cap - b->used < n) {
        /* small first block (markers are short), doubling after */
        size_t cap = b ? b->cap * 2 : 4096;
        if (cap < n)
            cap = n;
        struct block *nb = malloc(sizeof *nb + cap);
        if (!nb) {
            a->oom = 1;
            return NULL;
        }
        nb->used = 0;
        nb->cap = cap;
        nb->next = b;
        a->head = nb;
        b = nb;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

struct parser {
    pylit_arena *a;
    const char *s, *end, *p;
    const char *err;
    size_t errpos;
    int depth;
};

static py_val *fail(struct parser *ps, const char *msg)
{
    if (!ps->err) {
        ps->err = msg;
        ps->errpos = (size_t)(ps->p - ps->s);
    }
    return NULL;
}

static void skip_ws(struct parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static py_val *new_val(struct parser *ps, enum py_type t)
{
    py_val *v = arena_alloc(ps->a, sizeof *v);
    if (!v)
        return fail(ps, "out of memory");
    memset(v, 0, sizeof *v);
    v->type = t;
    return v;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static size_t put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F)); return 3;
    }
    if (cp > 0x10FFFF) cp = 0xFFFD;
    o[0] = (char)(0xF0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static py_val *parse_str(struct parser *ps)
{
    int raw = 0;
    while (ps->p < ps->end && strchr("rRuUbB", *ps->p) && *ps->p) {
        if (*ps->p == 'r' || *ps->p == 'R')
            raw = 1;
        ps->p++;
    }
    if (ps->p >= ps->end || (*ps->p != '\'' && *ps->p != '"'))
        return fail(ps, "expected a string");
    char q = *ps->p;
    int triple = ps->end - ps->p >= 3 && ps->p[1] == q && ps->p[2] == q;
    ps->p += triple ? 3 : 1;
    const char *start = ps->p;
    /* find the end first to size the output */
    const char *e = start;
    for (;;) {
        if (e >= ps->end) {
            ps->p = e;
            return fail(ps, "unterminated string");
        }
        if (*e == '\\') {
            e += 2;
            continue;
        }
        if (*e == q && (!triple || (ps->end - e >= 3 && e[1] == q && e[2] == q)))
            break;
        if (!triple && *e == '\n') {
            ps->p = e;
            return fail(ps, "newline in string");
        }
        e++;
    }
    char *out = arena_alloc(ps->a, (size_t)(e - start) + 1);
    if (!out)
        return fail(ps, "out of memory");
    size_t n = 0;
    const char *p = start;
    while (p < e) {
        if (*p != '\\' || raw) {
            if (*p == '\\' && raw && p + 1 < e) {   /* raw: keep both characters */
                out[n++] = *p++;
            }
            out[n++] = *p++;
            continue;
        }
        p++;
        char c = *p++;
        switch (c) {
        case '\n': break;
        case '\\': out[n++] = '\\'; break;
        case '\'': out[n++] = '\''; break;
        case '"': out[n++] = '"'; break;
        case 'n': out[n++] = '\n'; break;
        case 't': out[n++] = '\t'; break;
        case 'r': out[n++] = '\r'; break;
        case 'a': out[n++] = '\a'; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'v': out[n++] = '\v'; break;
        case 'x': case 'u': case 'U': {
            int want = c == 'x' ? 2 : c == 'u' ? 4 : 8;
            uint32_t cp = 0;
            for (int k = 0; k < want; k++) {
                int h = p < e ? hexval((unsigned char)*p) : -1;
                if (h < 0) {
                    ps->p = p;
                    return fail(ps, "bad \\x/\\u escape");
                }
                cp = cp * 16 + (uint32_t)h;
                p++;
            }
            if (c == 'x' && cp >= 0x80)
                n += put_utf8(out + n, cp);   /* '\xe9' in a str is U+00E9 */
            else
                n += put_utf8(out + n, cp);
            break;
        }
        default:
            if (c >= '0' && c <= '7') {
                uint32_t cp = (uint32_t)(c - '0');
                for (int k = 0; k < 2 && p < e && *p >= '0' && *p <= '7'; k++)
                    cp = cp * 8 + (uint32_t)(*p++ - '0');
                n += put_utf8(out + n, cp);
            } else {                 /* unknown escape: Python keeps the backslash */
                out[n++] = '\\';
                out[n++] = c;
            }
        }
    }
    out[n] = 0;
    ps->p = e + (triple ? 3 : 1);
    py_val *v = new_val(ps, PY_STR);
    if (!v)
        return NULL;
    v->s = out;
    v->slen = n;
    return v;
}

static py_val *parse_number(struct parser *ps)
{
    const char *b = ps->p;
    int neg = 0;
    while (ps->p < ps->end && (*ps->p == '-' || *ps->p == '+')) {
        if (*ps->p == '-')
            neg = !neg;
        ps->p++;
        skip_ws(ps);
    }
    const char *d = ps->p;
    if (ps->end - d >= 3 && (memcmp(d, "inf", 3) == 0 || memcmp(d, "nan", 3) == 0)) {
        py_val *v = new_val(ps, PY_FLOAT);
        if (!v)
            return NULL;
        v->f = d[0] == 'i' ? (neg ? -INFINITY : INFINITY) : NAN;
        ps->p += 3;
        return v;
    }
    int isfloat = 0;
    char buf[128];
    size_t n = 0;
    while (ps->p < ps->end) {
        char c = *ps->p;
        if ((c >= '0' && c <= '9') || c == '_') {
            /* digits */
        } else if (c == '.' || c == 'e' || c == 'E') {
            isfloat = 1;
        } else if ((c == '-' || c == '+') && n > 0 && (buf[n - 1] == 'e' || buf[n - 1] == 'E')) {
            /* exponent sign */
        } else if (c == 'x' || c == 'X' || c == 'o' || c == 'O' || (c >= 'a' && c <= 'f') ||
                   (c >= 'A' && c <= 'F')) {
            if (!(n == 1 && buf[0] == '0') && !(n >= 2 && (buf[1] == 'x' || buf[1] == 'X' ||
                                                           buf[1] == 'o' || buf[1] == 'O')))
                break;
        } else {
            break;
        }
        if (c != '_') {
            if (n + 1 >= sizeof buf)
                return fail(ps, "number too long");
            buf[n++] = c;
        }
        ps->p++;
    }
    buf[n] = 0;
    if (n == 0) {
        ps->p = b;
        return fail(ps, "expected a value");
    }
    if (n >= 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X' || buf[1] == 'o' || buf[1] == 'O'))
        isfloat = 0;
    py_val *v = new_val(ps, isfloat ? PY_FLOAT : PY_INT);
    if (!v)
        return NULL;
    char *endp;
    if (isfloat) {
        v->f = strtod(buf, &endp);
        if (*endp)
            return fail(ps, "bad number");
        if (neg)
            v->f = -v->f;
    } else {
        int base = 10;
        const char *digits = buf;
        if (n >= 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) { base = 16; digits = buf + 2; }
        else if (n >= 2 && buf[0] == '0' && (buf[1] == 'o' || buf[1] == 'O')) { base = 8; digits = buf + 2; }
        errno = 0;
        unsigned long long u = strtoull(digits, &endp, base);
        if (*endp)
            return fail(ps, "bad number");
        if (errno == ERANGE || u > (unsigned long long)INT64_MAX + (neg ? 1u : 0u)) {
            v->big = 1;
            v->f = strtod(buf, NULL);
            if (neg)
                v->f = -v->f;
            v->i = neg ? INT64_MIN : INT64_MAX;
        } else {
            v->i = neg ? (int64_t)(0 - u) : (int64_t)u;
            v->f = (double)v->i;
        }
    }
    return v;
}

static py_val *parse_value(struct parser *ps);

/* Items up to `close`; for dicts, key: value pairs. */
static py_val *parse_seq(struct parser *ps, enum py_type t, char close)
{
    py_val *v = new_val(ps, t);
    if (!v)
        return NULL;
    if (++ps->depth > 200)
        return fail(ps, "nested too deeply");
    py_val **tail = &v->first;
    int had_comma = 0;
    for (;;) {
        skip_ws(ps);
        if (ps->p >= ps->end)
            return fail(ps, "unexpected end of input");
        if (*ps->p == close) {
            ps->p++;
            break;
        }
        if (v->n > 0 && !had_comma)
            return fail(ps, "expected ',' or a closing bracket");
        py_val *key = NULL;
        if (t == PY_DICT) {
            key = parse_value(ps);
            if (!key)
                return NULL;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':')
                return fail(ps, "expected ':'");
            ps->p++;
        }
        py_val *item = parse_value(ps);
        if (!item)
            return NULL;
        item->key = key;
        *tail = item;
        tail = &item->next;
        v->n++;
        skip_ws(ps);
        had_comma = 0;
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            had_comma = 1;
        }
    }
    /* (x) without a comma is just x in Python */
    if (t == PY_TUPLE && v->n == 1 && !had_comma) {
        py_val *only = v->first;
        only->next = NULL;
        ps->depth--;
        return only;
    }
    ps->depth--;
    return v;
}

static int word(struct parser *ps, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n) != 0)
        return 0;
    const char *after = ps->p + n;
    if (after < ps->end && (((*after | 32) >= 'a' && (*after | 32) <= 'z') || *after == '_' ||
                            (*after >= '0' && *after <= '9')))
        return 0;
    ps->p = after;
    return 1;
}

static py_val *parse_value(struct parser *ps)
{
    skip_ws(ps);
    if (ps->p >= ps->end)
        return fail(ps, "unexpected end of input");
    char c = *ps->p;
    switch (c) {
    case '{': ps->p++; return parse_seq(ps, PY_DICT, '}');
    case '[': ps->p++; return parse_seq(ps, PY_LIST, ']');
    case '(': ps->p++; return parse_seq(ps, PY_TUPLE, ')');
    case '\'': case '"': return parse_str(ps);
    default: break;
    }
    if ((c == 'r' || c == 'u' || c == 'b' || c == 'R' || c == 'U' || c == 'B') && ps->p + 1 < ps->end &&
        (ps->p[1] == '\'' || ps->p[1] == '"' ||
         ((ps->p[1] | 32) == 'r' || (ps->p[1] | 32) == 'b') ))
        return parse_str(ps);
    if (word(ps, "True") || word(ps, "False")) {
        py_val *v = new_val(ps, PY_BOOL);
        if (v)
            v->i = ps->p[-1] == 'e' && ps->p[-2] == 'u';
        return v;
    }
    if (word(ps, "None"))
        return new_val(ps, PY_NONE);
    if (c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9') || c == 'i' || c == 'n')
        return parse_number(ps);
    return fail(ps, "unexpected character");
}

py_val *pylit_parse(pylit_arena *a, const char *text, size_t len, size_t *errpos, const char **errmsg)
{
    struct parser ps = { .a = a, .s = text, .end = text + len, .p = text };
    py_val *v = parse_value(&ps);
    if (v) {
        skip_ws(&ps);
        if (ps.p != ps.end) {
            fail(&ps, "trailing characters after the value");
            v = NULL;
        }
    }
    if (!v) {
        if (errpos)
            *errpos = ps.errpos;
        if (errmsg)
            *errmsg = ps.err ? ps.err : "parse error";
    }
    return v;
}

int pylit_arena_oom(const pylit_arena *a) { return a && a->oom; }

py_val *pylit_get(const py_val *dict, const char *key)
{
    if (!dict || dict->type != PY_DICT)
        return NULL;
    py_val *found = NULL;
    for (py_val *v = dict->first; v; v = v->next)
        if (v->key && v->key->type == PY_STR && strcmp(v->key->s, key) == 0)
            found = v;   /* Python keeps the last duplicate */
    return found;
}

py_val *pylit_item(const py_val *seq, size_t i)
{
    if (!seq || (seq->type != PY_LIST && seq->type != PY_TUPLE))
        return NULL;
    py_val *v = seq->first;
    while (v && i--)
        v = v->next;
    return v;
}

const char *pylit_str(const py_val *v)
{
    return v && v->type == PY_STR ? v->s : NULL;
}

int pylit_is_seq(const py_val *v)
{
    return v && (v->type == PY_LIST || v->type == PY_TUPLE);
}

int pylit_equal(const py_val *a, const py_val *b)
{
    if (!a || !b)
        return a == b;
    int anum = a->type == PY_INT || a->type == PY_BOOL || a->type == PY_FLOAT;
    int bnum = b->type == PY_INT || b->type == PY_BOOL || b->type == PY_FLOAT;
    if (anum && bnum) {
        if (a->type != PY_FLOAT && b->type != PY_FLOAT && !a->big && !b->big)
            return a->i == b->i;
        double x = a->type == PY_BOOL ? (double)a->i : a->f;
        double y = b->type == PY_BOOL ? (double)b->i : b->f;
        return x == y;
    }
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case PY_NONE: return 1;
    case PY_STR: return a->slen == b->slen && memcmp(a->s, b->s, a->slen) == 0;
    case PY_LIST: case PY_TUPLE: case PY_DICT: {
        if (a->n != b->n)
            return 0;
        const py_val *x = a->first, *y = b->first;
        for (; x && y; x = x->next, y = y->next) {
            if (a->type == PY_DICT) {
                const py_val *yy = b->first;   /* dicts compare by key */
                while (yy && !pylit_equal(yy->key, x->key))
                    yy = yy->next;
                if (!yy || !pylit_equal(x, yy))
                    return 0;
            } else if (!pylit_equal(x, y)) {
                return 0;
            }
        }
        return 1;
    }
    default: return 0;
    }
}
