/* source.c — bytes in: a file, or stdin, plain, gzip or zstd.
 *
 * Regular files are mapped read-only (the kernel pages them in; nothing is
 * copied), pipes are read in chunks.  Compression is sniffed from the magic
 * bytes, never the file name.  gzip goes through zlib's streaming inflate
 * (libdeflate is faster but needs the whole output in memory, which would put
 * a 1 GB trace in memory twice); zstd through ZSTD_decompressStream. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "source.h"

#define RAW_CHUNK (1u << 20)
#define PEEK_MAX 4096

struct tp_source {
    char path[1024];
    int fd;
    enum tp_compression comp;
    uint64_t file_size;

    const unsigned char *map;     /* whole file when mapped */
    size_t map_len;

    unsigned char *raw;           /* pipe input buffer */
    size_t raw_len, raw_pos;
    int raw_eof;
    uint64_t raw_offset;          /* compressed bytes consumed, for messages */

    char peek[PEEK_MAX];          /* decompressed bytes read ahead by peek */
    size_t peek_len, peek_pos;
    int peeked;

    z_stream zs;
    int zs_init, z_end;
    ZSTD_DStream *zd;
    int zd_frame_done;
    size_t map_pos;               /* compressed bytes consumed from the map */
};

const char *tp_compression_name(enum tp_compression c)
{
    switch (c) {
    case TP_COMP_GZIP: return "gzip";
    case TP_COMP_ZSTD: return "zstd";
    default: return "none";
    }
}

/* Next raw (compressed or plain) bytes: pointer and length, from the map or
 * the pipe buffer.  Returns 0 at the end, -1 on a read error. */
static int raw_next(tp_source *s, const unsigned char **p, size_t *len, tp_error *err)
{
    if (s->map) {
        *p = s->map + s->map_pos;
        *len = s->map_len - s->map_pos;
        return *len ? 1 : 0;
    }
    if (s->raw_pos == s->raw_len) {
        if (s->raw_eof)
            return 0;
        ssize_t r;
        do
            r = read(s->fd, s->raw, RAW_CHUNK);
        while (r < 0 && errno == EINTR);
        if (r < 0) {
            tp_error_set(err, TP_ERR_IO, "%s: read error: %s", s->path, strerror(errno));
            return -1;
        }
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
    if (s->map)
        s->map_pos += n;
    else
        s->raw_pos += n;
    s->raw_offset += n;
}

/* Read up to 4 bytes of raw input without consuming, for the magic. */
static size_t raw_magic(tp_source *s, unsigned char m[4])
{
    if (s->map) {
        size_t n = s->map_len < 4 ? s->map_len : 4;
        memcpy(m, s->map, n);
        return n;
    }
    /* Fill the pipe buffer until we have 4 bytes or EOF. */
    while (s->raw_len < 4 && !s->raw_eof) {
        ssize_t r = read(s->fd, s->raw + s->raw_len, RAW_CHUNK - s->raw_len);
        if (r < 0 && errno == EINTR)
            continue;
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
            if (sb.st_size > 0) {
                void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, s->fd, 0);
                if (m != MAP_FAILED) {
                    s->map = m;
                    s->map_len = (size_t)sb.st_size;
                    madvise(m, s->map_len, MADV_SEQUENTIAL);
                }
            }
        }
    }
    if (!s->map) {
        s->raw = malloc(RAW_CHUNK);
        if (!s->raw) {
            tp_source_close(s);
            return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", path);
        }
    }
    unsigned char m[4] = {0};
    size_t nm = raw_magic(s, m);
    if (nm >= 2 && m[0] == 0x1f && m[1] == 0x8b)
        s->comp = TP_COMP_GZIP;
    else if (nm >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd)
        s->comp = TP_COMP_ZSTD;
    if (s->comp == TP_COMP_GZIP) {
        /* 15 + 32: zlib detects the gzip header itself. */
        if (inflateInit2(&s->zs, 15 + 32) != Z_OK) {
            tp_source_close(s);
            return tp_error_set(err, TP_ERR_NOMEM, "%s: cannot start zlib", path);
        }
        s->zs_init = 1;
    } else if (s->comp == TP_COMP_ZSTD) {
        s->zd = ZSTD_createDStream();
        if (!s->zd) {
            tp_source_close(s);
            return tp_error_set(err, TP_ERR_NOMEM, "%s: cannot start zstd", path);
        }
        ZSTD_initDStream(s->zd);
    }
    *out = s;
    return TP_OK;
}

void tp_source_close(tp_source *s)
{
    if (!s)
        return;
    if (s->map)
        munmap((void *)s->map, s->map_len);
    if (s->fd > 0)
        close(s->fd);
    free(s->raw);
    if (s->zs_init)
        inflateEnd(&s->zs);
    if (s->zd)
        ZSTD_freeDStream(s->zd);
    free(s);
}

const char *tp_source_path(const tp_source *s) { return s->path; }
enum tp_compression tp_source_compression(const tp_source *s) { return s->comp; }
uint64_t tp_source_file_size(const tp_source *s) { return s->file_size; }

const char *tp_source_mapped(tp_source *s, size_t *len)
{
    if (s->map && s->comp == TP_COMP_NONE && s->map_pos == 0 && !s->peeked) {
        *len = s->map_len;
        return (const char *)s->map;
    }
    return NULL;
}

