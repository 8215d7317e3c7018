/* trace_cut.c — tp_trace_cut: a slice of a kineto trace, as a kineto trace.
 *
 * A 2 GB trace does not open in Perfetto or chrome://tracing; one step of
 * it does.  The slice keeps, byte for byte as the profiler wrote them:
 *   - every top-level key but traceEvents (deviceProperties,
 *     distributedInfo, schemaVersion, ...): views and viewers need them;
 *   - every metadata event (ph M: process and thread names, sort order);
 *   - every event whose time overlaps the window (a complete event that
 *     starts before it and ends inside it is kept whole), and every
 *     instant, counter, flow or async event whose timestamp lies in it;
 *     with --step, the window is the steps' host span, and GPU work is kept
 *     by where it was launched, not where it ran: the kernels (and their
 *     flows) launched inside the steps, however late they ran, and none
 *     launched before or after, so the slice's step shows what the whole
 *     trace shows for it;
 *   - events without a timestamp.
 * The window comes from the loaded store (a ProfilerStep's span, or times
 * relative to the trace's first event, as `tprof info` reports them), then a
 * second streaming pass copies what is kept, so memory stays that of the
 * load.  The output is written to a temporary file beside OUT and renamed
 * over it at the end: a failed cut leaves no half file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "json.h"
#include "source.h"
#include "store.h"
#include "trace_cut.h"

/* ---- the window ---- */

static void trace_span(const tp_store *st, int64_t *t0, int64_t *t1)
{
    *t0 = INT64_MAX;
    *t1 = INT64_MIN;
    for (size_t i = 0; i < st->n; i++) {
        if (st->kind[i] == TP_K_META || st->kind[i] == TP_K_FLOW)
            continue;
        if (st->ts[i] < *t0)
            *t0 = st->ts[i];
        if (st->ts[i] + st->dur[i] > *t1)
            *t1 = st->ts[i] + st->dur[i];
    }
}

static int resolve_window(const tp_store *st, const struct tp_cut_opts *o, int64_t *w0, int64_t *w1, tp_error *err)
{
    if (o->step_first >= 0) {
        int found = 0;
        *w0 = INT64_MAX;
        *w1 = INT64_MIN;
        for (size_t s = 0; s < st->nsteps; s++) {
            if (st->steps[s].number < o->step_first || st->steps[s].number > o->step_last)
                continue;
            found = 1;
            if (st->steps[s].ts < *w0)
                *w0 = st->steps[s].ts;
            if (st->steps[s].end > *w1)
                *w1 = st->steps[s].end;
        }
        if (!found) {
            char have[160] = "";
            size_t n = 0;
            for (size_t s = 0; s < st->nsteps && n + 24 < sizeof have; s++)
                n += (size_t)snprintf(have + n, sizeof have - n, "%s%lld", s ? "," : "",
                                      (long long)st->steps[s].number);
            if (o->step_first == o->step_last)
                return tp_error_set(err, TP_ERR_USAGE, "%s: no ProfilerStep#%lld (steps: %s)", st->path,
                                    (long long)o->step_first, st->nsteps ? have : "none");
            return tp_error_set(err, TP_ERR_USAGE, "%s: no ProfilerStep#%lld..#%lld (steps: %s)", st->path,
                                (long long)o->step_first, (long long)o->step_last, st->nsteps ? have : "none");
        }
        return TP_OK;
    }
    int64_t t0, t1;
    trace_span(st, &t0, &t1);
    if (t0 > t1)
        return tp_error_set(err, TP_ERR_USAGE, "%s: no timed events to cut", st->path);
    *w0 = t0 + o->window_from_ns;
    *w1 = o->window_to_ns == INT64_MAX ? INT64_MAX : t0 + o->window_to_ns;
    return TP_OK;
}

/* ---- output: plain or gzip ---- */

struct out {
    FILE *f;
    gzFile gz;
    int failed;
};

