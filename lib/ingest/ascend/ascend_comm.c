/* ascend_comm.c — communication.json of an Ascend folder (SPEC §A.4.8):
 *
 *   { "step<N>" | "step": { "collective"|"p2p": { "<op>@<group>" | "Total Op Info": {
 *        "Communication Time Info": { "Start Timestamp(us)", "Elapse Time(ms)", ... },
 *        "Communication Bandwidth Info": { "HCCS": { "Transit Size(MB)", ... }, ... } } } } }
 *
 * One tp_npu_comm per op.  Read with the streaming JSON reader; the start
 * timestamp is parsed exactly.  Unknown keys are skipped. */
#include <stdlib.h>
#include <string.h>
#include "ascend.h"
#include "json.h"
#include "grow.h"

static int num(tp_json *j, double *out)
{
    enum tp_jtype t = tp_json_type(j);
    tp_jspan s;
    if (t != TP_J_NUMBER)
        return tp_json_skip(j, NULL) < 0 ? -1 : 0;
    if (tp_json_number(j, &s) < 0)
        return -1;
    double v;
    if (tp_decimal_to_double(tp_json_ptr(j, s), s.len, &v) == 0)
        *out = v;
    return 0;
}

/* The members of the object j is at, each read (or skipped) by
 * member(j, its key, ctx): 1 at the object's end; 0 when the value is of
 * another type, skipped (the plugin's files leave out or null what they
 * have not measured); -1 on error. */
static int members(tp_json *j, int (*member)(tp_json *j, tp_jspan key, void *ctx), void *ctx)
{
    if (tp_json_type(j) != TP_J_OBJECT)
        return tp_json_skip(j, NULL) < 0 ? -1 : 0;
    if (tp_json_obj_begin(j) < 0)
        return -1;
    int n = 0, r;
    tp_jspan k;
    while ((r = tp_json_obj_next(j, &n, &k)) == 1)
        if (member(j, k, ctx) < 0)
            return -1;
    return r < 0 ? -1 : 1;
}

/* "Communication Time Info": the start and the times of one op. */
static int time_member(tp_json *j, tp_jspan k, void *ctx)
{
    struct tp_npu_comm *c = ctx;
    double *dst = NULL;
    if (TP_JEQ(j, k, "Start Timestamp(us)")) {
        tp_jspan s;
        if (tp_json_type(j) != TP_J_NUMBER)
            return tp_json_skip(j, NULL) < 0 ? -1 : 0;
        if (tp_json_number(j, &s) < 0)
            return -1;
        int64_t ns;
        if (tp_decimal_us_to_ns(tp_json_ptr(j, s), s.len, &ns) == 0)
            c->start = ns;
        return 0;
    }
    if (TP_JEQ(j, k, "Elapse Time(ms)")) dst = &c->elapse_ms;
    else if (TP_JEQ(j, k, "Transit Time(ms)")) dst = &c->transit_ms;
    else if (TP_JEQ(j, k, "Wait Time(ms)")) dst = &c->wait_ms;
    else if (TP_JEQ(j, k, "Synchronization Time(ms)")) dst = &c->sync_ms;
    else if (TP_JEQ(j, k, "Idle Time(ms)")) dst = &c->idle_ms;
    else if (TP_JEQ(j, k, "Wait Time Ratio")) dst = &c->wait_ratio;
    else if (TP_JEQ(j, k, "Synchronization Time Ratio")) dst = &c->sync_ratio;
    if (dst)
        return num(j, dst);
    return tp_json_skip(j, NULL) < 0 ? -1 : 0;
}

/* One link of "Communication Bandwidth Info" (HCCS, PCIE, ...: link, -1
 * another): its size adds to the op's, its bandwidth is the link's. */
struct link_ctx {
    struct tp_npu_comm *c;
    int link;
};

static int link_member(tp_json *j, tp_jspan k, void *ctx)
{
    struct link_ctx *l = ctx;
    double v = NAN;
    if (TP_JEQ(j, k, "Transit Size(MB)")) {
        if (num(j, &v) < 0) return -1;
        if (!isnan(v)) l->c->transit_size_mb += v;
    } else if (TP_JEQ(j, k, "Bandwidth(GB/s)") && l->link >= 0) {
        if (num(j, &v) < 0) return -1;
        l->c->bw_gbps[l->link] = v;
    } else if (tp_json_skip(j, NULL) < 0) {
        return -1;
    }
    return 0;
}

static int bw_member(tp_json *j, tp_jspan k, void *ctx)
{
    struct link_ctx l = {ctx, -1};
    for (int i = 0; i < 5; i++)
        if (tp_jspan_eq(j, k, tp_npu_links[i], strlen(tp_npu_links[i])))
            l.link = i;
    return members(j, link_member, &l) < 0 ? -1 : 0;
}

