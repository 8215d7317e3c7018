/* source.c — bytes in: a file, or stdin, plain, gzip or zstd.
 *
 * Every input is read with read(), in chunks, never mapped.  Mapping looked
 * free, but a mapped file that shrinks while it is scanned (a profiler still
 * writing it, log rotation, NFS) kills the process with SIGBUS on the next
 * page touch, and mapping a 1 GB trace whole needs 1 GB of address space on
 * top of the real peak (`ulimit -v`).  Two ways out were measured on a
 * 284 MB trace, `tprof info`, three rounds of 5 runs, medians of CPU
 * (user+sys) and wall, on 2 shared cores:
 *     mmap (before)                 0.59 0.57 0.59 s CPU, 1.20 0.85 0.88 s wall, max RSS 127 MB
 *     mmap + SIGBUS sigsetjmp guard 0.57 0.56 0.57 s CPU, 0.96 0.88 0.83 s wall, max RSS 127 MB
 *     read() into the JSON window   0.58 0.60 0.57 s CPU, 0.85 0.89 0.87 s wall, max RSS 109 MB
 * No difference beyond the noise: copying into the window costs about what
 * the page faults it replaces cost, and it keeps less resident.  read() won
 * on what else it gives: the SIGBUS guard is process-wide state a library
 * must not own (other threads, the host program's own handlers), jumps out
 * of the importer past its allocations, and still needs the whole file in
 * the address space; read() needs none of that.
 * With read() a shrunk file is an EOF before the size fstat gave: reported
 * as "byte N: file shrank while reading", the events before it kept.
 *
 * Compression is sniffed from the magic bytes, never the file name.  gzip
 * goes through inflate.c (ISA-L's igzip where built with it, else zlib;
 * inflate.c has the measurements); zstd through ZSTD_decompressStream.
 *
 * Errors are sticky and come after the data before them: a reader that hits
 * one returns the bytes it made first, and the next call returns -1 with the
 * message, so the caller keeps every complete event. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "inflate.h"
#include "readahead.h"
#include "source.h"

#define RAW_CHUNK (1u << 20)
#define PEEK_MAX 4096

struct tp_source {
    char path[1024];
    int fd;
    enum tp_compression comp;
    uint64_t file_size;
    uint64_t expect_bytes;        /* regular file: bytes from the start position to the end, at open */

    unsigned char *raw;           /* raw (compressed or plain) input buffer */
    size_t raw_len, raw_pos;
    int raw_eof;
    uint64_t raw_offset;          /* raw bytes consumed, for messages */
    uint64_t raw_read;            /* raw bytes read from the fd */

    char peek[PEEK_MAX];          /* decompressed bytes read ahead by peek, not yet delivered */
    size_t peek_len, peek_pos;
    uint64_t delivered;           /* decompressed bytes handed to the caller (peek bytes once dropped) */

    tp_inflate *gz;
    int z_end;
    ZSTD_DStream *zd;
    int zd_frame_done;
    size_t zd_hint;               /* the input the last call asked for next (0: any) */

    int failed;                   /* an error is pending or was returned */
    tp_error error;

    /* With a reader thread (units_start), everything above from `raw`
     * to `error` belongs to that thread until tp_readahead_take returns 0;
     * the peek buffer and `delivered` stay the caller's. */
    tp_readahead *ra;
    int counted;                  /* counted in sources_reading */
    char *unit;                   /* compressed input, no thread: the unit being handed out */
    size_t unit_len, unit_pos;
};

const char *tp_compression_name(enum tp_compression c)
{
    switch (c) {
    case TP_COMP_GZIP: return "gzip";
    case TP_COMP_ZSTD: return "zstd";
    default: return "none";
    }
}

static int units_start(tp_source *s);
static void readahead_end(tp_source *s);

/* Record the first error; the readers stop at it and hand out what they
 * made before it. */
