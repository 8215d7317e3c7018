/* ingest_pydict.c — PyProf parse.py output ("net.dict"): one Python dict per
 * line, the per-kernel record prof.py reads:
 *
 *   {'kShortName': 'elementwise_kernel', 'kDuration': 3168, 'layer': [], 'trace': [...],
 *    'reprMarkers': [], 'marker': ["{'mod': 'Tensor', ...}"], 'seqMarker': ['mul, seq = 66'],
 *    'seqId': [66], 'subSeqId': 0, 'altSeqId': [], 'dir': 'fprop', 'mod': ['Tensor'],
 *    'op': ['__mul__'], 'tid': 3940300608, 'device': 0, 'stream': 7, 'grid': (274, 1, 1),
 *    'block': (512, 1, 1), 'kLongName': 'void at::native::elementwise_kernel<...>(...)'}
 *
 * Each line becomes a kernel row (name = kShortName, dur = kDuration, tid,
 * device, stream, grid, block; ts = 0: the dict has no times) and, since the
 * line already is parse.py's result, its prof.py annotation is made here
 * (tp_pp_add: the bprop lookup).  Lines that are not dicts — stdout noise
 * such as "Initializing NVTX monkey patches" — are skipped and counted; a
 * dict line that does not parse or lacks a key prof.py reads is counted as
 * malformed (prof.py crashes on both). */
#include <stdlib.h>
#include <string.h>
#include "ingest.h"
#include "pylit.h"
#include "pyprof.h"
#include "grow.h"

struct dctx {
    tp_store *st;
    tp_pp_state *pp;
    pylit_arena *ar;
    int64_t *ints;
    size_t capints;
    uint64_t lineno;
    char *join;
    size_t capjoin;
    int oom;                 /* a line could not be decoded for want of memory */
};

static int need_ints(struct dctx *c, size_t n)
{
    if (tp_grow((void **)&c->ints, &c->capints, n, sizeof *c->ints) < 0) {
        c->oom = 1;
        return -1;
    }
    return 0;
}

/* ints of a list into c->ints[off...]; count or -1 when not a list of ints */
static int list_ints(struct dctx *c, const py_val *v, size_t off)
{
    if (!pylit_is_seq(v))
        return -1;
    if (need_ints(c, off + v->n + 1))
        return -1;
    int n = 0;
    for (const py_val *x = v->first; x; x = x->next) {
        if (x->type != PY_INT && x->type != PY_BOOL)
            return -1;
        c->ints[off + (size_t)n++] = x->i;
    }
    return n;
}

/* sep.join(list of str) interned; 0 for an empty list */
static uint32_t join_strs(struct dctx *c, const py_val *v, char sep, int *ok)
{
    if (!pylit_is_seq(v)) {
        *ok = 0;
        return 0;
    }
    size_t len = 0;
    for (const py_val *x = v->first; x; x = x->next) {
        if (x->type != PY_STR) {
            *ok = 0;
            return 0;
        }
        len += x->slen + 1;
    }
    if (len + 1 > c->capjoin) {
        char *p = realloc(c->join, len + 1);
        if (!p) {
            c->oom = 1;
            *ok = 0;
            return 0;
        }
        c->join = p;
        c->capjoin = len + 1;
    }
    size_t o = 0;
    for (const py_val *x = v->first; x; x = x->next) {
        if (o)
            c->join[o++] = sep;
        memcpy(c->join + o, x->s, x->slen);
        o += x->slen;
    }
    return o ? tp_store_intern(c->st, c->join, o) : 0;
}

/* mod/op: a list gives its first item ("" when empty); a str stays */
static uint32_t first_str(tp_store *st, const py_val *v, int *ok)
{
    if (v && v->type == PY_STR)
        return tp_store_intern(st, v->s, v->slen);
    if (!pylit_is_seq(v)) {
        *ok = 0;
        return 0;
    }
    if (!v->first)
        return 0;
    if (v->first->type != PY_STR) {
        *ok = 0;
        return 0;
    }
    return tp_store_intern(st, v->first->s, v->first->slen);
}

static int64_t get_int(const py_val *d, const char *key, int *ok)
{
    py_val *v = pylit_get(d, key);
    if (!v || (v->type != PY_INT && v->type != PY_BOOL)) {
        *ok = 0;
        return 0;
    }
    return v->i;
}

