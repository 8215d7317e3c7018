/* store_file.c — write and read .tprof files (see store_file.h; layout in
 * tprof(1), FILES).
 *
 * A file is a header, then sections, then an end marker:
 *
 *   header   "TPROFST\n", u32 format version, u32 flags (0)
 *   section  u16 name length, name, u32 value width, u32 flags, u64 value
 *            count, u64 compressed length, u32 CRC-32 of the compressed
 *            bytes, then the compressed bytes: one zstd frame (with its own
 *            content checksum) of count * width bytes, little-endian
 *   end      u16 0, "TPROFEND" (a file cut short lacks it)
 *
 * Every field of the store is one section (store_file_cols.c lists them);
 * a few more carry the strings and what the import said.  zstd was the
 * user's choice of library; level 3 compresses a kineto trace's columns to
 * a few percent of its JSON at well over 100 MB/s, and the timestamps are
 * stored as differences, which turns them from random 64-bit values into
 * small repeating ones. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "npu.h"
#include "source.h"
#include "store_file_int.h"

#define ZLEVEL 3
#define END_MARK "TPROFEND"

/* ---- writing ---------------------------------------------------------------- */

struct tp_sf_writer {
    FILE *f;
    const char *path;
    tp_error *err;
    void *buf; size_t cap;         /* compression scratch */
    void *raw; size_t rawcap;      /* gather scratch */
    ZSTD_CCtx *cctx;
};

static int wfail(struct tp_sf_writer *w)
{
    return tp_error_set(w->err, TP_ERR_IO, "%s: cannot write: %s", w->path, strerror(errno));
}

static int grow(void **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    void *q = realloc(*p, need);
    if (!q)
        return -1;
    *p = q;
    *cap = need;
    return 0;
}

static void put_u16(unsigned char *b, uint16_t v) { b[0] = (unsigned char)v; b[1] = (unsigned char)(v >> 8); }
static void put_u32(unsigned char *b, uint32_t v) { for (int i = 0; i < 4; i++) b[i] = (unsigned char)(v >> (8 * i)); }
static void put_u64(unsigned char *b, uint64_t v) { for (int i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i)); }
static uint32_t get_u32(const unsigned char *b) { uint32_t v = 0; for (int i = 3; i >= 0; i--) v = v << 8 | b[i]; return v; }
static uint64_t get_u64(const unsigned char *b) { uint64_t v = 0; for (int i = 7; i >= 0; i--) v = v << 8 | b[i]; return v; }

/* Write one section of `count` values of `width` bytes from `data`. */
static int put_section(struct tp_sf_writer *w, const char *name, const void *data, uint64_t count, uint32_t width,
                       uint32_t flags)
{
    size_t raw = (size_t)(count * width);
    size_t bound = ZSTD_compressBound(raw);
    if (grow(&w->buf, &w->cap, bound ? bound : 1) < 0)
        return tp_error_set(w->err, TP_ERR_NOMEM, "%s: out of memory", w->path);
    size_t clen = ZSTD_compress2(w->cctx, w->buf, w->cap, data, raw);
    if (ZSTD_isError(clen))
        return tp_error_set(w->err, TP_ERR_IO, "%s: zstd: %s", w->path, ZSTD_getErrorName(clen));
    size_t nlen = strlen(name);
    unsigned char h[2 + 64 + 4 + 4 + 8 + 8 + 4];
    size_t k = 0;
    put_u16(h, (uint16_t)nlen); k += 2;
    memcpy(h + k, name, nlen); k += nlen;
    put_u32(h + k, width); k += 4;
    put_u32(h + k, flags); k += 4;
    put_u64(h + k, count); k += 8;
    put_u64(h + k, clen); k += 8;
    uLong crc = crc32(crc32(0L, h, (uInt)k), w->buf, (uInt)clen);   /* header and payload */
    put_u32(h + k, (uint32_t)crc); k += 4;
    if (fwrite(h, 1, k, w->f) != k || fwrite(w->buf, 1, clen, w->f) != clen)
        return wfail(w);
    return TP_OK;
}

static int put_string(struct tp_sf_writer *w, const char *name, const char *s)
{
    return put_section(w, name, s, strlen(s), 1, 0);
}

static void *root_of(const tp_store *st, enum tp_sf_root r)
{
    return r == TP_SF_ROOT_STORE ? (void *)st : (void *)st->npu;
}

/* The records of a column's table: behind a pointer, or inline in the root. */
static const char *tp_sf_array(const char *root, const struct tp_sf_col *c)
{
    if (tp_sf_tables[c->table].inline_max)
        return root + c->base;
    const char *arr;
    memcpy(&arr, root + c->base, sizeof arr);
    return arr;
}

static size_t table_count(const tp_store *st, enum tp_sf_table_id t)
{
    const struct tp_sf_table *T = &tp_sf_tables[t];
    const char *root = root_of(st, T->root);
    if (!root || (t == TP_SF_LINKS && !st->linked))
        return 0;
    size_t n;
    memcpy(&n, root + T->count, sizeof n);
    return n;
}