__attribute__((format(printf, 3, 4))) static void source_fail(tp_source *s, enum tp_status st, const char *fmt, ...)
{
    if (s->failed)
        return;
    s->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    s->error.status = st;
    vsnprintf(s->error.msg, sizeof s->error.msg, fmt, ap);
    va_end(ap);
}

/* Bytes read from input files by every source of the process, for a
 * progress line (tp_input_bytes_read); relaxed: a reader wants an estimate. */
static _Atomic uint64_t bytes_read_total;

uint64_t tp_input_bytes_read(void)
{
    return atomic_load_explicit(&bytes_read_total, memory_order_relaxed);
}

/* read() that retries on EINTR; at the end of a regular file it checks that
 * the file had as many bytes as fstat said at open. */
static ssize_t fd_read(tp_source *s, void *buf, size_t cap)
{
    ssize_t r;
    do
        r = read(s->fd, buf, cap);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        s->error.sys_errno = errno;
        source_fail(s, TP_ERR_IO, "%s: byte %llu: read error: %s", s->path, (unsigned long long)s->raw_read,
                    strerror(errno));
        return -1;
    }
    if (r == 0 && s->raw_read < s->expect_bytes) {
        source_fail(s, TP_ERR_TRUNCATED, "%s: byte %llu: file shrank while reading", s->path,
                    (unsigned long long)s->raw_read);
        return -1;
    }
    s->raw_read += (uint64_t)r;
    atomic_fetch_add_explicit(&bytes_read_total, (uint64_t)r, memory_order_relaxed);
    return r;
}

/* Next raw bytes: pointer and length.  Returns 1, 0 at the end, -1 on an
 * error (recorded). */
static int raw_next(tp_source *s, const unsigned char **p, size_t *len)
{
    if (s->failed)
        return -1;
    if (s->raw_pos == s->raw_len) {
        if (s->raw_eof)
            return 0;
        ssize_t r = fd_read(s, s->raw, RAW_CHUNK);
        if (r < 0)
            return -1;
        if (r == 0) {
            s->raw_eof = 1;
            return 0;
        }
        s->raw_len = (size_t)r;
        s->raw_pos = 0;
    }
    *p = s->raw + s->raw_pos;
    *len = s->raw_len - s->raw_pos;
    return 1;
}

static void raw_consume(tp_source *s, size_t n)
{
    s->raw_pos += n;
    s->raw_offset += n;
}

/* Read up to 4 bytes of raw input without consuming, for the magic. */
static size_t raw_magic(tp_source *s, unsigned char m[4])
{
    while (s->raw_len < 4 && !s->raw_eof && !s->failed) {
        ssize_t r = fd_read(s, s->raw + s->raw_len, RAW_CHUNK - s->raw_len);
        if (r <= 0) {
            s->raw_eof = 1;
            break;
        }
        s->raw_len += (size_t)r;
    }
    size_t n = s->raw_len < 4 ? s->raw_len : 4;
    memcpy(m, s->raw, n);
    return n;
}

