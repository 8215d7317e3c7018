/* source_test.c — the reading layer on hostile input: files that shrink
 * while read, long runs of leading blanks, gzip padding, keys whose value
 * moves the JSON window, numbers past int64, repeated "traceEvents". */
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "ingest.h"
#include "source.h"
#include "json.h"
#include "testing.h"

static char dir[64];

static const char *tmp_path(const char *name)
{
    static char path[8][256];
    static int k;
    char *p = path[k++ % 8];
    snprintf(p, 256, "%s/%s", dir, name);
    return p;
}

static const char *write_tmp(const char *name, const void *data, size_t len)
{
    const char *p = tmp_path(name);
    FILE *f = fopen(p, "wb");
    fwrite(data, 1, len, f);
    fclose(f);
    return p;
}

/* A growable text buffer for building traces. */
struct buf {
    char *s;
    size_t n, cap;
};

static void put(struct buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

static void puts_(struct buf *b, const char *s) { put(b, s, strlen(s)); }

static int load(const char *path, tp_store **st, tp_error *err)
{
    *st = tp_store_new();
    memset(err, 0, sizeof *err);
    return tp_store_load(*st, path, err);
}

/* nevents complete events "k<i>", each on its own line; *ends gets the
 * offset just past each event. */
static char *trace_of(size_t nevents, size_t *len, size_t **ends)
{
    struct buf b = {0};
    puts_(&b, "{\"traceEvents\": [\n");
    *ends = malloc(nevents * sizeof **ends);
    for (size_t i = 0; i < nevents; i++) {
        char ev[256];
        snprintf(ev, sizeof ev,
                 "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op%zu\", \"pid\": 1, \"tid\": 1, "
                 "\"ts\": %zu, \"dur\": 1, \"args\": {\"External id\": %zu}}",
                 i ? ",\n" : "", i, i * 10, i + 1);
        put(&b, ev, strlen(ev));
        (*ends)[i] = b.n;
    }
    puts_(&b, "\n]}\n");
    *len = b.n;
    return b.s;
}

/* D3: a regular file that shrinks while it is read is a clean error at the
 * byte where it ended, and the events before it stay.  The file is cut after
 * the source was opened (its size taken) and before the importer reads on:
 * with a mapping this was SIGBUS. */
static void test_shrink(void)
{
    size_t len, *ends;
    char *doc = trace_of(200000, &len, &ends);   /* ~25 MB */
    const char *path = write_tmp("shrink.json", doc, len);
    size_t cut = (len / 2) & ~(size_t)4095;   /* at a page end: a mapping's next touch was SIGBUS */
    size_t complete = 0;
    while (complete < 200000 && ends[complete] <= cut)
        complete++;
    tp_source *src;
    tp_error err = {0};
    CHECK_INT("source.shrink.open", tp_source_open(&src, path, &err), TP_OK);
    CHECK_INT("source.shrink.cut", truncate(path, (off_t)cut), 0);
    tp_store *st = tp_store_new();
    int rc = tp_ingest_kineto(st, src, &err);
    tp_source_close(src);
    char want[300];
    snprintf(want, sizeof want, "%s: byte %zu: file shrank while reading", path, cut);
    CHECK_INT("source.shrink.status", rc, TP_ERR_TRUNCATED);
    CHECK_STR("source.shrink.message", err.msg, want);
    CHECK_INT("source.shrink.rows_kept", st->n, complete);
    tp_store_free(st);
    free(ends);
    free(doc);
}

/* D7: blanks of any length before the first brace. */
static void test_leading_blanks(void)
{
    size_t len, *ends;
    char *doc = trace_of(3, &len, &ends);
    size_t pad = 10000;
    char *all = malloc(pad + len);
    for (size_t i = 0; i < pad; i++)
        all[i] = " \n\t\r"[i % 4];
    memcpy(all + pad, doc, len);
    tp_store *st;
    tp_error err;
    CHECK_INT("source.blanks_10000.load", load(write_tmp("blanks.json", all, pad + len), &st, &err), TP_OK);
    CHECK_INT("source.blanks_10000.rows", st->n, 3);
    tp_store_free(st);
    /* nothing but blanks, more than the sniffer's 4 KB: still "empty" */
    CHECK("source.blanks_only.empty",
          load(write_tmp("blanks_only.json", all, pad), &st, &err) == TP_ERR_FORMAT && strstr(err.msg, "empty file"));
    tp_store_free(st);
    /* a byte offset after the blanks counts them */
    memcpy(all + pad + len - 4, "]} x", 4);
    CHECK("source.blanks_10000.offset",
          load(write_tmp("blanks_bad.json", all, pad + len), &st, &err) != TP_OK && strstr(err.msg, "byte 10"));
    tp_store_free(st);
    free(all);
    free(ends);
    free(doc);
}

static size_t gzip_of(const char *in, size_t n, unsigned char *out, size_t cap)
{
    z_stream z = {0};
    deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    z.next_in = (unsigned char *)in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    size_t got = cap - z.avail_out;
    deflateEnd(&z);
    return got;
}

/* D14: zero padding after a gzip stream is accepted (gzip -t does);
 * anything else after the padding is corrupt data. */
static void test_gzip_padding(void)
{
    size_t len, *ends;
    char *doc = trace_of(50, &len, &ends);
    size_t cap = len + 70000;
    unsigned char *gz = calloc(1, cap);
    size_t n = gzip_of(doc, len, gz, cap);
    tp_store *st;
    tp_error err;
    CHECK_INT("source.gzip_zero_padding.load", load(write_tmp("pad.json.gz", gz, n + 65536), &st, &err), TP_OK);
    CHECK_INT("source.gzip_zero_padding.rows", st->n, 50);
    tp_store_free(st);
    gz[n + 600] = 'x';
    CHECK("source.gzip_padding_then_garbage",
          load(write_tmp("padx.json.gz", gz, n + 601), &st, &err) == TP_ERR_FORMAT &&
          strstr(err.msg, "corrupt gzip data") && st->n == 50);
    tp_store_free(st);
    /* D6: a gzip stream corrupt within its first bytes says so, not "empty" */
    memset(gz + 10, 0xff, 40);
    CHECK("source.gzip_corrupt_at_start",
          load(write_tmp("bad.json.gz", gz, n), &st, &err) == TP_ERR_FORMAT && strstr(err.msg, "corrupt gzip data"));
    tp_store_free(st);
    free(gz);
    free(ends);
    free(doc);
}

static const struct tp_device *device0(const tp_store *st)
{
    return st->ndevices ? &st->devices[0] : NULL;
}

/* D1: the device property reader matched its key after reading the value;
 * a value that refills the window (streamed) or grows the escape scratch
 * left the key pointer dangling. */
static void test_devprops_key_after_value(void)
{
    /* an escaped key and a long escaped value: the scratch is reallocated
     * (an escaped string before it allocates the scratch early, so that it
     * is not the last heap block and realloc moves it) */
    struct buf b = {0};
    puts_(&b, "{\"displayTimeUnit\": \"n\\u0073\", \"deviceProperties\": [{\"numSms\": 108, \"n\\u0061me\": \"");
    for (int i = 0; i < 100000; i++)
        puts_(&b, "\\u0041");
    puts_(&b, "\", \"warpSize\": 32}], \"traceEvents\": []}");
    tp_store *st;
    tp_error err;
    CHECK_INT("kineto.devprops.escaped_key.load", load(write_tmp("esc.json", b.s, b.n), &st, &err), TP_OK);
    const struct tp_device *d = device0(st);
    CHECK("kineto.devprops.escaped_key.name", d && strlen(tp_store_str(st, d->name)) == 100000);
    CHECK("kineto.devprops.escaped_key.others", d && d->num_sms == 108 && d->warp_size == 32);
    tp_store_free(st);
    /* a plain value longer than the window: the window is replaced (gzip:
     * streamed in every version of the reader) */
    b.n = 0;
    puts_(&b, "{\"deviceProperties\": [{\"numSms\": 108, \"name\": \"");
    size_t long_name = 6u << 20;
    char *chunk = malloc(long_name);
    memset(chunk, 'A', long_name);
    put(&b, chunk, long_name);
    free(chunk);
    puts_(&b, "\", \"computeMajor\": 9}], \"traceEvents\": []}");
    size_t cap = b.n / 100 + 65536;
    unsigned char *gz = malloc(cap);
    size_t gzn = gzip_of(b.s, b.n, gz, cap);
    CHECK_INT("kineto.devprops.long_name.load", load(write_tmp("long.json.gz", gz, gzn), &st, &err), TP_OK);
    free(gz);
    d = device0(st);
    CHECK("kineto.devprops.long_name.name", d && strlen(tp_store_str(st, d->name)) == long_name);
    CHECK("kineto.devprops.long_name.others", d && d->num_sms == 108 && d->major == 9);
    tp_store_free(st);
    free(b.s);
}

/* D1 as the fuzzer found it: a real trace (gzip) read with a 48-byte
 * window, so nearly every value refills. */
static void test_devprops_tiny_window(void)
{
    const char *rep = "../shared/reliability/uaf-read_devices-stream.t2input";
    FILE *f = fopen(rep, "rb");
    if (!f) {
        SKIP("kineto.devprops.window_48", "../shared/reliability is missing");
        return;
    }
    static char data[1 << 16];
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    /* the fuzz input's first two bytes pick the mode; the rest is gzip */
    const char *path = write_tmp("t2.json.gz", data + 2, n - 2);
    size_t saved = tp_json_window_bytes;
    tp_store *ref, *st;
    tp_error err;
    CHECK_INT("kineto.devprops.window_default.load", load(path, &ref, &err), TP_OK);
    tp_json_window_bytes = 48;
    CHECK_INT("kineto.devprops.window_48.load", load(path, &st, &err), TP_OK);
    tp_json_window_bytes = saved;
    int same = st->ndevices == ref->ndevices && st->ndevices == 8 && st->n == ref->n;
    for (size_t i = 0; same && i < st->ndevices; i++) {
        const struct tp_device *a = &ref->devices[i], *b = &st->devices[i];
        same = a->id == b->id && a->num_sms == b->num_sms && a->total_mem == b->total_mem &&
               a->major == b->major && a->smem_optin == b->smem_optin && a->warp_size == b->warp_size &&
               strcmp(tp_store_str(ref, a->name), tp_store_str(st, b->name)) == 0;
    }
    CHECK("kineto.devprops.window_48.same_devices", same);
    CHECK_STR("kineto.devprops.window_48.name", st->ndevices ? tp_store_str(st, st->devices[0].name) : "",
              "NVIDIA A100-PG509-200");
    tp_store_free(ref);
    tp_store_free(st);
}

/* D19: a number past int64 where an integer is expected is out of range,
 * checked before the cast (UBSan: float-cast-overflow). */
static void test_huge_integer(void)
{
    const char *doc = "{\"deviceProperties\": [{\"totalGlobalMem\": 2e37, \"numSms\": 1e300, \"warpSize\": 3.2e1,"
                      " \"computeMajor\": 9}], \"traceEvents\": ["
                      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 1,"
                      " \"args\": {\"correlation\": -2e37, \"device\": 0, \"stream\": 7}}]}";
    tp_store *st;
    tp_error err;
    CHECK_INT("kineto.huge_integer.load", load(write_tmp("huge.json", doc, strlen(doc)), &st, &err), TP_OK);
    const struct tp_device *d = device0(st);
    CHECK("kineto.huge_integer.device", d && d->total_mem == 0 && d->num_sms == 0 && d->warp_size == 32 && d->major == 9);
    CHECK_INT("kineto.huge_integer.row_left_out", st->n, 0);
    CHECK("kineto.huge_integer.counted", st->nskips == 1 && strstr(st->skips[0].reason, "\"correlation\""));
    tp_store_free(st);
}

/* D18: a repeated top-level "traceEvents": the last one wins (Python's json
 * keeps the last value of a key), the dropped events counted. */
static void test_repeated_trace_events(void)
{
    const char *doc = "{\"traceEvents\": ["
                      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"first\", \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 1,"
                      " \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}},"
                      "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"first_op\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}],"
                      " \"traceEvents\": ["
                      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"last\", \"pid\": 0, \"tid\": 7, \"ts\": 5, \"dur\": 2,"
                      " \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 2}}]}";
    tp_store *st;
    tp_error err;
    CHECK_INT("kineto.repeated_traceEvents.load", load(write_tmp("dup.json", doc, strlen(doc)), &st, &err), TP_OK);
    CHECK_INT("kineto.repeated_traceEvents.rows", st->n, 1);
    CHECK_STR("kineto.repeated_traceEvents.last_wins", st->n ? tp_store_str(st, st->name[0]) : "", "last");
    CHECK_INT("kineto.repeated_traceEvents.kernel_info", st->nkernels, 1);
    CHECK("kineto.repeated_traceEvents.noted",
          st->nskips == 1 && st->skips[0].count == 2 && !st->skips[0].malformed &&
          strstr(st->skips[0].reason, "last array wins"));
    tp_store_free(st);
}