static int do_line(struct dctx *c, const char *line, size_t len, uint64_t offset)
{
    tp_store *st = c->st;
    while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
        len--;
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i == len)
        return 0;
    if (line[i] != '{') {
        tp_store_skip(st, "line that is not a PyProf dict (stdout noise)", offset);
        return 0;
    }
    pylit_arena_reset(c->ar);
    size_t epos;
    const char *emsg;
    py_val *d = pylit_parse(c->ar, line + i, len - i, &epos, &emsg);
    if (!d && pylit_arena_oom(c->ar))
        return -1;
    if (!d || d->type != PY_DICT) {
        char why[96];
        snprintf(why, sizeof why, "dict line that does not parse as a Python literal");
        tp_store_bad(st, why, offset + i + (d ? 0 : epos));
        return 0;
    }
    int ok = 1;
    const py_val *kshort = pylit_get(d, "kShortName");
    const char *kname = pylit_str(kshort);
    int64_t dur = get_int(d, "kDuration", &ok);
    int64_t tid = get_int(d, "tid", &ok), device = get_int(d, "device", &ok), stream = get_int(d, "stream", &ok);
    int64_t sub = get_int(d, "subSeqId", &ok);
    const char *dir = pylit_str(pylit_get(d, "dir"));
    py_val *grid = pylit_get(d, "grid"), *block = pylit_get(d, "block");
    if (!kname || !dir)
        ok = 0;
    int nseq = list_ints(c, pylit_get(d, "seqId"), 0);
    int nalt = nseq >= 0 ? list_ints(c, pylit_get(d, "altSeqId"), (size_t)nseq) : -1;
    if (nseq < 0 || nalt < 0)
        ok = 0;
    py_val *markers = pylit_get(d, "marker"), *seqm = pylit_get(d, "seqMarker");
    py_val *trace = pylit_get(d, "trace");
    if (!pylit_is_seq(markers) || !pylit_is_seq(seqm) || !pylit_is_seq(trace))
        ok = 0;
    struct tp_pp_kernel pk;
    memset(&pk, 0, sizeof pk);
    if (ok) {
        pk.layer = join_strs(c, pylit_get(d, "layer"), ':', &ok);
        pk.trace = join_strs(c, trace, ',', &ok);
        pk.mod = first_str(st, pylit_get(d, "mod"), &ok);
        pk.op = first_str(st, pylit_get(d, "op"), &ok);
    }
    if (c->oom)
        return -1;
    if (!ok) {
        tp_store_bad(st, "PyProf dict line without the keys prof.py reads", offset + i);
        return 0;
    }
    /* kDuration is nanoseconds: one beyond int64 read as INT64_MAX (saturated
     * silently) and a negative one ran backwards; malformed, as the kineto
     * importer takes a negative "dur" */
    const py_val *kdur = pylit_get(d, "kDuration");
    if (kdur->big || dur < 0) {
        tp_store_bad(st, kdur->big ? "\"kDuration\" beyond int64" : "negative \"kDuration\"", offset + i);
        return 0;
    }
    int64_t r = tp_store_add(st);
    struct tp_kernel_info *ki = r >= 0 ? tp_store_add_kernel_info(st, (size_t)r) : NULL;
    if (!ki)
        return -1;
    st->kind[r] = TP_K_KERNEL;
    st->name[r] = tp_store_intern(st, kname, kshort->slen);   /* a \x00 in it is kept */
    st->dur[r] = dur;
    st->ts[r] = 0;
    st->tid[r] = tid;
    st->device[r] = (int32_t)device;
    st->stream[r] = (int32_t)stream;
    for (int k = 0; k < 3; k++) {
        py_val *g = pylit_item(grid, (size_t)k), *b = pylit_item(block, (size_t)k);
        ki->grid[k] = g && g->type == PY_INT ? (int32_t)g->i : -1;
        ki->block[k] = b && b->type == PY_INT ? (int32_t)b->i : -1;
    }
    if (trace->first) {
        const py_val *last = trace->first;
        while (last->next)
            last = last->next;
        if (last->type == PY_STR) {
            const char *slash = strrchr(last->s, '/');
            const char *base = slash ? slash + 1 : last->s;
            pk.trace_last = tp_store_intern(st, base, last->slen - (size_t)(base - last->s));
        }
    }
    if (markers->first && markers->first->type == PY_STR)
        pk.marker = tp_store_intern(st, markers->first->s, markers->first->slen);
    pk.event = (uint32_t)r;
    pk.tid = tid;
    pk.seq = c->ints;
    pk.nseq = nseq;
    pk.alt = c->ints + nseq;
    pk.nalt = nalt;
    pk.nseqmarker = (int)seqm->n;
    pk.bprop = strcmp(dir, "bprop") == 0;
    pk.sub = (int)sub;
    return tp_pp_add(c->pp, &pk);
}

int tp_ingest_pydict(tp_store *st, tp_source *src, tp_error *err)
{
    st->format = TP_SRC_PYPROF_DICT;
    struct dctx c = { .st = st };
    c.pp = tp_pp_begin(st);
    c.ar = pylit_arena_new();
    int rc = TP_OK;
    if (!c.pp || !c.ar) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
        goto out;
    }
    {
        char *buf = NULL;
        size_t n = 0, cap = 0;
        uint64_t base = tp_source_offset(src);   /* offset of buf[0] in the text */
        for (;;) {
            if (cap - n < 65536) {
                size_t nc = cap ? cap * 2 : 1 << 20;
                char *p = realloc(buf, nc);
                if (!p) {
                    free(buf);
                    rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
                    goto out;
                }
                buf = p;
                cap = nc;
            }
            long got = tp_source_read(src, buf + n, cap - n, err);
            if (got < 0) {
                free(buf);
                rc = err ? err->status : TP_ERR_IO;
                goto out;
            }
            n += (size_t)got;
            size_t start = 0;
            for (size_t i = 0; i < n; i++)
                if (buf[i] == '\n') {
                    if (do_line(&c, buf + start, i - start, base + start) < 0) {
                        free(buf);
                        rc = tp_error_set(err, TP_ERR_NOMEM, "%s: byte %llu: out of memory", st->path,
                                          (unsigned long long)(base + start));
                        goto out;
                    }
                    start = i + 1;
                }
            if (got == 0) {
                if (start < n && do_line(&c, buf + start, n - start, base + start) < 0)
                    rc = tp_error_set(err, TP_ERR_NOMEM, "%s: byte %llu: out of memory", st->path,
                                      (unsigned long long)(base + start));
                st->text_bytes = base + n;
                break;
            }
            memmove(buf, buf + start, n - start);
            n -= start;
            base += start;
        }
        free(buf);
    }
out:
    tp_pp_end(c.pp);
    pylit_arena_free(c.ar);
    free(c.ints);
    free(c.join);
    return rc;
}
