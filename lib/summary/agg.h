/* agg.h — the aggregation engine: a view declares its key columns and its
 * metric columns, and the engine groups rows into a summary section (summ.h:
 * the group-by itself), sorts the groups and fills the table.
 *
 * --group picks the key columns, as perf report --sort picks sort keys: a
 * comma list of the view's key names (`kernels --group name,stream`).  A
 * view may name key sets (kernels' props, ops' shape and stack): a --group
 * of that one word is the set; in a list, a word that is a key name is that
 * key alone, and a set name adds the keys of its set.  The key set is a
 * mask, bit i for spec key i; a section keyed by it holds the keys of the
 * set bits in spec order.
 *
 * A summary file holds a view's sections with their default keys; a table
 * of other keys that are a subset of a section's comes from that section
 * rolled up (tp_agg_rollup: the same exact sums, multisets and first
 * sightings as grouping the rows by those keys). */
#ifndef TPROF_AGG_H
#define TPROF_AGG_H

#include <stddef.h>
#include "summ.h"
#include "table.h"

/* A key column. */
struct tp_agg_key {
    const char *name;      /* the --group word; the column it fills is the one of this -c key */
    /* The key of one item (what an item is belongs to the view): a string
     * that outlives the call, or one written into b (b->p, NUL-terminated,
     * b->len 0 on entry).  NULL: out of memory. */
    const char *(*read)(const void *item, struct tp_sbuf *b);
    int empty_null;        /* an empty key prints as "-" (nothing recorded) */
    int arg;               /* the word may carry "=ARG" (ops' stack=N): the view reads it, tp_agg_arg */
    /* Optional: the key as its column prints it (into b), when that is not
     * the key itself (a raw text that prints rewritten) */
    const char *(*show)(const char *key, struct tp_sbuf *b);
};

/* Declaring: a key, a metric of measure m, a view's own cell (filled
 * unless the keys `unless` are grouped); a spec's arrays. */
#define TP_AGG_KEY(name, read) {name, read, 0, 0, NULL}
#define TP_AGG_M(col, stat, m) {col, stat, m, 0, 0, 0, NULL, 0, NULL}
#define TP_AGG_CELL_OF(col, fn, unless) {col, TP_AGG_CELL, 0, 0, 0, 0, NULL, unless, fn}
#define TP_AGG_ARRAY(field, a) .field = (a), .n##field = sizeof(a) / sizeof *(a)

/* Keys of items that are store rows (an item struct that starts with a
 * struct tp_agg_row): the event's name, stream, device ("" when absent). */
struct tp_agg_row {
    const struct tp_store *st;
    int64_t row;
};
const char *tp_agg_key_name(const void *item, struct tp_sbuf *b);
const char *tp_agg_key_stream(const void *item, struct tp_sbuf *b);
const char *tp_agg_key_device(const void *item, struct tp_sbuf *b);

/* Keys of items that are records of a store's own tables (an item is a
 * struct tp_agg_rec): TP_AGG_TEXT_KEY(fn, type, field) defines reader fn of
 * the text of the record's string id `field`. */
struct tp_agg_rec {
    const struct tp_store *st;
    const void *rec;
};
const char *tp_agg_text(const struct tp_store *st, uint32_t id);
#define TP_AGG_TEXT_KEY(fn, type, field) \
    static const char *fn(const void *it, struct tp_sbuf *b) \
    { \
        (void)b; \
        return tp_agg_text(((const struct tp_agg_rec *)it)->st, \
                           ((const type *)((const struct tp_agg_rec *)it)->rec)->field); \
    }

/* A summary section of the view (its summ.h variant): the keys it holds by
 * default; the variant of a key set is the first whose marker key is in
 * the set (marker 0: any set). */
struct tp_agg_variant {
    const char *name;
    unsigned keys, marker;
};

/* A named key set ("props"): keys (a mask), the default columns it shows. */
struct tp_agg_set {
    const char *name;
    unsigned keys;
    const char *columns;   /* NULL: the view's default columns */
};