/* Members back to back, the first ending anywhere near the end of the
 * source's 1 MiB raw chunk, read through output buffers of several sizes:
 * a decoder that reads ahead past a member (ISA-L keeps up to 8 bytes in
 * its bit buffer) must hand those bytes back, even when they were read with
 * the chunk before, or the second member is lost or corrupt. */
static void test_gzip_members_at_chunk_end(void)
{
    const size_t chunk = 1u << 20;
    size_t n1max = chunk + 64;
    unsigned char *a = malloc(n1max), *file = malloc(2 * n1max);
    char *got = malloc(2 * n1max);
    for (size_t i = 0; i < n1max; i++)
        a[i] = (unsigned char)("0123456789abcdef"[(i * 7 + i / 13) & 15]);
    int bad = 0, cases = 0;
    for (size_t end = chunk - 12; end <= chunk + 4; end++) {
        /* a stored member (level 0) has a size that follows its input: 10
         * header bytes, 5 per block of up to 65535, 8 trailer bytes */
        size_t blocks = (end - 18 + 65539) / 65540, n1 = end - 18 - 5 * blocks;
        z_stream z = {0};
        deflateInit2(&z, 0, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
        z.next_in = a;
        z.avail_in = (uInt)n1;
        z.next_out = file;
        z.avail_out = (uInt)(2 * n1max);
        deflate(&z, Z_FINISH);
        size_t m1 = 2 * n1max - z.avail_out;
        deflateEnd(&z);
        size_t m2 = gzip_of("tail of the second member", 25, file + m1, 2 * n1max - m1);
        const char *path = write_tmp("members.gz", file, m1 + m2);
        for (size_t cap = 7; cap <= 70000; cap *= 100) {
            tp_error err = {0};
            tp_source *src;
            if (tp_source_open(&src, path, &err) != TP_OK) {
                bad++;
                continue;
            }
            size_t have = 0;
            long r;
            while ((r = tp_source_read(src, got + have, cap, &err)) > 0)
                have += (size_t)r;
            cases++;
            if (r < 0 || have != n1 + 25 || memcmp(got, a, n1) != 0 || memcmp(got + n1, "tail of the second member", 25))
                bad++;
            tp_source_close(src);
        }
    }
    CHECK("source.gzip_members_at_chunk_end", bad == 0 && cases == 17 * 3);
    free(a);
    free(file);
    free(got);
}

/* ---- the reader thread against reading on the caller's thread ----
 *
 * Each input is read twice, tp_source_readahead_min at 0 (a thread for any
 * regular file) and at SIZE_MAX (never), through reads of several sizes:
 * the same bytes, the same end, the same error with the same message and
 * status, the same offset. */
struct readout {
    char *bytes;
    size_t len;
    long last;          /* the read that ended it: 0 or -1 */
    tp_error err;
    uint64_t offset;
    int threaded;
};

static void read_all(const char *path, int thread, size_t cap, struct readout *o)
{
    memset(o, 0, sizeof *o);
    size_t saved = tp_source_readahead_min;
    tp_source_readahead_min = thread ? 0 : SIZE_MAX;
    tp_source *src;
    int rc = tp_source_open(&src, path, &o->err);
    tp_source_readahead_min = saved;
    if (rc != TP_OK) {
        o->last = -2;
        return;
    }
    o->threaded = tp_source_threaded(src);
    size_t bufcap = 1u << 20;
    o->bytes = malloc(bufcap);
    /* a peek first, as tp_store_load does */
    const char *head;
    size_t np = tp_source_peek(src, &head);
    if (np > 3)
        tp_source_skip(src, 3);
    memcpy(o->bytes, head, np > 3 ? 3 : np);
    o->len = np > 3 ? 3 : np;
    for (;;) {
        if (o->len + cap > bufcap) {
            bufcap = (o->len + cap) * 2;
            o->bytes = realloc(o->bytes, bufcap);
        }
        long r = tp_source_read(src, o->bytes + o->len, cap, &o->err);
        if (r <= 0) {
            o->last = r;
            break;
        }
        o->len += (size_t)r;
    }
    const tp_error *e = tp_source_error(src);
    if ((o->last < 0) != (e != NULL))
        o->last = -3;   /* tp_source_error disagrees with the read */
    o->offset = tp_source_offset(src);
    tp_source_close(src);
}

/* 1 when both ways read `path` alike; `want_error` says whether the reads
 * must end in an error (a check that the case is the case it claims).
 * Before the thread, a corrupt compressed input gave more or fewer bytes
 * before its error, and zstd another offset, with the size of the reads
 * (source.c: units): the caps below found that. */
static int same_both_ways(const char *name, const char *path, int want_error)
{
    /* an empty file has nothing to read ahead; a plain one is read on the
     * caller's thread (source.c: the thread is for compressed input) */
    int want_thread = !strstr(name, "empty") && strncmp(name, "plain", 5) != 0;
    static const size_t caps[] = {7, 4096, (1u << 20) + 3, 4u << 20};
    int bad = 0;
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        if (caps[c] == 7 && strstr(name, "big"))
            continue;   /* 7-byte reads of 8 MB: slow under valgrind, and the small inputs cover them */
        struct readout a, b;
        read_all(path, 0, caps[c], &a);
        read_all(path, 1, caps[c], &b);
        int ok = a.last == b.last && (a.last == -1) == want_error && a.len == b.len &&
                 (a.len == 0 || memcmp(a.bytes, b.bytes, a.len) == 0) && strcmp(a.err.msg, b.err.msg) == 0 &&
                 a.err.status == b.err.status && a.offset == b.offset && !a.threaded && b.threaded == want_thread;
        if (!ok) {
            printf("# %s cap %zu: direct %ld %zu \"%s\", thread(%d) %ld %zu \"%s\"\n", name, caps[c], a.last, a.len,
                   a.err.msg, b.threaded, b.last, b.len, b.err.msg);
            bad++;
        }
        free(a.bytes);
        free(b.bytes);
    }
    return bad == 0;
}