static int put_column(struct tp_sf_writer *w, const tp_store *st, const struct tp_sf_col *c)
{
    const char *root = root_of(st, tp_sf_tables[c->table].root);
    size_t n = table_count(st, c->table);
    const char *arr = tp_sf_array(root, c);
    if (grow(&w->raw, &w->rawcap, n * c->width + 1) < 0)
        return tp_error_set(w->err, TP_ERR_NOMEM, "%s: out of memory", w->path);
    unsigned char *out = w->raw;
    if (c->flags & TP_SF_FWD) {
        for (size_t i = 0; i < n; i++)
            memcpy(out + i * 8, &(int64_t){TP_NONE}, 8);
        for (size_t k = 0; k < st->nfwds; k++)
            if ((size_t)st->fwds[k].op < n)
                memcpy(out + (size_t)st->fwds[k].op * 8, &st->fwds[k].tid, 8);
        return put_section(w, c->name, out, n, 8, 0);
    }
    if ((c->flags & TP_SF_PY) && !st->pys) {
        for (size_t i = 0; i < n; i++)
            memcpy(out + i * 8, (const char *)tp_store_py_wide(st, i) + c->field, 8);
        return put_section(w, c->name, out, n, 8, 0);
    }
    if ((c->flags & TP_SF_EXT) && !st->ext64) {
        for (size_t i = 0; i < n; i++) {
            int64_t v = tp_store_ext(st, i);
            memcpy(out + i * 8, &v, 8);
        }
        return put_section(w, c->name, out, n, 8, 0);
    }
    /* Gather the field out of its records; this host is little-endian (the
     * reader checks that too), so the bytes are the file's bytes. */
    for (size_t i = 0; i < n; i++)
        memcpy(out + i * c->width, arr + i * c->stride + c->field, c->width);
    if (c->flags & TP_SF_DELTA) {
        int64_t prev = 0;
        for (size_t i = 0; i < n; i++) {
            int64_t v;
            memcpy(&v, out + i * 8, 8);
            uint64_t d = (uint64_t)v - (uint64_t)prev;   /* wraps: exact both ways */
            memcpy(out + i * 8, &d, 8);
            prev = v;
        }
    }
    return put_section(w, c->name, out, n, (uint32_t)c->width, (uint32_t)(c->flags & TP_SF_DELTA));
}

/* The attribution's sums as one array of int64 after the version, in this
 * order (the reader puts them back through the same list). */
static size_t attr_fields(struct tp_attribution *a, int64_t **f)
{
    size_t k = 0;
    f[k++] = &a->kernel_ns;
    f[k++] = &a->kernels;
    for (int c = 0; c < TP_ATTR_CAUSES; c++)
        f[k++] = &a->cause_ns[c], f[k++] = &a->cause_n[c];
    for (int c = 0; c < TP_LAUNCH_KINDS; c++)
        f[k++] = &a->kind_ns[c], f[k++] = &a->kind_n[c];
    f[k++] = &a->graph_launches;
    f[k++] = &a->host_ops;
    f[k++] = &a->call_example;
    f[k++] = &a->outside_example;
    return k;
}

/* The attribution (model/attribution.c), which every view that charges GPU
 * time reads: computing it needs eight event and link columns, reading it
 * three (and only the views that want its rows).  Not for a store with a
 * capture attached: the capture is not saved either. */
static int put_attribution(struct tp_sf_writer *w, const tp_store *st)
{
    struct tp_attribution a = st->attr;
    if (!a.dev_op || a.cap_inst)
        return TP_OK;
    int64_t *f[TP_SF_ATTR_TOTALS], v[TP_SF_ATTR_TOTALS + 1];
    size_t k = attr_fields(&a, f);
    v[0] = TP_SF_ATTR_VERSION;
    for (size_t i = 0; i < k; i++)
        v[i + 1] = *f[i];
    int rc;
    if ((rc = put_section(w, "opt.attr.totals", v, k + 1, 8, 0)) ||
        (rc = put_section(w, "opt.attr.op", a.dev_op, st->ndev, 4, 0)) ||
        (rc = put_section(w, "opt.attr.kind", a.dev_kind, st->ndev, 1, 0)) ||
        (rc = put_section(w, "opt.attr.cause", a.dev_cause, st->ndev, 1, 0)))
        return rc;
    return TP_OK;
}