static long read_gzip(tp_source *s, char *buf, size_t cap, tp_error *err)
{
    size_t produced = 0;
    while (produced < cap) {
        if (s->z_end) {
            /* A gzip file may hold several members back to back. */
            const unsigned char *p;
            size_t len;
            int r = raw_next(s, &p, &len, err);
            if (r < 0)
                return -1;
            if (r == 0)
                break;
            inflateReset(&s->zs);
            s->z_end = 0;
        }
        const unsigned char *p;
        size_t len;
        int r = raw_next(s, &p, &len, err);
        if (r < 0)
            return -1;
        s->zs.next_in = (unsigned char *)p;
        s->zs.avail_in = (uInt)(len > (1u << 30) ? (1u << 30) : len);
        s->zs.next_out = (unsigned char *)buf + produced;
        s->zs.avail_out = (uInt)(cap - produced);
        uInt before_in = s->zs.avail_in;
        int zr = inflate(&s->zs, Z_NO_FLUSH);
        raw_consume(s, before_in - s->zs.avail_in);
        produced = cap - s->zs.avail_out;
        if (zr == Z_STREAM_END) {
            s->z_end = 1;
            continue;
        }
        if (zr == Z_BUF_ERROR && r == 0) {
            tp_error_set(err, TP_ERR_TRUNCATED, "%s: gzip stream ends early at compressed byte %llu",
                         s->path, (unsigned long long)s->raw_offset);
            return produced ? (long)produced : -1;
        }
        if (zr != Z_OK && zr != Z_BUF_ERROR) {
            tp_error_set(err, TP_ERR_FORMAT, "%s: corrupt gzip data at compressed byte %llu: %s",
                         s->path, (unsigned long long)s->raw_offset, s->zs.msg ? s->zs.msg : "error");
            return -1;
        }
        if (r == 0 && produced == 0) {
            tp_error_set(err, TP_ERR_TRUNCATED, "%s: gzip stream ends early at compressed byte %llu",
                         s->path, (unsigned long long)s->raw_offset);
            return -1;
        }
        if (r == 0)
            break;
    }
    return (long)produced;
}

static long read_zstd(tp_source *s, char *buf, size_t cap, tp_error *err)
{
    ZSTD_outBuffer out = { buf, cap, 0 };
    while (out.pos < out.size) {
        const unsigned char *p;
        size_t len;
        int r = raw_next(s, &p, &len, err);
        if (r < 0)
            return -1;
        if (r == 0) {
            if (!s->zd_frame_done) {
                if (out.pos)
                    break;   /* deliver what we have; report on the next call */
                tp_error_set(err, TP_ERR_TRUNCATED, "%s: zstd stream ends early at compressed byte %llu",
                             s->path, (unsigned long long)s->raw_offset);
                return -1;
            }
            break;
        }
        ZSTD_inBuffer in = { p, len, 0 };
        size_t zr = ZSTD_decompressStream(s->zd, &out, &in);
        raw_consume(s, in.pos);
        if (ZSTD_isError(zr)) {
            tp_error_set(err, TP_ERR_FORMAT, "%s: corrupt zstd data at compressed byte %llu: %s",
                         s->path, (unsigned long long)s->raw_offset, ZSTD_getErrorName(zr));
            return -1;
        }
        s->zd_frame_done = (zr == 0);
    }
    return (long)out.pos;
}

static long read_plain(tp_source *s, char *buf, size_t cap, tp_error *err)
{
    size_t produced = 0;
    while (produced < cap) {
        const unsigned char *p;
        size_t len;
        int r = raw_next(s, &p, &len, err);
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        size_t n = len < cap - produced ? len : cap - produced;
        memcpy(buf + produced, p, n);
        raw_consume(s, n);
        produced += n;
    }
    return (long)produced;
}

static long read_decompressed(tp_source *s, char *buf, size_t cap, tp_error *err)
{
    switch (s->comp) {
    case TP_COMP_GZIP: return read_gzip(s, buf, cap, err);
    case TP_COMP_ZSTD: return read_zstd(s, buf, cap, err);
    default: return read_plain(s, buf, cap, err);
    }
}

size_t tp_source_peek(tp_source *s, const char **data)
{
    if (s->map && s->comp == TP_COMP_NONE) {
        *data = (const char *)s->map;
        return s->map_len < PEEK_MAX ? s->map_len : PEEK_MAX;
    }
    if (!s->peeked) {
        tp_error e;
        s->peeked = 1;
        while (s->peek_len < PEEK_MAX) {
            long r = read_decompressed(s, s->peek + s->peek_len, PEEK_MAX - s->peek_len, &e);
            if (r <= 0)
                break;
            s->peek_len += (size_t)r;
        }
    }
    *data = s->peek;
    return s->peek_len;
}

long tp_source_read(tp_source *s, char *buf, size_t cap, tp_error *err)
{
    if (s->peek_pos < s->peek_len) {
        size_t n = s->peek_len - s->peek_pos;
        if (n > cap)
            n = cap;
        memcpy(buf, s->peek + s->peek_pos, n);
        s->peek_pos += n;
        return (long)n;
    }
    return read_decompressed(s, buf, cap, err);
}