/* One op: its time and bandwidth infos. */
static int op_member(tp_json *j, tp_jspan k, void *ctx)
{
    if (TP_JEQ(j, k, "Communication Time Info"))
        return members(j, time_member, ctx) < 0 ? -1 : 0;
    if (TP_JEQ(j, k, "Communication Bandwidth Info"))
        return members(j, bw_member, ctx) < 0 ? -1 : 0;
    return tp_json_skip(j, NULL) < 0 ? -1 : 0;
}

static int add(struct tp_npu_data *d, const struct tp_npu_comm *c)
{
    if (tp_grow((void **)&d->comms, &d->capcomms, d->ncomms + 1, sizeof *d->comms) < 0)
        return -1;
    d->comms[d->ncomms++] = *c;
    return 0;
}

static int ops(tp_json *j, tp_store *st, struct tp_npu_data *d, int64_t step, uint32_t kind)
{
    if (tp_json_obj_begin(j) < 0)
        return -1;
    int n = 0, r;
    tp_jspan k;
    while ((r = tp_json_obj_next(j, &n, &k)) == 1) {
        struct tp_npu_comm c;
        memset(&c, 0, sizeof c);
        c.step = step;
        c.kind = kind;
        c.start = TP_NONE;
        c.elapse_ms = c.transit_ms = c.wait_ms = c.sync_ms = c.idle_ms = c.wait_ratio = c.sync_ratio = NAN;
        for (int i = 0; i < 5; i++)
            c.bw_gbps[i] = NAN;
        c.name = tp_store_intern(st, tp_json_ptr(j, k), k.len);
        c.total = TP_JEQ(j, k, "Total Op Info");
        int e = members(j, op_member, &c);
        if (e < 0)
            return -1;
        if (e == 0)
            continue;
        if (add(d, &c) < 0)
            return tp_json_fail(j, TP_ERR_NOMEM, "out of memory");
    }
    return r;
}

int tp_ascend_read_comm(tp_store *st, struct tp_npu_data *d, const char *path, tp_error *err)
{
    tp_source *src;
    tp_error e = {0};
    if (tp_source_open(&src, path, &e) != TP_OK) {
        tp_store_bad(st, "communication.json: cannot be opened", 0);
        return TP_OK;
    }
    tp_json j;
    if (tp_json_init_source(&j, src, &e) != TP_OK) {
        tp_source_close(src);
        tp_store_bad(st, "communication.json: cannot be read", 0);
        return TP_OK;
    }
    int rc = 0;
    if (tp_json_type(&j) != TP_J_OBJECT) {
        rc = tp_json_fail(&j, TP_ERR_FORMAT, "not a JSON object");
    } else if ((rc = tp_json_obj_begin(&j)) >= 0) {
        int n = 0, r;
        tp_jspan k;
        while ((r = tp_json_obj_next(&j, &n, &k)) == 1) {
            const char *s = tp_json_ptr(&j, k);
            int64_t step = TP_NONE;
            if (k.len > 4 && memcmp(s, "step", 4) == 0 && tp_decimal_to_i64(s + 4, k.len - 4, &step) != 0)
                step = TP_NONE;
            if (tp_json_type(&j) != TP_J_OBJECT) {
                if ((rc = tp_json_skip(&j, NULL)) < 0) break;
                continue;
            }
            if ((rc = tp_json_obj_begin(&j)) < 0)
                break;
            int m = 0, q;
            tp_jspan kk;
            while ((q = tp_json_obj_next(&j, &m, &kk)) == 1) {
                uint32_t kind = tp_store_intern(st, tp_json_ptr(&j, kk), kk.len);
                if (tp_json_type(&j) != TP_J_OBJECT) {
                    if ((rc = tp_json_skip(&j, NULL)) < 0) break;
                    continue;
                }
                if ((rc = ops(&j, st, d, step, kind)) < 0)
                    break;
            }
            if (rc < 0 || q < 0) {
                rc = -1;
                break;
            }
            tp_json_set_mark(&j);
        }
        if (r < 0)
            rc = -1;
    }
    tp_json_free(&j);
    tp_source_close(src);
    if (rc < 0) {
        if (e.status == TP_ERR_NOMEM)
            return tp_error_set(err, TP_ERR_NOMEM, "%s", e.msg);
        tp_ascend_json_bad(st, "communication.json", e.msg);
    } else {
        d->read |= TP_NPU_COMMUNICATION;
    }
    return TP_OK;
}