static void put(struct out *o, const char *p, size_t n)
{
    if (o->failed || n == 0)
        return;
    if (o->gz)
        o->failed = gzwrite(o->gz, p, (unsigned)n) != (int)n;
    else
        o->failed = fwrite(p, 1, n, o->f) != n;
}

static void puts_(struct out *o, const char *s) { put(o, s, strlen(s)); }

/* Copy a span of the JSON stream (it may be longer than 4 GiB in theory:
 * spans are 32-bit, so it is not). */
static void put_span(struct out *o, const tp_json *j, tp_jspan s) { put(o, tp_json_ptr(j, s), s.len); }

/* A key as a JSON string again (it was decoded: quotes, backslashes and
 * control characters are escaped back). */
static void put_key(struct out *o, const char *k, size_t n)
{
    put(o, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)k[i];
        char e[8];
        if (c == '"' || c == '\\') {
            e[0] = '\\';
            e[1] = (char)c;
            put(o, e, 2);
        } else if (c < 0x20) {
            snprintf(e, sizeof e, "\\u%04x", c);
            put(o, e, 6);
        } else {
            put(o, k + i, 1);
        }
    }
    put(o, "\"", 1);
}

/* ---- deciding one event from its raw text ---- */

struct evinfo {
    char ph;
    int has_ts, device, has_corr, has_id;
    int64_t ts, dur, corr, id;
};

/* GPU activity categories, modern and legacy (what a launch puts on a stream) */
static int device_cat(const char *c, size_t n)
{
    static const char *const cats[] = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"};
    for (size_t i = 0; i < sizeof cats / sizeof *cats; i++)
        if (strlen(cats[i]) == n && memcmp(c, cats[i], n) == 0)
            return 1;
    return 0;
}

static int get_int(tp_json *j, int64_t *out)
{
    tp_jspan v;
    enum tp_jtype t = tp_json_type(j);
    if (t == TP_J_NUMBER) {
        if (tp_json_number(j, &v) < 0)
            return -1;
    } else if (t == TP_J_STRING) {
        if (tp_json_string(j, &v) < 0)
            return -1;
    } else {
        return tp_json_skip(j, NULL) < 0 ? -1 : 0;
    }
    return tp_decimal_to_i64(tp_json_ptr(j, v), v.len, out) == 0 ? 1 : 0;
}

/* What the cut needs of one event object (raw JSON in memory): ph, ts, dur,
 * whether it is GPU activity, its correlation id (args) and flow id. */
