/* store_testing.h — for unit tests of stores and their .tprof files: a
 * trace loaded and linked (or NULL with the reason on stderr), a file's
 * model section found and edited in place, a view's table as text (one
 * copy instead of one per test file). */
#ifndef TPROF_STORE_TESTING_H
#define TPROF_STORE_TESTING_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "store.h"
#include "store_file_int.h"

/* lazy: tp_store_set_lazy before the load (a .tprof store's columns
 * inflated only when a view asks for them). */
static inline tp_store *tt_load_store(const char *path, int lazy)
{
    tp_error err = {0};
    tp_store *st = tp_store_new();
    if (st && lazy)
        tp_store_set_lazy(st);
    if (!st || tp_store_load(st, path, &err) != TP_OK || tp_store_link(st, &err) != TP_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        tp_store_free(st);
        return NULL;
    }
    return st;
}

static inline tp_store *tt_load_linked(const char *path)
{
    return tt_load_store(path, 0);
}

/* The model section `name` of a store read from a .tprof file, or NULL. */
static inline struct tp_sf_blob *tt_sf_blob(tp_store *st, const char *name)
{
    struct tp_sf_blobs *b = (struct tp_sf_blobs *)tp_sf_file_models(st);   /* (a test: changed in place) */
    for (size_t i = 0; b && i < b->n; i++)
        if (strcmp(b->v[i].name, name) == 0)
            return &b->v[i];
    return NULL;
}

/* Section `name` inflated, edited by fn (which may shorten it: *len), and
 * put back compressed; 0, or -1 when it is not there. */
static inline int tt_sf_edit(tp_store *st, const char *name, void (*fn)(unsigned char *bytes, size_t *len, void *arg),
                             void *arg)
{
    struct tp_sf_blob *s = tt_sf_blob(st, name);
    if (!s)
        return -1;
    size_t raw = (size_t)(s->count * s->width), len = raw;
    unsigned char *v = malloc(raw + 1);
    void *z = malloc(ZSTD_compressBound(raw));
    if (!v || !z || ZSTD_decompress(v, raw, s->z, s->zlen) != raw) {
        free(v);
        free(z);
        return -1;
    }
    fn(v, &len, arg);
    size_t zlen = ZSTD_compress(z, ZSTD_compressBound(raw), v, len, 1);
    free(v);
    free(s->z);
    s->z = z;
    s->zlen = zlen;
    s->count = len / s->width;
    return 0;
}

/* View v of st (options vo, NULL none) written as space-separated text
 * with `columns`; NULL when it is not built.  The caller frees it. */
static inline char *tt_view_text(const tp_view *v, const tp_store *st, const struct tp_view_opts *vo,
                                 const char *columns)
{
    tp_table *t = NULL;
    tp_error err = {0};
    if (tp_view_build(v, st, vo, &t, &err) != TP_OK)
        return NULL;
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    struct tp_output_opts o;
    tp_output_opts_init(&o);
    o.format = TP_FMT_SPACE;
    o.columns = columns;
    int rc = f ? tp_table_write(t, &o, f, &err) : TP_ERR_IO;
    if (f)
        fclose(f);
    tp_table_free(t);
    if (rc != TP_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

#endif