static int write_all(struct tp_sf_writer *w, const tp_store *st, const tp_error *load_status)
{
    unsigned char h[16];
    memcpy(h, TP_STORE_MAGIC, TP_STORE_MAGIC_LEN);
    put_u32(h + 8, TP_STORE_FORMAT);
    put_u32(h + 12, 0);
    if (fwrite(h, 1, sizeof h, w->f) != sizeof h)
        return wfail(w);
    int rc;
    uint32_t status = load_status ? (uint32_t)load_status->status : 0;
    uint32_t format = (uint32_t)st->format;
    if ((rc = put_string(w, "s.path", st->origin[0] ? st->origin : st->path)) || (rc = put_string(w, "s.compression", st->compression)) ||
        (rc = put_section(w, "s.format", &format, 1, 4, 0)) ||
        (rc = put_section(w, "s.load_status", &status, 1, 4, 0)) ||
        (rc = put_string(w, "s.load_msg", load_status && load_status->status ? load_status->msg : "")))
        return rc;
    const tp_strtab *S = &st->strings;
    if ((rc = put_section(w, "str.lens", S->lens, S->count, 4, 0)) ||
        (rc = put_section(w, "str.bytes", S->bytes, S->nbytes, 1, 0)))
        return rc;
    for (size_t i = 0; i < tp_sf_nscalars; i++) {
        const struct tp_sf_scalar *s = &tp_sf_scalars[i];
        const char *root = root_of(st, s->root);
        if (root && (rc = put_section(w, s->name, root + s->field, 1, (uint32_t)s->width, 0)))
            return rc;
    }
    for (size_t i = 0; i < tp_sf_ncols; i++) {
        const struct tp_sf_col *c = &tp_sf_cols[i];
        if (!root_of(st, tp_sf_tables[c->table].root) || (c->table == TP_SF_LINKS && !st->linked))
            continue;
        if ((rc = put_column(w, st, c)))
            return rc;
    }
    if ((rc = put_attribution(w, st)))
        return rc;
    if ((rc = tp_sf_write_models(w, st)))
        return rc;
    unsigned char end[2 + 8];
    put_u16(end, 0);
    memcpy(end + 2, END_MARK, 8);
    if (fwrite(end, 1, sizeof end, w->f) != sizeof end)
        return wfail(w);
    return TP_OK;
}