static void test_thread_same_bytes(void)
{
    size_t len, *ends;
    char *doc = trace_of(60000, &len, &ends);   /* ~7.5 MB: 15 slots of the ring */
    free(ends);
    size_t gcap = len / 4 + 65536, zcap = ZSTD_compressBound(len);
    unsigned char *gz = malloc(gcap), *zs = malloc(zcap);
    size_t gn = gzip_of(doc, len, gz, gcap);
    size_t zn = ZSTD_compress(zs, zcap, doc, len, 3);
    CHECK("source.thread.inputs", gn > 1000 && !ZSTD_isError(zn));
    CHECK("source.thread.plain_big", same_both_ways("plain_big", write_tmp("t.json", doc, len), 0));
    CHECK("source.thread.plain_small", same_both_ways("plain_small", write_tmp("ts.json", doc, 5000), 0));
    CHECK("source.thread.plain_empty", same_both_ways("plain_empty", write_tmp("t0.json", doc, 0), 0));
    CHECK("source.thread.gzip_big", same_both_ways("gzip_big", write_tmp("t.json.gz", gz, gn), 0));
    CHECK("source.thread.gzip_truncated", same_both_ways("gzip_trunc", write_tmp("tt.json.gz", gz, gn / 2), 1));
    CHECK("source.thread.zstd_big", same_both_ways("zstd_big", write_tmp("t.json.zst", zs, zn), 0));
    CHECK("source.thread.zstd_truncated", same_both_ways("zstd_trunc", write_tmp("tt.json.zst", zs, zn / 2), 1));
    /* a member of garbage after the first: the first member's bytes, then
     * the error at the compressed byte where the second went wrong */
    unsigned char *gz2 = malloc(gn + 64);
    memcpy(gz2, gz, gn);
    memcpy(gz2 + gn, "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff\xff\xff\xff\xff", 16);
    CHECK("source.thread.gzip_bad_second_member",
          same_both_ways("gzip_member2", write_tmp("tm.json.gz", gz2, gn + 16), 1));
    free(gz2);
    /* corrupt in the middle */
    gz[gn / 2] ^= 0x55;
    gz[gn / 2 + 1] ^= 0xaa;
    CHECK("source.thread.gzip_corrupt", same_both_ways("gzip_corrupt", write_tmp("tc.json.gz", gz, gn), 1));
    zs[zn / 2] ^= 0x55;
    zs[zn / 2 + 1] ^= 0xaa;
    zs[zn / 2 + 2] ^= 0xff;
    const char *zbad = write_tmp("tc.json.zst", zs, zn);
    CHECK("source.thread.zstd_corrupt", same_both_ways("zstd_corrupt", zbad, 1));
    /* zstd is fed one block a call: the error names the corrupt block (a
     * few KB of this trace each), not where a call that made 512 KiB of
     * output began, and every byte before that block is handed out, right */
    struct readout o;
    read_all(zbad, 0, 1u << 20, &o);
    const char *at = strstr(o.err.msg, "compressed byte ");
    unsigned long long off = at ? strtoull(at + 16, NULL, 10) : 0;
    CHECK("source.zstd_corrupt.offset_at_the_block", at && off <= zn / 2 && zn / 2 - off < 16384);
    CHECK("source.zstd_corrupt.bytes_before_it",
          o.len > len / 2 - (256u << 10) && o.len < len && memcmp(o.bytes, doc, o.len) == 0);
    free(o.bytes);
    free(gz);
    free(zs);
    free(doc);
}

