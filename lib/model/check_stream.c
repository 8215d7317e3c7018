/* check_stream.c — what one GPU stream cannot do: run two things at once.
 *
 * A stream runs its kernels, copies and fills one after the other, so on
 * one (device, stream) each event should end before the next starts.  In
 * start order, with `prev` the event that ends last so far:
 *
 *  - rounding_overlap (info): the next starts less than the rounding limit
 *    before prev ends: 1 µs, or 2 µs when the trace writes whole
 *    microseconds (kineto rounds ts and dur separately, so an end is off by
 *    up to 1 µs and a start by 0.5 µs); sub-µs clock conversion does the
 *    same on traces with ns digits;
 *  - dur_past_next (warning): prev ends after the next has ended too: its
 *    dur covers the next event whole, so the dur is wrong (a lost end
 *    record, a clock jump) and busy time counts the same time twice;
 *  - stream_overlap (warning): the next starts a rounding limit or more
 *    before prev ends but ends after it: the two ran at once (Hopper's
 *    programmatic dependent launch does this on purpose) or the timestamps
 *    are wrong; busy and idle times on that stream are off by the overlap.
 *
 * us_timestamps (info): every GPU event's ts and dur is a whole number of
 * microseconds: gaps and overlaps under 2 µs cannot be told apart. */
#include <stdlib.h>
#include "check.h"
#include "cmp.h"
#include "hta.h"

struct sev {
    int32_t device, stream;
    int64_t ts, row;
};

TP_CMP_FIELDS(cmp_sev, struct sev, device, stream, ts, row)

/* cmp_sev's keys for tp_hta_sort, least significant first (the events are
 * taken in row order, so ties stay in row order as cmp_sev has them; a
 * one-stream trace comes in order already, where a qsort of its 250K events
 * was a quarter of the check on a 1 GB trace). */
static int64_t sev_key(const void *elem, int pass)
{
    const struct sev *x = elem;
    return pass == 0 ? x->ts : pass == 1 ? x->stream : x->device;
}


/* One kind of finding being counted: the first pair, the worst amount. */
struct tally {
    uint64_t count;
    int64_t first_row, first_next, worst_ns;
};

static void tally(struct tally *t, int64_t prev, int64_t next, int64_t ns)
{
    if (!t->count++) {
        t->first_row = prev;
        t->first_next = next;
    }
    if (ns > t->worst_ns)
        t->worst_ns = ns;
}

static void say(const tp_store *st, struct tp_findings *f, const struct tally *t, enum tp_severity sev,
                const char *key, const char *what)
{
    if (!t->count)
        return;
    struct tp_finding *x = tp_finding_add(f, st, sev, key, t->count, t->first_row);
    if (!x)
        return;
    size_t r = (size_t)t->first_row;
    tp_finding_detail(x, "%s; worst %lld.%03lld us; first on device %d stream %d, next event: %s", what,
                      (long long)(t->worst_ns / 1000), (long long)(t->worst_ns % 1000), st->device[r],
                      st->stream[r], tp_store_str(st, st->name[t->first_next]));
}

int tp_check_streams(const tp_store *st, struct tp_findings *f)
{
    size_t n = 0;
    int whole_us = 1;
    for (size_t i = 0; i < st->n; i++)
        if (tp_check_is_device(st, i) && st->stream[i] >= 0) {
            n++;
            whole_us &= st->ts[i] % 1000 == 0 && st->dur[i] % 1000 == 0;
        }
    if (!n)
        return TP_OK;
    struct sev *v = malloc(n * sizeof *v);
    if (!v) {
        f->oom = 1;
        return TP_ERR_NOMEM;
    }
    n = 0;
    for (size_t i = 0; i < st->n; i++)
        if (tp_check_is_device(st, i) && st->stream[i] >= 0)
            v[n++] = (struct sev){st->device[i], st->stream[i], st->ts[i], (int64_t)i};
    if (tp_hta_sort(v, n, sizeof *v, 3, sev_key, cmp_sev) < 0) {
        free(v);
        f->oom = 1;
        return TP_ERR_NOMEM;
    }
    int64_t limit = whole_us ? 2 * TP_CHECK_ROUNDING_NS : TP_CHECK_ROUNDING_NS;
    struct tally rounding = {0}, past = {0}, overlap = {0};
    for (size_t i = 1, prev = 0; i < n; i++) {
        if (v[i].device != v[prev].device || v[i].stream != v[prev].stream) {
            prev = i;
            continue;
        }
        int64_t p = v[prev].row, q = v[i].row;
        int64_t pend = st->ts[p] + st->dur[p], qend = st->ts[q] + st->dur[q];
        int64_t ov = pend - st->ts[q];
        if (ov > 0 && ov < limit)
            tally(&rounding, p, q, ov);
        else if (ov > 0 && pend > qend)
            tally(&past, p, q, pend - qend);
        else if (ov > 0)
            tally(&overlap, p, q, ov);
        if (qend >= pend)
            prev = i;   /* else prev still runs: the events after are compared with it */
    }
    free(v);
    char what[160];
    snprintf(what, sizeof what, "events on one stream that overlap by less than %d us: timestamp rounding, "
             "not real overlap", (int)(limit / 1000));
    say(st, f, &rounding, TP_SEV_INFO, "rounding_overlap", what);
    say(st, f, &past, TP_SEV_WARNING, "dur_past_next",
        "an event's dur runs past the end of the next event on its stream (worst: by how much): the dur "
        "is wrong; busy time counts the covered events twice");
    say(st, f, &overlap, TP_SEV_WARNING, "stream_overlap",
        "the next event on a stream starts before the previous one ends (worst: by how much): run at once "
        "(programmatic dependent launch) or wrong timestamps; busy and idle times on the stream are off");
    if (whole_us) {
        struct tp_finding *x = tp_finding_add(f, st, TP_SEV_INFO, "us_timestamps", n, -1);
        if (x)
            tp_finding_detail(x, "every GPU event's ts and dur is a whole microsecond (older kineto rounds): "
                              "gaps and overlaps under 2 us are rounding; each duration is off by up to 0.5 us");
    }
    return f->oom ? TP_ERR_NOMEM : TP_OK;
}
