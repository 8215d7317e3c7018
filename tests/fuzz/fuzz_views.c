/* fuzz_views.c — the part shared by every fuzz target: after a load (ok
 * or not, because a truncated trace keeps its rows and the CLI still shows
 * them), link and build every view the way the CLI does, then write the
 * table.  Any failure is fine as long as it is a tp_error; the sanitizers
 * decide what is a bug. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "store.h"
#include "table.h"
#include "fuzz_views.h"

static FILE *devnull(void)
{
    static FILE *f;
    if (!f)
        f = fopen("/dev/null", "w");
    if (!f)
        abort();
    return f;
}

/* Every column key of the view the store will be built by, comma-joined:
 * renders the columns no default list shows. */
static const char *all_columns(const tp_view *v, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; i < v->ncols; i++) {
        int w = snprintf(buf + n, cap - n, "%s%s", n ? "," : "", v->cols[i].key);
        if (w < 0 || (size_t)w >= cap - n)
            break;
        n += (size_t)w;
    }
    return buf;
}

static void write_all_formats(const tp_table *t, const tp_view *shown, const struct tp_view_opts *vo, int many)
{
    static const enum tp_format fmts[] = {TP_FMT_SPACE, TP_FMT_CSV, TP_FMT_COLUMNS, TP_FMT_JSONL};
    char cols[4096];
    for (size_t f = 0; f < (many ? 4u : 1u); f++) {
        struct tp_output_opts o;
        tp_output_opts_init(&o);
        o.format = fmts[f];
        o.width = f == 2 ? 60 : 0;
        o.columns = tp_table_default_columns(t) ? tp_table_default_columns(t) : tp_view_default_columns(shown, vo);
        tp_error e = {0};
        tp_table_write(t, &o, devnull(), &e);
    }
    if (vo->plot) {   /* the chart a --plot view attached, coloured, narrow */
        struct tp_output_opts o;
        tp_output_opts_init(&o);
        o.format = TP_FMT_COLUMNS;
        o.width = vo->width ? vo->width : 30;
        o.color = 1;
        tp_error e = {0};
        tp_table_write(t, &o, devnull(), &e);
    }
    if (!many)
        return;
    /* Every column, sorted by the first, the first rows only, narrow. */
    struct tp_output_opts o;
    tp_output_opts_init(&o);
    o.format = TP_FMT_COLUMNS;
    o.width = 20;
    o.columns = all_columns(shown, cols, sizeof cols);
    o.sort = shown->ncols ? shown->cols[0].key : NULL;
    o.top = 3;
    tp_error e = {0};
    tp_table_write(t, &o, devnull(), &e);
    o.format = TP_FMT_JSONL;
    o.sort = shown->ncols ? shown->cols[shown->ncols - 1].key : NULL;
    o.top = 0;
    tp_table_write(t, &o, devnull(), &e);
}

static void build_and_write(const tp_view *v, const tp_store *st, const struct tp_view_opts *vo, int many)
{
    const tp_view *shown = st->format == TP_SRC_ASCEND && tp_view_npu_twin(v) ? tp_view_npu_twin(v) : v;
    tp_table *t = NULL;
    tp_error e = {0};
    if (tp_view_build(v, st, vo, &t, &e) == TP_OK && t) {
        tp_table_rows(t);
        write_all_formats(t, shown, vo, many);
    }
    tp_table_free(t);
    if (v->build_run) {
        /* The run form over one rank (dist's own path). */
        const tp_store *one[1] = {st};
        t = NULL;
        if (v->build_run(one, 1, vo, &t, &e) == TP_OK && t)
            write_all_formats(t, v, vo, 0);
        tp_table_free(t);
    }
}

/* The option variants; every input gets the defaults and one variant that
 * the input itself picks (its hash), so that an exec stays cheap (all views,
 * twice) while the corpus as a whole runs every variant. */
static struct tp_view_opts variant(unsigned pick)
{
    static const char *const groups[] = {"name", "shape", "props", "stack", "core", "component",
                                         "kernel", "type", "op", "input", "module", "all", "bogus"};
    const size_t ngroups = sizeof groups / sizeof groups[0];
    switch (pick % (ngroups + 3)) {
    case 0:
        return (struct tp_view_opts){.events = 1, .all_steps = 1, .comm = 1, .hta_quirks = 1, .max_queue = 1};
    case 1:
        return (struct tp_view_opts){.curve = 1, .plot = 1, .width = 30, .columnated = 1, .device = "0", .series = "7",
                                     .runtime_cutoff_us = 1e-3, .launch_delay_cutoff_us = 1e9};
    case 2:
        return (struct tp_view_opts){.curve = 1, .device = "cuda:0", .merge = 1};
    default:
        return (struct tp_view_opts){.group = groups[pick % (ngroups + 3) - 3]};
    }
}

void fuzz_views(tp_store *st, unsigned pick)
{
    tp_error e = {0};
    if (tp_store_link(st, &e) != TP_OK)
        return;
    const tp_view *const *views = tp_views();
    for (size_t i = 0; views[i]; i++) {
        struct tp_view_opts vo = {0};
        build_and_write(views[i], st, &vo, 1);
        vo = variant(pick);
        build_and_write(views[i], st, &vo, 0);
    }
}

unsigned fuzz_pick(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u ^ (uint32_t)size;
    for (size_t i = 0; i < size && i < 256; i++)
        h = (h ^ data[i]) * 16777619u;
    return h;
}

void fuzz_load_and_view(const char *path, unsigned pick)
{
    tp_store *st = tp_store_new();
    if (!st)
        return;
    tp_error e = {0};
    int rc = tp_store_load(st, path, &e);
    /* The CLI shows the rows of a truncated or partly bad input too. */
    if (rc == TP_OK || rc == TP_ERR_TRUNCATED || rc == TP_ERR_FORMAT)
        fuzz_views(st, pick);
    tp_store_free(st);
}
