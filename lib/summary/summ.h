/* summ.h — exact mergeable summaries (internal to libtprof; the public
 * face is tp_summary in tprof.h).
 *
 * A section is what one view (and variant: kernels by name, kernels by
 * props, ops by name...) keeps of a trace: groups by key, each with a
 * count, an int64 sum, min, max, a 128-bit sum of squares, view-specific
 * int64 sums (x[]), the exact multiset of its durations (value, count)
 * sorted by value, sums of value * duration (weighted means) in 128-bit
 * fixed point, and where the group was first seen.  Merging two sections is exact integer arithmetic and a
 * merge of sorted lists, so it is associative: summaries of ranks merged in
 * any grouping give the same bytes.
 *
 * "First seen" keeps the row order a view shows ties in: a concatenated
 * store meets its groups rank after rank, but a tree traversal meets them
 * thread by thread (the plugin's trees have one root per tid over every
 * rank), so each group records, per stream (a tid; 0 for row order) and per
 * rank (seq), the first position it had there; the merged order is by
 * (position of the stream in first-seen order, seq, position). */
#ifndef TPROF_SUMM_H
#define TPROF_SUMM_H

#include <stddef.h>
#include <stdint.h>
#include "tprof.h"

#define TP_SUMM_KEYS 6
#define TP_SUMM_X 12
#define TP_SUMM_W 2
#define TP_SUMM_SCAL 4
#define TP_SUMM_WBITS 56

typedef __int128 tp_i128;

struct tp_rl { int64_t v, n; };            /* a duration and how many times it occurs */
struct tp_first { int64_t stream, seq, pos; };

struct tp_sgroup {
    char *key[TP_SUMM_KEYS];   /* NULL past the section's nkeys */
    int64_t n, sum, min, max;
    tp_i128 sumsq;
    int64_t x[TP_SUMM_X];
    int flag;                  /* a property of the key (Tensor Core eligible): the first seen wins */
    struct tp_rl *d; size_t nd, capd;
    tp_i128 w[TP_SUMM_W];      /* sum of v * ns, each product in units of 2^-TP_SUMM_WBITS */
    struct tp_first *f; size_t nf, capf;
    int64_t order;             /* tp_summ_order: the rank of its first sighting */
    uint64_t hash;             /* of its keys, kept: a merge of a thousand files looks each group
                                  up once per file, and hashing long kernel names dominated it */
};

/* What a section's columns mean: its SQL view names them (summ_file.c). */
struct tp_summ_desc {
    const char *view, *variant;
    int nkeys, nx, nw, nscal;
    int concat;                /* groups are rows (steps): merged by appending, never by key */
    const char *keys[TP_SUMM_KEYS], *xs[TP_SUMM_X], *ws[TP_SUMM_W], *scals[TP_SUMM_SCAL];
};

struct tp_section {
    char view[24], variant[24];
    int nkeys, nx, nw, nscal, concat;
    int64_t scal[TP_SUMM_SCAL];   /* section-wide sums (key_averages' totals) */
    int flags;                    /* section-wide booleans, OR-ed (the trace has kernels...) */
    struct tp_sgroup *g; size_t ng, capg;
    uint32_t *hash; size_t hcap;  /* open addressing (slots.h): group index + 1, 0 empty */
    int64_t *streams; size_t nstreams, capstreams;   /* first-seen order */
    int64_t nseq;                 /* ranks merged into it (1 for one trace) */
};

struct tp_summ {
    struct tp_section **s; size_t n, cap;
    char path[4096];              /* what the tables' notes name (the trace) */
    int64_t nranks;               /* ranks merged into it */
    struct tp_summary_meta meta;  /* of its first rank (a summary file's) */
};

struct tp_section *tp_summ_section(tp_summary *s, const struct tp_summ_desc *d);
const struct tp_section *tp_summ_find(const tp_summary *s, const char *view, const char *variant);
void tp_summ_section_free(struct tp_section *sec);

/* The group of these keys (NULL-terminated list of nkeys strings), made
 * when new; NULL on out of memory.  Not for concat sections: tp_summ_row. */
struct tp_sgroup *tp_summ_group(struct tp_section *sec, const char *const *keys);
struct tp_sgroup *tp_summ_row(struct tp_section *sec, const char *const *keys);

/* One duration into g (count, sum, min, max, squares, multiset); 0 or -1. */
int tp_summ_add(struct tp_sgroup *g, int64_t d);
/* ns weighed by value v (weighted means): the double product v * ns, as
 * a running sum of doubles takes it, added exactly in fixed point (bits
 * under 2^-56 cut, the same way in every grouping); 0. */
int tp_summ_weigh(struct tp_sgroup *g, int which, double v, int64_t ns);
/* Where g was seen (stream, position), in the trace's order; 0 or -1. */
int tp_summ_seen(struct tp_section *sec, struct tp_sgroup *g, int64_t stream, int64_t pos);

/* Raw appends (a summary file read back): a (value, count) pair in value
 * order, a first sighting, a stream (kept once, in first-seen order); 0 or -1. */
int tp_summ_put_rl(struct tp_sgroup *g, int64_t v, int64_t n);
int tp_summ_put_first(struct tp_sgroup *g, struct tp_first f);
int tp_summ_put_stream(struct tp_section *sec, int64_t stream);

/* Sort and run-length the multisets once every sample is in. */
int tp_summ_finish(struct tp_section *sec);

/* Merge `from` (later ranks) into `into`: exact; from is emptied. */
int tp_summ_merge_section(struct tp_section *into, struct tp_section *from);