/* The whole pipeline (sniff, blanks, BOM, the JSON reader) both ways. */
static void test_thread_same_store(void)
{
    size_t len, *ends;
    char *doc = trace_of(40000, &len, &ends);
    free(ends);
    size_t pad = 9000;
    char *all = malloc(pad + 3 + len);
    memcpy(all, "\xef\xbb\xbf", 3);
    for (size_t i = 0; i < pad; i++)
        all[3 + i] = " \n\t\r"[i % 4];
    memcpy(all + 3 + pad, doc, len);
    const char *path = write_tmp("tl.json", all, pad + 3 + len);
    const char *cut = write_tmp("tlc.json", all, pad + 3 + len / 2);   /* ends inside an event */
    int bad = 0;
    for (int k = 0; k < 2; k++) {
        const char *p = k ? cut : path;
        tp_store *a, *b;
        tp_error ea, eb;
        size_t saved = tp_source_readahead_min;
        tp_source_readahead_min = SIZE_MAX;
        int ra = load(p, &a, &ea);
        tp_source_readahead_min = 0;
        int rb = load(p, &b, &eb);
        tp_source_readahead_min = saved;
        if (ra != rb || (k == 0) != (ra == TP_OK) || a->n != b->n || strcmp(ea.msg, eb.msg) != 0 ||
            (k == 0 && a->n != 40000))
            bad++;
        for (size_t i = 0; !bad && i < a->n; i++)
            if (a->ts[i] != b->ts[i] || strcmp(tp_store_str(a, a->name[i]), tp_store_str(b, b->name[i])) != 0)
                bad++;
        tp_store_free(a);
        tp_store_free(b);
    }
    CHECK_INT("source.thread.same_store_and_error", bad, 0);
    free(all);
    free(doc);
}