int tp_source_open(tp_source **out, const char *path, tp_error *err)
{
    *out = NULL;
    tp_source *s = calloc(1, sizeof *s);
    if (!s)
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", path);
    int is_stdin = strcmp(path, "-") == 0;
    snprintf(s->path, sizeof s->path, "%s", is_stdin ? "<stdin>" : path);
    if (is_stdin) {
        s->fd = 0;
    } else {
        s->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (s->fd < 0) {
            int e = errno;
            free(s);
            return tp_error_set(err, TP_ERR_IO, "%s: %s", path, strerror(e));
        }
    }
    struct stat sb;
    if (fstat(s->fd, &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) {
            tp_source_close(s);
            return tp_error_set(err, TP_ERR_IO, "%s: is a directory", path);
        }
        if (S_ISREG(sb.st_mode)) {
            s->file_size = (uint64_t)sb.st_size;
            /* stdin may be a file read partly already (`tprof - - < f`):
             * the content starts where its offset is, not at 0. */
            off_t at = lseek(s->fd, 0, SEEK_CUR);
            if (at >= 0 && at <= sb.st_size)
                s->expect_bytes = (uint64_t)(sb.st_size - at);
        }
    }
    s->raw = malloc(RAW_CHUNK);
    if (!s->raw) {
        tp_source_close(s);
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", path);
    }
    unsigned char m[4] = {0};
    size_t nm = raw_magic(s, m);
    if (nm >= 2 && m[0] == 0x1f && m[1] == 0x8b)
        s->comp = TP_COMP_GZIP;
    else if (nm >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd)
        s->comp = TP_COMP_ZSTD;
    if (s->comp == TP_COMP_GZIP) {
        s->gz = tp_inflate_new();
        if (!s->gz) {
            tp_source_close(s);
            return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", path);
        }
    } else if (s->comp == TP_COMP_ZSTD) {
        s->zd = ZSTD_createDStream();
        if (!s->zd) {
            tp_source_close(s);
            return tp_error_set(err, TP_ERR_NOMEM, "%s: cannot start zstd", path);
        }
        ZSTD_initDStream(s->zd);
    }
    if (units_start(s) < 0) {
        tp_source_close(s);
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", path);
    }
    *out = s;
    return TP_OK;
}

void tp_source_close(tp_source *s)
{
    if (!s)
        return;
    readahead_end(s);
    if (s->fd > 0)
        close(s->fd);
    free(s->raw);
    free(s->unit);
    tp_inflate_free(s->gz);
    if (s->zd)
        ZSTD_freeDStream(s->zd);
    free(s);
}

const char *tp_source_path(const tp_source *s) { return s->path; }
enum tp_compression tp_source_compression(const tp_source *s) { return s->comp; }
uint64_t tp_source_file_size(const tp_source *s) { return s->file_size; }
uint64_t tp_source_offset(const tp_source *s) { return s->delivered; }

const tp_error *tp_source_error(const tp_source *s)
{
    /* while the thread runs, an error it met is still behind bytes the
     * caller has not taken: not the caller's news yet (and not its to read) */
    if (s->ra && !tp_readahead_finished(s->ra))
        return NULL;
    return s->failed ? &s->error : NULL;
}

/* After a gzip member: zero bytes up to the end are tape or block padding,
 * which gzip itself accepts; anything else starts the next member.
 * Returns 1 when a member follows, 0 at the end, -1 on an error. */
static int gzip_after_member(tp_source *s)
{
    int zeros = 0;
    for (;;) {
        const unsigned char *p;
        size_t len;
        int r = raw_next(s, &p, &len);
        if (r <= 0)
            return r;
        size_t i = 0;
        while (i < len && p[i] == 0)
            i++;
        raw_consume(s, i);
        zeros |= i > 0;
        if (i < len)
            break;
    }
    if (zeros) {
        source_fail(s, TP_ERR_FORMAT, "%s: corrupt gzip data at compressed byte %llu: data after zero padding",
                    s->path, (unsigned long long)s->raw_offset);
        return -1;
    }
    return 1;
}

static size_t read_gzip(tp_source *s, char *buf, size_t cap)
{
    size_t produced = 0;
    while (produced < cap && !s->failed) {
        if (s->z_end) {
            /* A gzip file may hold several members back to back. */
            int r = gzip_after_member(s);
            if (r <= 0)
                break;
            tp_inflate_reset(s->gz);
            s->z_end = 0;
        }
        const unsigned char *p;
        size_t len, used, made;
        int r = raw_next(s, &p, &len);
        if (r < 0)
            break;
        enum tp_inflate_status st = tp_inflate_step(s->gz, r ? p : NULL, r ? len : 0, &used,
                                                    buf + produced, cap - produced, &made);
        raw_consume(s, used);
        produced += made;
        if (st == TP_INFLATE_MEMBER_END) {
            s->z_end = 1;
            continue;
        }
        if (st == TP_INFLATE_CORRUPT) {
            source_fail(s, TP_ERR_FORMAT, "%s: corrupt gzip data at compressed byte %llu: %s", s->path,
                        (unsigned long long)s->raw_offset, tp_inflate_message(s->gz));
            break;
        }
        if (r == 0) {
            /* The input ended inside a member.  The decoder may still hold
             * output when the buffer was full: deliver that first. */
            if (made > 0)
                continue;
            source_fail(s, TP_ERR_TRUNCATED, "%s: gzip stream ends early at compressed byte %llu", s->path,
                        (unsigned long long)s->raw_offset);
            break;
        }
    }
    return produced;
}