enum tp_agg_stat {
    TP_AGG_CALLS,      /* the count (int) */
    TP_AGG_SUM,        /* the sum of measure m (int, ns) */
    TP_AGG_MIN,        /* of the durations (int) */
    TP_AGG_MAX,
    TP_AGG_MEAN,       /* sum of m / count / 1000: µs (float) */
    TP_AGG_AVG,        /* sum of m / count to the nearest ns (int) */
    TP_AGG_MEDIAN,     /* of the durations (float, ns) */
    TP_AGG_STD,        /* sample standard deviation of the durations; "-" under two */
    TP_AGG_WMEAN,      /* weight list m averaged by duration (float) */
    TP_AGG_PCT,        /* 100 * m / m summed over every group (0 when that is 0) */
    TP_AGG_RATIO,      /* 100 * m / measure d of the group (0 when that is 0) */
    TP_AGG_SHARE,      /* 100 * m / section total d (scal[d]); left empty when that is not > 0 */
    TP_AGG_FLAG,       /* the group's flag: Yes / No */
    TP_AGG_KEYTEXT,    /* text(key d of the group): a property of a key (Tensor Cores by name) */
    TP_AGG_CELL,       /* the view's own cell (cell): what the section does not hold */
};
#define TP_AGG_DUR (-1)   /* measure m: the durations (count, sum...); else x[m] */

/* A cell of the view's own (TP_AGG_CELL): column col of the last row of t,
 * for group g, the gi-th of the section, grouped by keys; ctx is
 * tp_agg_table's. */
struct tp_agg_cell {
    void *ctx;
    const struct tp_sgroup *g;
    size_t gi;
    unsigned keys;
    tp_table *t;
    size_t col;
    tp_error *err;
};

/* A metric column. */
struct tp_agg_metric {
    const char *col;        /* -c key of its column */
    enum tp_agg_stat stat;
    int m, d;               /* measure, divisor or key index (see the stat) */
    unsigned needs;         /* keys that must all be grouped for the column to be filled */
    int flags;              /* section flags that must all be set (the trace has memory events) */
    const char *(*text)(const char *key);   /* TP_AGG_KEYTEXT */
    unsigned unless;        /* keys none of which may be grouped for the column to be filled */
    int (*cell)(const struct tp_agg_cell *c);   /* TP_AGG_CELL: TP_OK or an error (in c->err) */
};

/* How the groups sort: measure `by` descending (by_else when the section
 * lacks flag by_flag, when by_flag is not 0) or value() descending, ties in first-seen order;
 * the key set reverse_ties breaks ties first by its first key, descending
 * (pandas' descending sort of the plugin's kernels by name). */
struct tp_agg_sort {
    int by, by_else, by_flag;
    unsigned reverse_ties;
    double (*value)(void *ctx, size_t gi);   /* optional: sort by this instead (of the gi-th group) */
};

struct tp_agg_spec {
    const char *view;
    const struct tp_coldef *cols; size_t ncols;
    const struct tp_agg_key *keys; size_t nkeys;          /* at most TP_SUMM_KEYS grouped at once */
    const struct tp_agg_set *sets; size_t nsets;
    const struct tp_agg_metric *metrics; size_t nmetrics;
    unsigned default_keys;                                /* no --group */
    const char *metric_columns;   /* what a key set that is not named shows after its keys */
    struct tp_agg_sort sort;
    const struct tp_agg_variant *variants; size_t nvariants;   /* summarized views: their sections */
    const char *others;           /* other --group values the view takes, for the usage ("category") */
    int param_bits;               /* low bits of a section's param that are the view's own (ops: stack depth) */
};

/* The key set of a --group (NULL or "": the default): 0, or TP_ERR_USAGE
 * naming the valid keys and sets. */
int tp_agg_parse(const struct tp_agg_spec *spec, const char *group, unsigned *keys, tp_error *err);
/* The "=ARG" of key `name` in a --group list into buf: 1, 0 when the key
 * has no argument, -1 when it is not in the list. */
int tp_agg_arg(const char *group, const char *name, char *buf, size_t cap);
/* The default columns of a --group that is a named set (or none), else
 * NULL (the table built says them: tp_table_default_columns). */
const char *tp_agg_columns(const struct tp_agg_spec *spec, const char *group);
/* "name, op, grid (sets: props = name,op,...)" for usage lines: into buf.
 * A view's tp_ID_group_keys (its tp_view.group_keys, views.def) returns it. */
size_t tp_agg_describe(const struct tp_agg_spec *spec, char *buf, size_t cap);

/* Reading the keys of items into a section.  Keys that readers return as
 * strings of their own (a store's interned names: the same pointer is the
 * same text while the items are read) find their group again through a
 * small cache of pointers, without hashing the text. */