/* Set each group's `order` (0..ng-1) to the rank of its first sighting. */
int tp_summ_order(struct tp_section *sec);

/* The groups in the order cmp gives them (after tp_summ_order, so cmp may
 * break ties by `order`: tp_summ_cmp_order), malloc'd; NULL on out of
 * memory.  The comparison takes pointers to group pointers: no context. */
const struct tp_sgroup **tp_summ_sorted(struct tp_section *sec,
                                        int (*cmp)(const struct tp_sgroup *const *, const struct tp_sgroup *const *));
int tp_summ_cmp_order(const struct tp_sgroup *const *a, const struct tp_sgroup *const *b);

/* What a view printing section sec starts from: *perm, tp_summ_sorted's
 * groups, and *t, an empty table of the ncols columns cols.  TP_OK, or
 * TP_ERR_NOMEM (err set) with neither made. */
struct tp_coldef;
int tp_summ_sorted_table(struct tp_section *sec,
                         int (*cmp)(const struct tp_sgroup *const *, const struct tp_sgroup *const *),
                         const struct tp_coldef *cols, size_t ncols, const struct tp_sgroup ***perm, tp_table **t,
                         tp_error *err);

/* Statistics of a group: the exact median (the mean of the middle two for
 * an even count), the sample standard deviation (NAN under two samples),
 * the mean of weight list `which` weighed by ns (sum(v * ns) / total). */
double tp_summ_median(const struct tp_sgroup *g);
double tp_summ_std(const struct tp_sgroup *g);
double tp_summ_wmean(const struct tp_sgroup *g, int which, int64_t total);

/* The nsys-style statistics (model/summary.h) through a section: samples
 * of set `which` in (keys: set, key, tag; x[0], x[1] the payload sums), and
 * back as tp_summarize gives them, in (key, tag) order (keys point into the
 * section).  0 / the number of groups, or -1 on out of memory. */
struct tp_sample;
struct tp_summary;
int tp_summ_samples(struct tp_section *sec, int which, const struct tp_sample *s, size_t n);
/* One sample; its tag is `tagname` when not NULL (nvtx: the style's text,
 * as string ids differ between ranks), else the number s->tag. */
int tp_summ_sample(struct tp_section *sec, int which, const struct tp_sample *s, const char *tagname);
long tp_summ_stats(const struct tp_section *sec, int which, struct tp_summary **out);
/* The same, ordered as nsys orders its rows (tp_summary_sort_total); *all
 * the sum of their totals. */
long tp_summ_stats_total(const struct tp_section *sec, int which, struct tp_summary **out, int64_t *all);

/* The view descriptors that summarize (view_kernels.c, view_ops.c,
 * view_steps.c): NULL-terminated. */
struct tp_summ_view {
    const struct tp_summ_desc *desc;
    const char *view;
    /* 1 when the view with these options reads this section */
    int (*reads)(const struct tp_view_opts *vo, const char *variant);
    int (*summarize)(const tp_store *st, struct tp_section *sec, tp_error *err);
    int (*table)(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                 tp_error *err);
    /* Optional: the option the summary depends on (ops --group stack=N: N),
     * kept in the section's flags above TP_SUMM_PARAM_SHIFT (a summary file
     * holds it; ranks merged have the same). */
    long (*param)(const struct tp_view_opts *vo);
};
#define TP_SUMM_PARAM_SHIFT 8
/* A reads() for the views with one summary whatever their options. */
int tp_summ_reads_always(const struct tp_view_opts *vo, const char *variant);
extern const struct tp_summ_view tp_summ_kernels_name, tp_summ_kernels_props, tp_summ_ops_name,
    tp_summ_ops_shape, tp_summ_ops_stack, tp_summ_steps, tp_summ_diff, tp_summ_api, tp_summ_labels, tp_summ_memops, tp_summ_nvtx;
/* the HTA timeline views (lib/view/hta/hta_summ.h) */
extern const struct tp_summ_view tp_summ_temporal, tp_summ_kernel_types, tp_summ_overlap, tp_summ_idle;
/* memory (view_memory.c), dist (dist_summ.c), launches --summary (view_launches.c) */
extern const struct tp_summ_view tp_summ_memory, tp_summ_dist, tp_summ_launches;
/* A one-rank dist section learns the rank the run settled for it (the
 * summary's meta.rank: dist's notes name ranks), before it merges and
 * before its table (summary.c). */
void tp_summ_dist_settle(struct tp_section *sec, int64_t rank);
const struct tp_summ_view *const *tp_summ_views(void);

/* Build view sv's table of one store through its summary (the views'
 * build(): one trace is a run of one rank). */
int tp_summ_view_build(const struct tp_summ_view *sv, const tp_store *st, const struct tp_view_opts *vo,
                       tp_table **out, tp_error *err);
/* Summarize one store (with options vo: NULL for a summary file) into a
 * new section of s; TP_OK or an error. */
int tp_summ_view_add(const struct tp_summ_view *sv, const tp_store *st, const struct tp_view_opts *vo,
                     tp_summary *s, tp_error *err);

/* Load a summary file: only the sections of `view` (NULL: all), or its
 * metadata alone (meta_only).  tp_summary_load is (NULL, 0). */
int tp_summ_load(const char *path, const char *view, int meta_only, tp_summary **out, tp_error *err);

/* Group `from` (of a section with the same streams and ranks: a finer
 * grouping of the same rows) added into `into`, exactly (agg.c's roll-ups);
 * from is left as it was.  0 or -1. */
int tp_summ_merge_group(struct tp_sgroup *into, const struct tp_sgroup *from);

#endif