/* TPROF_THREADS=1 keeps everything on the caller's thread; =2 allows one
 * reader thread, busy machine or not; a plain file never gets one. */
static void test_thread_off(void)
{
    static const char doc[] = "{\"traceEvents\": []}";
    unsigned char gz[256];
    size_t gn = gzip_of(doc, sizeof doc - 1, gz, sizeof gz);
    const char *plain = write_tmp("off.json", doc, sizeof doc - 1);
    tp_source *src;
    tp_error err;
    size_t saved = tp_source_readahead_min;
    tp_source_readahead_min = 0;
    setenv("TPROF_THREADS", "2", 1);
    int plain_off = tp_source_open(&src, plain, &err) == TP_OK && !tp_source_threaded(src);
    tp_source_close(src);
    tp_source_readahead_min = saved;
    CHECK("source.thread.plain_file_none", plain_off);
    const char *path = write_tmp("off.json.gz", gz, gn);
    tp_source_readahead_min = 0;
    setenv("TPROF_THREADS", "1", 1);
    int off = tp_source_open(&src, path, &err) == TP_OK && !tp_source_threaded(src);
    tp_source_close(src);
    setenv("TPROF_THREADS", "2", 1);
    int on = tp_source_open(&src, path, &err) == TP_OK && tp_source_threaded(src);
    /* a second source open at the same time gets none: two threads are spent */
    tp_source *src2;
    int second = tp_source_open(&src2, path, &err) == TP_OK && !tp_source_threaded(src2);
    tp_source_close(src2);
    tp_source_close(src);
    setenv("TPROF_THREADS", "4", 1);
    int third = tp_source_open(&src, path, &err) == TP_OK && tp_source_threaded(src);
    int fourth = tp_source_open(&src2, path, &err) == TP_OK && tp_source_threaded(src2);
    tp_source_close(src2);
    tp_source_close(src);
    setenv("TPROF_THREADS", "2", 1);
    tp_source_readahead_min = saved;
    CHECK("source.thread.TPROF_THREADS_1_off", off);
    CHECK("source.thread.TPROF_THREADS_2_on", on);
    CHECK("source.thread.one_per_two_threads", second && third && fourth);
}

int main(void)
{
    /* Make a use-after-free show without a sanitizer: freed memory is
     * overwritten, and big blocks are always unmapped when freed (glibc
     * would otherwise raise its mmap threshold after the first free). */
    setvbuf(stdout, NULL, _IOLBF, 0);   /* a crash still shows the checks before it */
    mallopt(M_PERTURB, 0xa5);
    mallopt(M_MMAP_THRESHOLD, 64 * 1024);
    if (tt_tmpdir(dir, sizeof dir, "source") < 0)
        return 1;
    /* a reader thread wherever tp_source_readahead_min allows one, however
     * busy the machine is (the thread tests below lower that minimum) */
    setenv("TPROF_THREADS", "2", 1);
    test_devprops_key_after_value();
    test_shrink();
    test_leading_blanks();
    test_gzip_padding();
    test_gzip_members_at_chunk_end();
    test_devprops_tiny_window();
    test_huge_integer();
    test_repeated_trace_events();
    test_thread_same_bytes();
    test_thread_same_store();
    test_thread_off();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "source_test: could not remove %s\n", dir);
    TEST_EXIT();
}