#define TP_AGG_CACHE 4096
struct tp_agg_cached { const char *k[TP_SUMM_KEYS]; size_t g; };   /* g: group index + 1, 0 empty */
struct tp_agg_reader {
    const struct tp_agg_spec *spec;
    unsigned keys;
    int n, idx[TP_SUMM_KEYS];
    struct tp_sbuf b[TP_SUMM_KEYS];
    struct tp_agg_cached *cache;   /* TP_AGG_CACHE slots */
};
/* Start reading keys (sets sec->nkeys); -1 for more keys than a section holds. */
int tp_agg_reader_init(struct tp_agg_reader *r, const struct tp_agg_spec *spec, unsigned keys, struct tp_section *sec);
/* The group of an item (made when new); NULL on out of memory. */
struct tp_sgroup *tp_agg_group(struct tp_agg_reader *r, struct tp_section *sec, const void *item);
void tp_agg_reader_free(struct tp_agg_reader *r);
/* A key reader's integer in decimal into b (printf's %lld, without its
 * cost per event): b->p, or NULL on out of memory. */
const char *tp_agg_int(struct tp_sbuf *b, int64_t v);
/* A key reader's printf into b: b->p, or NULL on out of memory. */
const char *tp_agg_printf(struct tp_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A section's param (summ.h: tp_summ_view.param) for keys of a variant
 * whose default keys are vkeys, and the view's own param; back: the keys
 * of a section (vkeys when it holds its variant's default). */
long tp_agg_param(const struct tp_agg_spec *spec, unsigned keys, unsigned vkeys, long own);
unsigned tp_agg_section_keys(const struct tp_agg_spec *spec, const struct tp_section *sec, unsigned vkeys);
long tp_agg_section_own(const struct tp_agg_spec *spec, const struct tp_section *sec);

/* Summarized views (spec->variants): the variant of a key set; whether a
 * --group reads this variant; the section param of a --group (own: the
 * view's); the keys a section being summarized holds. */
const struct tp_agg_variant *tp_agg_variant_of(const struct tp_agg_spec *spec, unsigned keys);
int tp_agg_reads(const struct tp_agg_spec *spec, const char *group, const char *variant);
long tp_agg_group_param(const struct tp_agg_spec *spec, const char *group, long own);
unsigned tp_agg_summarizing(const struct tp_agg_spec *spec, const struct tp_section *sec);
/* The table of a (merged) section for --group: from the section, rolled up
 * when it holds more keys, or TP_ERR_USAGE when it lacks some (a summary
 * file: only its variants' default keys). */
int tp_agg_summ_table(const struct tp_agg_spec *spec, struct tp_section *sec, const char *path, const char *group,
                      void *ctx, tp_table **out, tp_error *err);

/* A view's own section, not summarized (Ascend's CSV views): made and
 * keyed; per-group state of the view beside it (an array grown as groups
 * come).  init: 0 or -1 (out of memory). */
struct tp_agg_local {
    tp_summary s;
    struct tp_section *sec;
    struct tp_agg_reader rd;
};
int tp_agg_local_init(struct tp_agg_local *l, const struct tp_agg_spec *spec, unsigned keys);
/* The group of an item and its entry in *side (elements of `size` bytes,
 * zeroed for a new group) into *entry; NULL on out of memory. */
struct tp_sgroup *tp_agg_local_group(struct tp_agg_local *l, const void *item, void **side, size_t *cap, size_t size,
                                     void **entry);
void tp_agg_local_free(struct tp_agg_local *l);
/* The table of n records (recs: the first, `size` bytes each) of store st:
 * each added to a local section by add (with item {st, record}, its index
 * and ctx: TP_OK or an error set in err), then tp_agg_table(..., ctx). */
int tp_agg_local_table(const struct tp_agg_spec *spec, unsigned keys, const struct tp_store *st, const void *recs,
                       size_t n, size_t size,
                       int (*add)(struct tp_agg_local *l, void *ctx, const struct tp_agg_rec *it, size_t i,
                                  tp_error *err),
                       void *ctx, tp_table **out, tp_error *err);

/* The groups of `from` (keyed by from_keys) rolled up to keys, a subset,
 * into a new section *out (the caller frees it); TP_OK or an error. */
int tp_agg_rollup(const struct tp_agg_spec *spec, struct tp_section *from, unsigned from_keys, unsigned keys,
                  struct tp_section **out, tp_error *err);

/* The table of a section keyed by keys: one row per group, sorted, its key
 * and metric columns filled; a key set that is not named gets its default
 * columns (keys, then metric_columns); ctx goes to the view's cells and
 * sort value.  TP_OK or an error. */
int tp_agg_table(const struct tp_agg_spec *spec, struct tp_section *sec, unsigned keys, void *ctx, tp_table **out,
                 tp_error *err);

#endif