static int event_info(const char *raw, size_t len, struct evinfo *e)
{
    tp_json j;
    tp_error err = {0};
    memset(e, 0, sizeof *e);
    if (tp_json_init_mem(&j, raw, len, "", &err) != TP_OK)
        return -1;
    int rc = -1, n = 0, r;
    tp_jspan key, v;
    if (tp_json_type(&j) != TP_J_OBJECT || tp_json_obj_begin(&j) < 0)
        goto done;
    while ((r = tp_json_obj_next(&j, &n, &key)) == 1) {
        enum tp_jtype t = tp_json_type(&j);
        int is_ts = TP_JEQ(&j, key, "ts"), is_dur = TP_JEQ(&j, key, "dur");
        if ((TP_JEQ(&j, key, "ph") || TP_JEQ(&j, key, "cat")) && t == TP_J_STRING) {
            int is_ph = TP_JEQ(&j, key, "ph");
            if (tp_json_string(&j, &v) < 0)
                goto done;
            if (is_ph)
                e->ph = v.len ? tp_json_ptr(&j, v)[0] : 0;
            else
                e->device = device_cat(tp_json_ptr(&j, v), v.len);
        } else if ((is_ts || is_dur) && (t == TP_J_NUMBER || t == TP_J_STRING)) {
            if ((t == TP_J_NUMBER ? tp_json_number(&j, &v) : tp_json_string(&j, &v)) < 0)
                goto done;
            int64_t x;
            int ok = tp_decimal_us_to_ns(tp_json_ptr(&j, v), v.len, &x) == 0;
            if (is_ts) {
                e->has_ts = ok;
                e->ts = x;
            } else if (ok) {
                e->dur = x;
            }
        } else if (TP_JEQ(&j, key, "id")) {
            int g = get_int(&j, &e->id);
            if (g < 0)
                goto done;
            e->has_id = g;
        } else if (TP_JEQ(&j, key, "args") && t == TP_J_OBJECT) {
            int m = 0, q;
            tp_jspan k2;
            if (tp_json_obj_begin(&j) < 0)
                goto done;
            while ((q = tp_json_obj_next(&j, &m, &k2)) == 1) {
                if (TP_JEQ(&j, k2, "correlation")) {
                    int g = get_int(&j, &e->corr);
                    if (g < 0)
                        goto done;
                    e->has_corr = g;
                } else if (tp_json_skip(&j, NULL) < 0) {
                    goto done;
                }
            }
            if (q < 0)
                goto done;
        } else if (tp_json_skip(&j, NULL) < 0) {
            goto done;
        }
    }
    rc = r == 0 ? 0 : -1;
done:
    tp_json_free(&j);
    return rc;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

struct keep {
    int64_t w0, w1;
    const int64_t *corr;      /* sorted correlation ids of GPU work launched in the steps (--step) */
    size_t ncorr;
};

static int launched_inside(const struct keep *k, int64_t id)
{
    return k->corr && bsearch(&id, k->corr, k->ncorr, sizeof id, cmp_i64) != NULL;
}

/* --step: the host events of the steps, and the GPU work (and its flows)
 * they launched, wherever it ran; --window: what overlaps the window. */
static int keep_event(const struct evinfo *e, const struct keep *k)
{
    if (e->ph == 'M' || !e->has_ts)
        return 1;
    if (k->corr) {
        if (e->device)
            return e->has_corr && launched_inside(k, e->corr);
        if ((e->ph == 's' || e->ph == 'f' || e->ph == 't') && e->has_id && launched_inside(k, e->id))
            return 1;
    }
    if (e->ph == 'X')   /* overlaps the window */
        return e->ts <= k->w1 && e->ts + (e->dur > 0 ? e->dur : 0) >= k->w0;
    return e->ts >= k->w0 && e->ts <= k->w1;
}

/* ---- the streaming pass ---- */

static int copy_events(tp_json *j, struct out *o, const struct keep *k, struct tp_cut_result *res)
{
    if (tp_json_arr_begin(j) < 0)
        return -1;
    int n = 0, r, kept = 0;
    puts_(o, "[");
    while ((r = tp_json_arr_next(j, &n)) == 1) {
        tp_json_set_mark(j);   /* the event's bytes stay in the window until the next one */
        tp_jspan raw;
        if (tp_json_skip(j, &raw) < 0)
            return -1;
        struct evinfo e;
        res->events_in++;
        if (event_info(tp_json_ptr(j, raw), raw.len, &e) < 0 || !keep_event(&e, k))
            continue;
        puts_(o, kept++ ? ",\n" : "\n");
        put_span(o, j, raw);
        res->events_out++;
    }
    puts_(o, "\n]");
    return r;
}

static int copy_trace(tp_json *j, struct out *o, const struct keep *k, struct tp_cut_result *res)
{
    if (tp_json_type(j) == TP_J_ARRAY)   /* a bare array of events (older traces) */
        return copy_events(j, o, k, res);
    if (tp_json_obj_begin(j) < 0)
        return -1;
    int n = 0, r, seen_events = 0;
    tp_jspan key;
    puts_(o, "{");
    while ((r = tp_json_obj_next(j, &n, &key)) == 1) {
        puts_(o, n > 1 ? ",\n  " : "\n  ");
        put_key(o, tp_json_ptr(j, key), key.len);
        puts_(o, ": ");
        if (TP_JEQ(j, key, "traceEvents") && !seen_events) {
            seen_events = 1;
            if (tp_json_type(j) != TP_J_ARRAY)
                return tp_json_fail(j, TP_ERR_FORMAT, "traceEvents is not an array");
            if (copy_events(j, o, k, res) < 0)
                return -1;
        } else {
            tp_json_set_mark(j);
            tp_jspan raw;
            if (tp_json_skip(j, &raw) < 0)
                return -1;
            put_span(o, j, raw);
        }
    }
    puts_(o, "\n}\n");
    return r;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

int tp_trace_cut(const char *in, const char *outpath, const struct tp_cut_opts *o, struct tp_cut_result *res,
                 tp_error *err)
{
    if (!in || !outpath || !o || !res)
        return tp_error_set(err, TP_ERR_USAGE, "tp_trace_cut: missing argument");
    memset(res, 0, sizeof *res);
    tp_store *st = tp_store_new();
    if (!st)
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", in);
    int rc = tp_store_load(st, in, err);
    if (rc == TP_OK && st->origin[0])
        rc = tp_error_set(err, TP_ERR_USAGE, "%s: a .tprof store keeps no event text to copy: cut %s, the trace it "
                          "was imported from", in, st->origin);
    else if (rc == TP_OK && st->format != TP_SRC_KINETO_JSON)
        rc = tp_error_set(err, TP_ERR_USAGE, "%s: only PyTorch profiler (kineto) traces can be cut", in);
    if (rc == TP_OK)
        rc = tp_store_link(st, err);
    if (rc == TP_OK)
        rc = resolve_window(st, o, &res->from_ns, &res->to_ns, err);
    struct keep k = { res->from_ns, res->to_ns, NULL, 0 };
    int64_t *corr = NULL;
    if (rc == TP_OK && o->step_first >= 0) {
        /* the GPU work the steps launched, by correlation id */
        size_t n = 0;
        corr = malloc((st->n ? st->n : 1) * sizeof *corr);
        if (!corr)
            rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", in);
        for (size_t r = 0; r < st->n && corr; r++) {
            int64_t l = tp_store_launcher(st, r);
            if (l >= 0 && st->correlation[r] != TP_NONE && st->ts[l] >= k.w0 && st->ts[l] <= k.w1)
                corr[n++] = st->correlation[r];
        }
        if (corr) {
            qsort(corr, n, sizeof *corr, cmp_i64);
            k.corr = corr;
            k.ncorr = n;
        }
    }
    tp_store_free(st);
    if (rc != TP_OK) {
        free(corr);
        return rc;
    }

    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", outpath) >= (int)sizeof tmp)
        return tp_error_set(err, TP_ERR_USAGE, "%s: path too long", outpath);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return tp_error_set(err, TP_ERR_IO, "%s: %s", outpath, strerror(errno));
    struct out out = {0};
    if (ends_with(outpath, ".gz"))
        out.gz = gzdopen(fd, "wb6");
    else
        out.f = fdopen(fd, "wb");
    if (!out.gz && !out.f) {
        close(fd);
        unlink(tmp);
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", outpath);
    }
    tp_source *src = NULL;
    tp_json j;
    int jinit = 0;
    rc = tp_source_open(&src, in, err);
    if (rc == TP_OK) {
        rc = tp_json_init_source(&j, src, err);
        jinit = rc == TP_OK;
    }
    if (rc == TP_OK && copy_trace(&j, &out, &k, res) < 0)
        rc = err->status != TP_OK ? (int)err->status : tp_error_set(err, TP_ERR_FORMAT, "%s: not a trace", in);
    if (jinit)
        tp_json_free(&j);
    tp_source_close(src);
    int closed = out.gz ? gzclose(out.gz) == Z_OK : fclose(out.f) == 0;
    if (rc == TP_OK && (out.failed || !closed))
        rc = tp_error_set(err, TP_ERR_IO, "%s: write error: %s", outpath, strerror(errno ? errno : EIO));
    if (rc == TP_OK && rename(tmp, outpath) != 0)
        rc = tp_error_set(err, TP_ERR_IO, "%s: %s", outpath, strerror(errno));
    if (rc != TP_OK)
        unlink(tmp);
    free(corr);
    return rc;
}