int tp_store_save(tp_store *st, const tp_error *load_status, const char *path, tp_error *err)
{
    if (!st || !path)
        return tp_error_set(err, TP_ERR_USAGE, "tp_store_save: no store or no path");
    if (st->kernel_scope || st->lean)
        return tp_error_set(err, TP_ERR_USAGE, "%s: a store loaded for its kernels alone cannot be saved", path);
    if (!st->linked) {
        int rc = tp_store_link(st, err);
        if (rc != TP_OK)
            return rc;
    }
    /* Write beside the target and rename: a failed import leaves no half file
     * under the name the user gave. */
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    if (!tmp)
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", path);
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmpXXXXXX", 11);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int rc = tp_error_set(err, TP_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        free(tmp);
        return rc;
    }
    fchmod(fd, 0644);
    struct tp_sf_writer w = {.path = path, .err = err};
    w.f = fdopen(fd, "wb");
    w.cctx = ZSTD_createCCtx();
    int rc;
    if (!w.f || !w.cctx) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", path);
    } else {
        ZSTD_CCtx_setParameter(w.cctx, ZSTD_c_compressionLevel, ZLEVEL);
        ZSTD_CCtx_setParameter(w.cctx, ZSTD_c_checksumFlag, 1);
        rc = write_all(&w, st, load_status);
    }
    if (w.f) {
        if (fclose(w.f) != 0 && rc == TP_OK)
            rc = tp_error_set(err, TP_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    } else {
        close(fd);
    }
    if (rc == TP_OK && rename(tmp, path) != 0)
        rc = tp_error_set(err, TP_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    if (rc != TP_OK)
        unlink(tmp);
    ZSTD_freeCCtx(w.cctx);
    free(w.buf);
    free(w.raw);
    free(tmp);
    return rc;
}

/* ---- reading ---------------------------------------------------------------- */

struct reader {
    tp_store *st;
    const char *path;
    tp_error *err;
    const unsigned char *p, *end, *base;
    ZSTD_DCtx *dctx;
    size_t count[TP_SF_NTABLES];   /* values seen per table, (size_t)-1 not yet */
    struct tp_sf_lazy *L;          /* the event, link and attribution columns and the model
                                      sections, kept compressed (store_file_lazy.c) */
    int have_strings;
    uint32_t load_status;
    char load_msg[sizeof ((tp_error *)0)->msg];
};

/* A damaged store is an input that cannot be read (TP_ERR_IO), not a trace
 * with a bad event: nothing of it is shown. */
static int bad(struct reader *r, const char *what)
{
    return tp_error_set(r->err, TP_ERR_IO, "%s: byte %llu: %s", r->path,
                        (unsigned long long)(r->p - r->base), what);
}

/* Inflate one section into a fresh buffer of exactly count * width bytes. */
static int inflate_section(struct reader *r, const unsigned char *z, uint64_t zlen, uint64_t raw, void **out)
{
    *out = malloc(raw ? (size_t)raw : 1);
    if (!*out)
        return tp_error_set(r->err, TP_ERR_NOMEM, "%s: out of memory reading the store", r->path);
    size_t got = ZSTD_decompressDCtx(r->dctx, *out, (size_t)raw, z, (size_t)zlen);
    if (ZSTD_isError(got) || got != raw) {
        free(*out);
        *out = NULL;
        return bad(r, ZSTD_isError(got) ? ZSTD_getErrorName(got) : "section shorter than its header says");
    }
    return TP_OK;
}

static char *root_ptr(tp_store *st, enum tp_sf_root root)
{
    return root == TP_SF_ROOT_STORE ? (char *)st : (char *)st->npu;
}

static int need_npu(struct reader *r, enum tp_sf_root root)
{
    if (root != TP_SF_ROOT_NPU || r->st->npu)
        return TP_OK;
    r->st->npu = calloc(1, sizeof *r->st->npu);
    return r->st->npu ? TP_OK : tp_error_set(r->err, TP_ERR_NOMEM, "%s: out of memory reading the store", r->path);
}

/* Scatter a column's values into its records, allocating the table when
 * its first column arrives. */
/* Values of `width` bytes into records `stride` bytes apart.  A memcpy of a
 * width known only at run time was a call per value: the side tables'
 * columns took a third of reading a store. */
void tp_sf_scatter(char *dst, size_t stride, const unsigned char *src, size_t width, size_t n)
{
#define SCATTER(W) for (size_t i = 0; i < n; i++) memcpy(dst + i * stride, src + i * (W), (W))
    switch (width) {
    case 1: SCATTER(1); break;
    case 2: SCATTER(2); break;
    case 4: SCATTER(4); break;
    case 8: SCATTER(8); break;
    case 12: SCATTER(12); break;
    default: SCATTER(width); break;
    }
#undef SCATTER
}

static int load_column(struct reader *r, const struct tp_sf_col *c, unsigned char *vals, uint64_t count,
                       uint32_t flags)
{
    const struct tp_sf_table *T = &tp_sf_tables[c->table];
    int rc = need_npu(r, T->root);
    if (rc)
        return rc;
    char *root = root_ptr(r->st, T->root);
    if (r->count[c->table] == (size_t)-1) {
        if (T->inline_max && count > T->inline_max)
            return bad(r, "more skip reasons than this tprof keeps");
        r->count[c->table] = (size_t)count;
        if (!T->inline_max && c->table != TP_SF_LINKS) {
            memcpy(root + T->count, &(size_t){(size_t)count}, sizeof(size_t));
            if (T->cap != (size_t)-1)
                memcpy(root + T->cap, &(size_t){(size_t)count}, sizeof(size_t));
        } else if (T->inline_max) {
            memcpy(root + T->count, &(size_t){(size_t)count}, sizeof(size_t));
        }
    } else if (r->count[c->table] != count) {
        return bad(r, "columns of one table differ in length");
    }
    char *arr;
    if (T->inline_max) {
        arr = root + c->base;
    } else {
        memcpy(&arr, root + c->base, sizeof arr);
        if (!arr) {
            /* The linker's arrays are sized max(n, 1), as tp_store_link does. */
            arr = calloc(count ? count : 1, c->stride);
            if (!arr)
                return tp_error_set(r->err, TP_ERR_NOMEM, "%s: out of memory reading the store", r->path);
            memcpy(root + c->base, &arr, sizeof arr);
        }
    }
    if ((char *)vals == arr)             /* inflated in place later, differences summed then */
        return TP_OK;
    if (flags & TP_SF_DELTA) {
        uint64_t acc = 0;
        for (uint64_t i = 0; i < count; i++) {
            uint64_t d;
            memcpy(&d, vals + i * 8, 8);
            acc += d;
            memcpy(vals + i * 8, &acc, 8);
        }
    }
    if (c->flags & TP_SF_FWD)
        return tp_sf_fwds_from(r->st, vals, (size_t)count) < 0
                   ? tp_error_set(r->err, TP_ERR_NOMEM, "%s: out of memory reading the store", r->path) : TP_OK;
    tp_sf_scatter(arr + c->field, c->stride, vals, c->width, (size_t)count);
    return TP_OK;
}

int tp_sf_fwds_from(tp_store *st, const unsigned char *vals, size_t count)
{
    st->nfwds = 0;
    for (size_t i = 0; i < count; i++) {
        int64_t v;
        memcpy(&v, vals + i * 8, 8);
        if (v != TP_NONE && tp_store_set_fwd_thread(st, i, v) < 0)
            return -1;
    }
    return 0;
}

static int load_strings(struct reader *r, const uint32_t *lens, size_t nlens, const char *bytes, size_t nbytes)
{
    tp_strtab *S = &r->st->strings;
    size_t off = 0;
    for (size_t id = 0; id < nlens; id++) {
        if (lens[id] > nbytes - off || nbytes - off - lens[id] < 1 || bytes[off + lens[id]] != 0)
            return bad(r, "string table does not match its lengths");
        uint32_t got = tp_strtab_intern(S, bytes + off, lens[id]);
        if (got == UINT32_MAX)
            return tp_error_set(r->err, TP_ERR_NOMEM, "%s: out of memory reading the store", r->path);
        if (got != id)
            return bad(r, "string table holds a string twice");
        off += (size_t)lens[id] + 1;
    }
    if (off != nbytes)
        return bad(r, "string table does not match its lengths");
    r->have_strings = 1;
    return TP_OK;
}

static void copy_text(char *dst, size_t cap, const void *src, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* load_section's "the values are kept" (str.lens, until str.bytes comes):
 * not a tp_status, which are all >= 0. */
enum { KEPT = -1 };

/* One section: find what it is and put it in place. */
static int load_section(struct reader *r, const char *name, uint32_t width, uint32_t flags, uint64_t count,
                        void *vals, void **lens_keep, size_t *nlens_keep)
{
    tp_store *st = r->st;
    for (size_t i = 0; i < tp_sf_ncols; i++) {
        const struct tp_sf_col *c = &tp_sf_cols[i];
        if (strcmp(c->name, name) != 0)
            continue;
        if (width != c->width || (flags & ~(uint32_t)TP_SF_DELTA) || (flags & TP_SF_DELTA) != (c->flags & TP_SF_DELTA))
            return bad(r, "a column's width or encoding differs from this tprof's");
        return load_column(r, c, vals, count, flags);
    }
    for (size_t i = 0; i < tp_sf_nscalars; i++) {
        const struct tp_sf_scalar *s = &tp_sf_scalars[i];
        if (strcmp(s->name, name) != 0)
            continue;
        if (width != s->width || count != 1)
            return bad(r, "a scalar's width differs from this tprof's");
        int rc = need_npu(r, s->root);
        if (rc)
            return rc;
        memcpy(root_ptr(st, s->root) + s->field, vals, width);
        return TP_OK;
    }
    if (strcmp(name, "str.lens") == 0 && width == 4) {
        if (*lens_keep)
            return bad(r, "a section appears twice");
        *lens_keep = vals;               /* kept until str.bytes arrives */
        *nlens_keep = (size_t)count;
        return KEPT;
    }
    if (strcmp(name, "str.bytes") == 0 && width == 1)
        return *lens_keep ? load_strings(r, *lens_keep, *nlens_keep, vals, (size_t)count)
                          : bad(r, "string bytes before their lengths");
    if (strcmp(name, "s.path") == 0 && width == 1) {
        copy_text(st->origin, sizeof st->origin, vals, (size_t)count);   /* `tprof info` names both */
        return TP_OK;
    }
    if (strcmp(name, "s.compression") == 0 && width == 1) {
        static const char *const names[] = {"none", "gzip", "zstd"};
        for (size_t i = 0; i < 3; i++)
            if (count == strlen(names[i]) && memcmp(vals, names[i], count) == 0)
                st->compression = names[i];
        return TP_OK;
    }
    if (strcmp(name, "s.format") == 0 && width == 4 && count == 1) {
        uint32_t f = get_u32(vals);
        if (f > TP_SRC_ASCEND)
            return bad(r, "unknown source format");
        st->format = (enum tp_source_format)f;
        return TP_OK;
    }
    if (strcmp(name, "s.load_status") == 0 && width == 4 && count == 1) {
        r->load_status = get_u32(vals);
        return TP_OK;
    }
    if (strcmp(name, "s.load_msg") == 0 && width == 1) {
        copy_text(r->load_msg, sizeof r->load_msg, vals, (size_t)count);
        return TP_OK;
    }
    if (strcmp(name, "opt.attr.totals") == 0 && width == 8 && count == TP_SF_ATTR_TOTALS + 1) {
        int64_t v[TP_SF_ATTR_TOTALS + 1];
        memcpy(v, vals, sizeof v);
        if (v[0] == TP_SF_ATTR_VERSION)   /* another version's: computed again by the linker */
            tp_sf_lazy_set_totals(r->L, v + 1);
        return TP_OK;
    }
    /* Names this tprof does not know: a newer writer's optional extras
     * start with "opt."; anything else would change what the views print. */
    if (strncmp(name, "opt.", 4) == 0)
        return TP_OK;
    char msg[160];
    snprintf(msg, sizeof msg, "section '%.64s' is not known to this tprof (written by a newer version?)", name);
    return bad(r, msg);
}

/* A crafted file could pass its checksums and still point past an array;
 * every value that the views use as an index is checked here once, so no
 * view has to distrust the store. */
static int64_t value_at(const char *v, size_t width, int sign4)
{
    int64_t x;
    uint32_t u;
    if (width == 8)
        memcpy(&x, v, 8);
    else if (width == 4)
        memcpy(&u, v, 4), x = sign4 ? (int64_t)(int32_t)u : (int64_t)u;
    else
        x = *(const uint8_t *)v;
    return x;
}

/* The first of n values `stride` bytes apart outside [lo, hi), SIZE_MAX
 * none: a loop per width (the generic one was 5% of a view on a store). */
static size_t first_outside(const char *arr, size_t stride, size_t width, int sign4, size_t n, int64_t lo,
                            int64_t hi)
{
#define SCAN(EXPR) for (size_t k = 0; k < n; k++) { int64_t x = (EXPR); if (x < lo || x >= hi) return k; }
    if (width == 8)
        SCAN(value_at(arr + k * stride, 8, 0))
    else if (width == 4 && sign4)
        SCAN(value_at(arr + k * stride, 4, 1))
    else if (width == 4)
        SCAN(value_at(arr + k * stride, 4, 0))
    else
        SCAN(value_at(arr + k * stride, 1, 0))
#undef SCAN
    return SIZE_MAX;
}

const char *tp_sf_check_col(const tp_store *st, const struct tp_sf_col *c, size_t count, char *msg, size_t cap)
{
    if (!(c->flags & (TP_SF_STR | TP_SF_ROW | TP_SF_STEP | TP_SF_KIND)))
        return NULL;
    const char *root = root_of(st, tp_sf_tables[c->table].root);
    const char *arr = tp_sf_array(root, c) + c->field;
    /* the values allowed: [lo, hi) */
    int64_t lo = c->flags & (TP_SF_ROW | TP_SF_STEP) ? INT64_MIN : 0;
    int64_t hi = (c->flags & TP_SF_STR) ? (int64_t)st->strings.count : (c->flags & TP_SF_ROW) ? (int64_t)st->n
               : (c->flags & TP_SF_STEP) ? (int64_t)st->nsteps : TP_K_COUNT;
    int sign4 = !(c->flags & TP_SF_STR) && c->table != TP_SF_ANNOTS;   /* a 4-byte value is signed */
    size_t k = first_outside(arr, c->stride, c->width, sign4, count, lo, hi);
    if (k == SIZE_MAX)
        return NULL;
    snprintf(msg, cap, "column %s, value %zu: %lld points past its table", c->name, k,
             (long long)value_at(arr + k * c->stride, c->width, sign4));
    return msg;
}

const char *tp_sf_check_tid(const tp_store *st)
{
    uint64_t nstr = st->strings.count;
    for (size_t i = 0; i < st->n; i++) {
        int64_t tid = st->tid[i];
        if (tid != TP_NONE && tid >= 0 && (tid & TP_TID_STRING) && (uint64_t)(tid & ~TP_TID_STRING) >= nstr)
            return "a thread name points past the string table";
    }
    return NULL;
}

const char *tp_sf_check_aux(const tp_store *st)
{
    for (size_t i = 0; i < st->n; i++) {
        uint32_t a = st->aux[i];
        if (a == TP_NO_AUX)
            continue;
        size_t lim;
        switch (st->kind[i]) {
        case TP_K_KERNEL: case TP_K_MEMCPY: case TP_K_MEMSET: lim = st->nkernels; break;
        case TP_K_MEMORY: lim = st->nmems; break;
        case TP_K_META: lim = (size_t)st->strings.count; break;
        case TP_K_CPU_OP: case TP_K_USER_ANNOTATION: case TP_K_GPU_USER_ANNOTATION:
        case TP_K_PYTHON_FUNCTION: lim = st->nops; break;
        default: lim = SIZE_MAX; break;   /* a value, not an index (run.c keeps it so) */
        }
        if (a >= lim)
            return "an event's details point past their table";
    }
    return NULL;
}

/* The columns read with the store (the lazy ones are checked as they are
 * inflated, store_file_lazy.c) and what ties the tables together. */
static int check_refs(struct reader *r)
{
    tp_store *st = r->st;
    uint64_t nstr = st->strings.count;
    for (size_t i = 0; i < tp_sf_ncols; i++) {
        const struct tp_sf_col *c = &tp_sf_cols[i];
        if (tp_sf_lazy_index(c->name) >= 0 || !root_ptr(st, tp_sf_tables[c->table].root) ||
            r->count[c->table] == (size_t)-1)
            continue;
        char msg[160];
        const char *why = tp_sf_check_col(st, c, r->count[c->table], msg, sizeof msg);
        if (why)
            return bad(r, why);
    }
    if (st->linked ? r->count[TP_SF_LINKS] != st->n : r->count[TP_SF_LINKS] != (size_t)-1)
        return bad(r, "the link columns do not match the events");
    for (int i = 0; i < TP_SF_NLAZY_COLS; i++)
        if (tp_sf_lazy_present(r->L, i) && tp_sf_lazy_count(r->L, i) != tp_sf_lazy_rows(st, i))
            return bad(r, "a column's length differs from the events'");
    /* the views index the extra cells by column and task, and their text by
     * string id */
    size_t ncell;
    if (st->npu && (__builtin_mul_overflow(st->npu->nxcols, st->npu->ntasks, &ncell) || st->npu->nxcells != ncell))
        return bad(r, "the extra kernel_details cells do not match their columns and tasks");
    for (size_t i = 0; st->npu && i < st->npu->nxcells; i++)
        if (!tp_npu_xcell_valid(st->npu->xcells[i], nstr))
            return bad(r, "an extra kernel_details cell is neither a number nor a string");
    return TP_OK;
}

/* The biggest columns are hundreds of MB: faulting them in 4 KB pages costs
 * more system time than inflating them (0.24 s of 0.42 s for a 1 GB trace's
 * store), so they ask for transparent huge pages where the kernel grants
 * them on request.  The memory is freed with free() like any other column. */
void *tp_sf_big_alloc(size_t n)
{
    enum { HUGE = 2 << 20 };
    if (n < 4 * (size_t)HUGE)
        return malloc(n);
    void *p = aligned_alloc(HUGE, (n + HUGE - 1) / HUGE * HUGE);
    if (p)
        madvise(p, (n + HUGE - 1) / HUGE * HUGE, MADV_HUGEPAGE);
    return p;
}

/* A model section is kept as the file holds it (compressed): most views
 * never ask for the models.  KEPT, or out of memory. */
static int keep_model_section(struct reader *r, const char *name, uint32_t width, uint64_t count,
                              const unsigned char *z, size_t zlen)
{
    struct tp_sf_blobs *b = tp_sf_lazy_models(r->L);
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        struct tp_sf_blob *v = realloc(b->v, cap * sizeof *v);
        if (!v)
            return tp_error_set(r->err, TP_ERR_NOMEM, "%s: out of memory reading the store", r->path);
        b->v = v;
        b->cap = cap;
    }
    struct tp_sf_blob *s = &b->v[b->n];
    if (!(s->z = malloc(zlen ? zlen : 1)))
        return tp_error_set(r->err, TP_ERR_NOMEM, "%s: out of memory reading the store", r->path);
    memcpy(s->z, z, zlen);
    b->n++;
    snprintf(s->name, sizeof s->name, "%s", name);
    s->width = width;
    s->count = count;
    s->zlen = zlen;
    return KEPT;
}

static int read_sections(struct reader *r)
{
    void *lens = NULL;
    size_t nlens = 0;
    static _Thread_local char seen[512][65];
    size_t nseen = 0;
    int rc = TP_OK;
    while (rc == TP_OK) {
        if (r->end - r->p < 2)
            { rc = bad(r, "the store ends early (no end marker): truncated?"); break; }
        size_t nlen = (size_t)r->p[0] | (size_t)r->p[1] << 8;
        if (nlen == 0) {
            if (r->end - r->p < 10 || memcmp(r->p + 2, END_MARK, 8) != 0)
                { rc = bad(r, "the store ends early (no end marker): truncated?"); break; }
            break;
        }
        if (nlen > 64 || (size_t)(r->end - r->p) < 2 + nlen + 28)
            { rc = bad(r, "section header cut short"); break; }
        char name[65];
        memcpy(name, r->p + 2, nlen);
        name[nlen] = 0;
        /* A section given twice would have its first copy's memory replaced
         * (or added to): a writer never does it, so it is damage. */
        int dup = 0;
        for (size_t i = 0; i < nseen && !dup; i++)
            dup = strcmp(seen[i], name) == 0;
        if (dup)
            { rc = bad(r, "a section appears twice"); break; }
        if (nseen == sizeof seen / sizeof seen[0])
            { rc = bad(r, "more sections than any store has"); break; }
        memcpy(seen[nseen++], name, nlen + 1);
        const unsigned char *h = r->p + 2 + nlen;
        uint32_t width = get_u32(h), flags = get_u32(h + 4);
        uint64_t count = get_u64(h + 8), zlen = get_u64(h + 16);
        uint32_t crc = get_u32(h + 24);
        const unsigned char *z = h + 28;
        if (zlen > (uint64_t)(r->end - z))
            { rc = bad(r, "section runs past the end of the file: truncated?"); break; }
        /* The event, link and attribution columns are checked when they
         * are inflated (store_file_lazy.c), the rest now. */
        int lazy = tp_sf_lazy_index(name);
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
        /* (a fuzzer cannot forge CRCs; its build checks what lies behind them) */
        if (lazy < 0 && (uint32_t)crc32(crc32(0L, r->p, (uInt)(2 + nlen + 24)), z, (uInt)zlen) != crc)
            { rc = bad(r, "checksum mismatch: the file is damaged"); break; }
#endif
        if (width == 0 || width > 4096 || count > ((uint64_t)1 << 40) / width)
            { rc = bad(r, "section size out of range"); break; }
        /* The writer records each frame's size: a header that promises
         * more than its frame holds is damage, found before any allocation. */
        if (ZSTD_getFrameContentSize(z, (size_t)zlen) != count * width)
            { rc = bad(r, "section size does not match its data"); break; }
        if (tp_sf_is_model_section(name)) {
            if ((rc = keep_model_section(r, name, width, count, z, (size_t)zlen)) != KEPT)
                break;
            rc = TP_OK;
            r->p = z + zlen;
            continue;
        }
        if (lazy >= 0) {
            const char *why;
            if (tp_sf_lazy_add(r->L, lazy, name, r->p, 2 + nlen + 24, crc, z, (size_t)zlen, count, width, flags,
                               &why) < 0) {
                rc = why ? bad(r, why)
                         : tp_error_set(r->err, TP_ERR_NOMEM, "%s: out of memory reading the store", r->path);
                break;
            }
            /* the table's count (its pointer is in place: the reservation) */
            for (size_t i = 0; i < tp_sf_ncols; i++)
                if (strcmp(tp_sf_cols[i].name, name) == 0) {
                    char *arr;
                    memcpy(&arr, (char *)r->st + tp_sf_cols[i].base, sizeof arr);
                    rc = load_column(r, &tp_sf_cols[i], (unsigned char *)arr, count, flags);
                }
            r->p = z + zlen;
            continue;
        }
        void *vals;
        if ((rc = inflate_section(r, z, zlen, count * width, &vals)))
            break;
        rc = load_section(r, name, width, flags, count, vals, &lens, &nlens);
        if (rc == KEPT)
            rc = TP_OK;                  /* str.lens: kept in `lens` */
        else
            free(vals);
        r->p = z + zlen;
    }
    free(lens);
    return rc;
}

static void lazy_delete(void *p)
{
    tp_sf_lazy_free(p);
}

int tp_store_read_file(tp_store *st, tp_source *src, tp_error *err)
{
    /* The whole file in memory (it is a small fraction of the trace), read
     * rather than mapped: a file that shrinks under us is an error, not a
     * SIGBUS. */
    size_t cap = 1 << 20, len = 0;
    unsigned char *buf = malloc(cap);
    if (!buf)
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory reading the store", st->path);
    for (;;) {
        if (len == cap) {
            unsigned char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory reading the store", st->path);
            }
            buf = nb;
            cap *= 2;
        }
        long got = tp_source_read(src, (char *)buf + len, cap - len, err);
        if (got < 0) {
            free(buf);
            return err ? err->status : TP_ERR_IO;
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    struct reader r = {.st = st, .path = st->path, .err = err, .base = buf, .p = buf, .end = buf + len};
    for (size_t t = 0; t < TP_SF_NTABLES; t++)
        r.count[t] = (size_t)-1;
    int rc;
    uint16_t probe = 1;
    if (!(r.L = tp_sf_lazy_new(st))) {
        free(buf);
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory reading the store", st->path);
    }
    tp_sf_lazy_take_file(r.L, buf);   /* the kept sections point into it */
    if (*(unsigned char *)&probe != 1) {
        rc = tp_error_set(err, TP_ERR_FORMAT, "%s: .tprof stores are little-endian; this machine is not", st->path);
    } else if (len < 16 || memcmp(buf, TP_STORE_MAGIC, TP_STORE_MAGIC_LEN) != 0) {
        rc = tp_error_set(err, TP_ERR_FORMAT, "%s: not a .tprof store", st->path);
    } else if (get_u32(buf + 8) != TP_STORE_FORMAT) {
        rc = tp_error_set(err, TP_ERR_FORMAT,
                          "%s: .tprof format version %u; this tprof reads version %d: import the trace again",
                          st->path, get_u32(buf + 8), TP_STORE_FORMAT);
    } else if (!(r.dctx = ZSTD_createDCtx())) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory reading the store", st->path);
    } else {
        r.p = buf + 16;
        rc = read_sections(&r);
        if (rc == TP_OK && !r.have_strings)
            rc = bad(&r, "no string table");
        if (rc == TP_OK && r.count[TP_SF_EVENTS] == (size_t)-1)
            rc = bad(&r, "no event columns");
        if (rc == TP_OK && !st->ext64)
            rc = bad(&r, "no External id column");
        if (rc == TP_OK)
            rc = check_refs(&r);
        /* The columns stay compressed only for a caller that asked
         * (tp_store_set_lazy), and only when the attribution and the
         * models are in the file: building either would read most columns
         * (an older tprof's store, another input format). */
        int models = rc == TP_OK && tp_sf_keep_models(st, r.L);
        int lazy = st->lazy && models && tp_sf_lazy_has_attr(r.L);
        if (rc == TP_OK && !lazy)
            rc = tp_sf_lazy_need(r.L, TP_NEED_ALL, err);
    }
    ZSTD_freeDCtx(r.dctx);
    if (rc == TP_OK && tp_sf_lazy_has_attr(r.L)) {
        int64_t *f[TP_SF_ATTR_TOTALS];
        size_t k = attr_fields(&st->attr, f);
        for (size_t i = 0; i < k; i++)
            *f[i] = tp_sf_lazy_totals(r.L)[i];
    } else if (rc == TP_OK && st->attr.dev_op) {
        /* part of an attribution (a damaged or crafted file): computed again */
        free(st->attr.dev_op);
        free(st->attr.dev_kind);
        free(st->attr.dev_cause);
        st->attr.dev_op = NULL;
        st->attr.dev_kind = st->attr.dev_cause = NULL;
    }
    if (rc == TP_OK) {
        struct tp_model_slot *s = &st->models[TP_MODEL_FILE];
        s->p = r.L;
        s->free = lazy_delete;
        s->tried = 1;
    } else {
        tp_sf_lazy_free(r.L);            /* the reservations of columns never inflated go */
    }
    if (rc != TP_OK) {
        /* Half a store is worse than none: views would print wrong tables
         * (or index past arrays a crafted file left short). */
        for (size_t t = 0; t < TP_SF_NTABLES; t++) {
            char *root = root_ptr(st, tp_sf_tables[t].root);
            if (root)
                memset(root + tp_sf_tables[t].count, 0, sizeof(size_t));
        }
        for (size_t i = 0; i < tp_sf_ncols; i++) {
            if (tp_sf_cols[i].table != TP_SF_LINKS)
                continue;
            void *arr;
            memcpy(&arr, (char *)st + tp_sf_cols[i].base, sizeof arr);
            free(arr);
            memset((char *)st + tp_sf_cols[i].base, 0, sizeof arr);
        }
        st->linked = 0;
        return rc;
    }
    if (r.load_status != TP_OK)
        return tp_error_set(err, (enum tp_status)r.load_status, "%s", r.load_msg);
    return TP_OK;
}

int tp_sf_put(struct tp_sf_writer *w, const char *name, const void *data, uint64_t count, uint32_t width)
{
    return put_section(w, name, data, count, width, 0);
}

int tp_sf_put_field(struct tp_sf_writer *w, const char *name, const void *recs, size_t n, size_t stride, size_t off,
                    uint32_t width)
{
    if (grow(&w->raw, &w->rawcap, n * width + 1) < 0)
        return tp_error_set(w->err, TP_ERR_NOMEM, "%s: out of memory", w->path);
    unsigned char *out = w->raw;
    for (size_t i = 0; i < n; i++)
        memcpy(out + i * width, (const char *)recs + i * stride + off, width);
    return put_section(w, name, out, n, width, 0);
}