static size_t read_zstd(tp_source *s, char *buf, size_t cap)
{
    ZSTD_outBuffer out = { buf, cap, 0 };
    while (out.pos < out.size && !s->failed) {
        const unsigned char *p;
        size_t len;
        int r = raw_next(s, &p, &len);
        if (r < 0)
            break;
        if (r == 0) {
            if (!s->zd_frame_done)
                source_fail(s, TP_ERR_TRUNCATED, "%s: zstd stream ends early at compressed byte %llu", s->path,
                            (unsigned long long)s->raw_offset);
            break;
        }
        /* One block a call, the size zstd asked for: a failing call drops
         * what it made and does not say how far it read, so with one block
         * a call the bytes before a corrupt block are all handed out and the
         * error is placed at that block (or at the raw chunk it spans). */
        if (s->zd_hint && len > s->zd_hint)
            len = s->zd_hint;
        ZSTD_inBuffer in = { p, len, 0 };
        size_t zr = ZSTD_decompressStream(s->zd, &out, &in);
        raw_consume(s, in.pos);
        if (ZSTD_isError(zr)) {
            if (ZSTD_getErrorCode(zr) == ZSTD_error_frameParameter_windowTooLarge)
                /* zstd --long=31 and the like: the decoder would need the
                 * whole window (up to 2 GiB) in memory; refuse by name. */
                source_fail(s, TP_ERR_FORMAT,
                            "%s: zstd frame needs a window larger than %u MiB (made with zstd --long?); "
                            "decompress it first: zstd -d --memory=2048MB", s->path,
                            1u << (27 - 20));   /* zstd's default limit, 2^27 */
            else
                source_fail(s, TP_ERR_FORMAT, "%s: corrupt zstd data at compressed byte %llu: %s", s->path,
                            (unsigned long long)s->raw_offset, ZSTD_getErrorName(zr));
            break;
        }
        s->zd_frame_done = (zr == 0);
        s->zd_hint = zr;
    }
    return out.pos;
}

/* Plain bytes: what the magic sniff buffered first, then straight from the
 * fd into the caller's buffer (no second copy). */
static size_t read_plain(tp_source *s, char *buf, size_t cap)
{
    size_t produced = 0;
    if (s->raw_pos < s->raw_len) {
        size_t n = s->raw_len - s->raw_pos;
        if (n > cap)
            n = cap;
        memcpy(buf, s->raw + s->raw_pos, n);
        raw_consume(s, n);
        produced = n;
    }
    while (produced < cap && !s->raw_eof && !s->failed) {
        ssize_t r = fd_read(s, buf + produced, cap - produced);
        if (r <= 0) {
            s->raw_eof = 1;
            break;
        }
        s->raw_offset += (uint64_t)r;
        produced += (size_t)r;
        break;   /* a pipe gives what it has: parse that rather than wait to fill the buffer */
    }
    return produced;
}

static size_t read_decompressed(tp_source *s, char *buf, size_t cap)
{
    switch (s->comp) {
    case TP_COMP_GZIP: return read_gzip(s, buf, cap);
    case TP_COMP_ZSTD: return read_zstd(s, buf, cap);
    default: return read_plain(s, buf, cap);
    }
}

/* ---- units, and the reader thread ----
 *
 * A decompressor's output before an error depends on the output buffers it
 * was given, not only on the input: zstd drops what the failing call made
 * and places the error where the last good call ended; igzip decodes into
 * a buffer of its own when the room left is small.  So compressed input is
 * always decompressed in units of UNIT_BYTES, each filled whole (the last
 * excepted) by the same calls, then copied out: the bytes before an error,
 * the error and its offset follow from the input alone, not from the sizes
 * the caller reads with (the JSON reader's window) nor from whether a thread
 * made the units.  Plain files have no such state: read straight into the
 * caller's buffer when there is no thread.
 *
 * The thread, for compressed input only: decompressing costs the parser's
 * core 0.21-0.24 s of CPU a GB of JSON (zstd; igzip a little more), a
 * quarter of what parsing that GB costs, and no single-threaded decoder
 * makes that small enough for a .zst to cost within 1.1x the plain JSON.
 * A thread that fills the units ahead of the parser, in a ring of
 * READAHEAD_SLOTS of them, moves that work onto a second core: on the
 * 2-core development machine (README, Speed) a 977 MB OWLv2 trace's default
 * view took 0.77 s of wall plain, its .zst 0.98 s without the thread and
 * 0.72 s with it (.gz: 0.94 and 0.72), for 1-3% more CPU (the copy out of
 * a unit, the hand-over); with the other core busy, or both, the thread
 * cost no wall time either.  Plain files get
 * no thread: there the thread only moves read()'s copy out of the page
 * cache (0.09 s a GB of wall saved), which costs as much CPU again, and
 * tprof's per-core speed is what many ranks read at once on a node share.
 * Whether a thread runs depends on the input and the cores the process may
 * run on, never on the machine's load: a load-average guard tried before
 * (session 11) flipped from one run to the next as tprof's own runs moved
 * the load average.  Below 4 MiB of JSON (a compressed file of 512 KiB)
 * the thread saved nothing measurable.  The thread runs the very code the
 * caller would (fill_unit: read_gzip, read_zstd, fd_read), so the bytes,
 * the errors and their offsets are the same; the ring hands the bytes before
 * an error over first, and the error is read only after the thread is
 * joined.  No thread for plain files, pipes (no size, and the writer is a
 * process of its own), inputs below tp_source_readahead_min, with
 * TPROF_THREADS=1 or one allowed core, or when other sources of this
 * process already have one per two cores (tp_run loads ranks on every
 * core: readers would only fight them). */
#define UNIT_BYTES (512u << 10)
#define READAHEAD_SLOTS 4
#define COMPRESSION_GUESS 8   /* a compressed trace holds at least 8x its bytes of JSON */

size_t tp_source_readahead_min = 4u << 20;
static _Atomic int sources_reading;

/* One unit: up to cap bytes, fewer only at the end or at an error. */
static size_t fill_unit(void *ctx, char *buf, size_t cap)
{
    size_t len = 0;
    while (len < cap) {
        size_t n = read_decompressed(ctx, buf + len, cap - len);
        if (n == 0)
            break;
        len += n;
    }
    return len;
}

/* TPROF_THREADS=1: no thread; =N: N threads, so one reader per two of them;
 * unset: one per two cores the process may run on (taskset -c 0: none). */
static int threads_allowed(void)
{
    const char *e = getenv("TPROF_THREADS");
    long budget = e ? atol(e) : 0;
    if (budget == 1)
        return 0;
    if (budget < 2) {
        cpu_set_t cpus;   /* the cores this process may run on (taskset) */
        budget = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : sysconf(_SC_NPROCESSORS_ONLN);
    }
    int reading = atomic_fetch_add(&sources_reading, 1) + 1;
    if (budget >= 2L * reading)
        return 1;
    atomic_fetch_sub(&sources_reading, 1);
    return 0;
}

/* At open: a thread, or (compressed input) the one unit to decompress into.
 * Returns -1 when out of memory. */
static int units_start(tp_source *s)
{
    uint64_t bytes = s->expect_bytes * COMPRESSION_GUESS;
    if (s->comp != TP_COMP_NONE && bytes > 0 && bytes >= tp_source_readahead_min && threads_allowed()) {
        s->counted = 1;
        s->ra = tp_readahead_start(fill_unit, s, READAHEAD_SLOTS, UNIT_BYTES);
        if (s->ra)
            return 0;
        readahead_end(s);   /* no memory or no thread: read on the caller's */
    }
    if (s->comp != TP_COMP_NONE && !(s->unit = malloc(UNIT_BYTES)))
        return -1;
    return 0;
}

static void readahead_end(tp_source *s)
{
    tp_readahead_stop(s->ra);
    s->ra = NULL;
    if (s->counted)
        atomic_fetch_sub(&sources_reading, 1);
    s->counted = 0;
}

int tp_source_threaded(const tp_source *s) { return s->ra != NULL; }

/* The next decompressed bytes: from the thread's ring, from the unit, or
 * (plain, no thread) read into buf. */
static size_t next_bytes(tp_source *s, char *buf, size_t cap)
{
    if (s->ra)
        return tp_readahead_take(s->ra, buf, cap);
    if (!s->unit)
        return read_plain(s, buf, cap);
    if (s->unit_pos == s->unit_len) {
        s->unit_len = fill_unit(s, s->unit, UNIT_BYTES);
        s->unit_pos = 0;
    }
    size_t n = s->unit_len - s->unit_pos;
    if (n > cap)
        n = cap;
    memcpy(buf, s->unit + s->unit_pos, n);
    s->unit_pos += n;
    return n;
}

/* Fill the peek buffer up to PEEK_MAX, moving what is left to the front. */
static void peek_fill(tp_source *s)
{
    if (s->peek_pos) {
        memmove(s->peek, s->peek + s->peek_pos, s->peek_len - s->peek_pos);
        s->peek_len -= s->peek_pos;
        s->peek_pos = 0;
    }
    while (s->peek_len < PEEK_MAX) {
        size_t r = next_bytes(s, s->peek + s->peek_len, PEEK_MAX - s->peek_len);
        if (r == 0)
            break;
        s->peek_len += r;
    }
}

size_t tp_source_peek(tp_source *s, const char **data)
{
    if (s->peek_len - s->peek_pos < PEEK_MAX)
        peek_fill(s);
    *data = s->peek + s->peek_pos;
    return s->peek_len - s->peek_pos;
}

static int is_blank(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

size_t tp_source_skip_blanks(tp_source *s)
{
    size_t skipped = 0;
    for (;;) {
        while (s->peek_pos < s->peek_len && is_blank(s->peek[s->peek_pos])) {
            s->peek_pos++;
            skipped++;
        }
        if (s->peek_pos < s->peek_len)
            break;
        peek_fill(s);
        if (s->peek_len == 0)
            break;
    }
    s->delivered += skipped;
    return skipped;
}

void tp_source_skip(tp_source *s, size_t n)
{
    size_t have = s->peek_len - s->peek_pos;
    if (n > have)
        n = have;
    s->peek_pos += n;
    s->delivered += n;
}

long tp_source_read(tp_source *s, char *buf, size_t cap, tp_error *err)
{
    size_t n = 0;
    if (s->peek_pos < s->peek_len) {
        n = s->peek_len - s->peek_pos;
        if (n > cap)
            n = cap;
        memcpy(buf, s->peek + s->peek_pos, n);
        s->peek_pos += n;
    } else {
        n = next_bytes(s, buf, cap);
    }
    if (n == 0 && s->failed) {
        if (err)
            *err = s->error;
        return -1;
    }
    s->delivered += n;
    return (long)n;
}
