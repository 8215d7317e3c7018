/* store_file_int.h — the field tables shared by the .tprof writer and reader
 * (store_file_cols.c lists them; store_file.c moves the bytes). */
#ifndef TPROF_STORE_FILE_INT_H
#define TPROF_STORE_FILE_INT_H

#include <stddef.h>
#include <stdint.h>
#include "store_file.h"

enum tp_sf_root { TP_SF_ROOT_STORE, TP_SF_ROOT_NPU };

enum tp_sf_table_id {
    TP_SF_EVENTS, TP_SF_LINKS, TP_SF_KERNELS, TP_SF_OPS, TP_SF_MEMS, TP_SF_DEVICES,
    TP_SF_ANNOTS, TP_SF_STEPS, TP_SF_SKIPS,
    TP_SF_NPU_TASKS, TP_SF_NPU_OPS, TP_SF_NPU_ALLOCS, TP_SF_NPU_RECORDS, TP_SF_NPU_MODULES,
    TP_SF_NPU_STEPS, TP_SF_NPU_COMMS, TP_SF_NPU_XCOLS, TP_SF_NPU_XCELLS, TP_SF_COLLS,
    TP_SF_SEQS, TP_SF_PYS, TP_SF_DLINKS,
    TP_SF_NTABLES
};

struct tp_sf_table {          /* an array of records and its count */
    const char *name;
    enum tp_sf_root root;
    size_t count;                  /* offset of the size_t count in the root */
    size_t cap;                    /* offset of the size_t capacity, (size_t)-1 none */
    size_t inline_max;             /* 0: the columns' base is a pointer; else the
                                      records sit in the root itself, at most this many */
};

enum {
    TP_SF_DELTA = 1,          /* int64 column stored as differences (timestamps) */
    /* What a value refers to, checked on read so that a crafted file cannot
     * make a view index past an array: */
    TP_SF_STR = 2,            /* a string id (< the string count); 64-bit: only if it fits */
    TP_SF_ROW = 4,            /* an event row (< n), or negative for "none" */
    TP_SF_STEP = 8,           /* a step index (< nsteps), or negative */
    TP_SF_KIND = 16,          /* an enum tp_kind */
    /* Not a field of the records: the op records' "Fwd thread id", held in
     * st->fwds (tp_store_fwd_thread) and written as a column of every op
     * record, as when it was one (so both older and newer readers read it). */
    TP_SF_FWD = 32,
    /* The "External id": st->ext64, or st->ext32 widened as it is written
     * (tp_store_ext); read back into st->ext64. */
    TP_SF_EXT = 64,
    /* The python ids: st->pys, or st->pys32 widened as they are written;
     * read back into st->pys. */
    TP_SF_PY = 128,
};

struct tp_sf_col {            /* one field of a table: one column in the file */
    const char *name;
    enum tp_sf_table_id table;
    size_t base;                   /* offset of the array pointer in the root */
    size_t stride;                 /* bytes from one record to the next */
    size_t field;                  /* offset of the field in a record */
    size_t width;                  /* bytes of the field */
    int flags;
};

/* st->fwds from the column op.fwd_thread (count int64, TP_NONE none):
 * 0, or -1 out of memory. */
int tp_sf_fwds_from(tp_store *st, const unsigned char *vals, size_t count);

struct tp_sf_scalar {         /* one scalar field of a root */
    const char *name;
    enum tp_sf_root root;
    size_t field, width;
};

extern const struct tp_sf_table tp_sf_tables[TP_SF_NTABLES];
extern const struct tp_sf_col tp_sf_cols[];
extern const size_t tp_sf_ncols;
extern const struct tp_sf_scalar tp_sf_scalars[];
extern const size_t tp_sf_nscalars;

/* ---- inflating the big columns on every core (store_file_inflate.c) ---- */
struct tp_sf_job {
    char *dst;                     /* raw bytes of room */
    const unsigned char *z;        /* its zstd frame, zlen bytes */
    size_t zlen, raw;
    int delta;                     /* int64 differences to sum back */
    size_t at;                     /* the section's byte offset in the file, for messages */
    const char *error;             /* set when it failed */
    int check_crc;                 /* 1: verify the section's CRC-32 first (a lazy column's) */
    const unsigned char *hdr;      /* its header, hlen bytes (the CRC covers header and frame) */
    size_t hlen;
    uint32_t crc;
    int id;                        /* the caller's */
};
/* Inflate every job (in any order; the array is reordered). */
void tp_sf_inflate_all(struct tp_sf_job *jobs, size_t n);

/* ---- the columns inflated on first need (store_file_lazy.c) ----
 * The event columns, the link columns and the attribution's per-device-row
 * arrays (one unit each), then the side tables (kern, op, mem, annot,
 * opt.coll, seq, py: a unit each), in the order of the TP_NEED_ bits (store_file.h). */
enum { TP_SF_NLAZY_COLS = 19, TP_SF_NLAZY = 26,
       /* opt.attr.totals: the attribution's sums, as int64 (store_file.c) */
       TP_SF_ATTR_TOTALS = 2 + 2 * TP_ATTR_CAUSES + 2 * TP_LAUNCH_KINDS + 4 };
/* The attribution in opt.attr.*: bump when tp_link_attribution
 * (model/attribution.c) changes what it computes, and stores written before
 * have theirs computed again. */
#define TP_SF_ATTR_VERSION 1
struct tp_sf_lazy;
/* The lazy unit a section belongs to (its TP_NEED_ bit number), or -1. */
int tp_sf_lazy_index(const char *name);
struct tp_sf_lazy *tp_sf_lazy_new(tp_store *st);
/* The values column unit i (< TP_SF_NLAZY_COLS) has in an intact store. */
size_t tp_sf_lazy_rows(const tp_store *st, int i);
void tp_sf_lazy_free(struct tp_sf_lazy *L);
/* The file's bytes, which the kept sections point into (freed with L). */
void tp_sf_lazy_take_file(struct tp_sf_lazy *L, unsigned char *file);
/* Keep section `name` of unit i (its header, CRC and frame, not yet
 * checked); the unit's first points the store's pointer at a reservation.
 * 0, or -1 with *why (NULL: out of memory). */
int tp_sf_lazy_add(struct tp_sf_lazy *L, int i, const char *name, const unsigned char *hdr, size_t hlen,
                   uint32_t crc, const unsigned char *z, size_t zlen, uint64_t count, uint32_t width,
                   uint32_t flags, const char **why);
int tp_sf_lazy_present(const struct tp_sf_lazy *L, int i);
uint64_t tp_sf_lazy_count(const struct tp_sf_lazy *L, int i);
/* 1 when column `name` is not a lazy one, absent, or loaded. */
int tp_sf_lazy_loaded(const struct tp_sf_lazy *L, const char *name);
void tp_sf_lazy_set_totals(struct tp_sf_lazy *L, const int64_t *v);
const int64_t *tp_sf_lazy_totals(const struct tp_sf_lazy *L);
/* 1 when the file holds the attribution: its totals and its three arrays. */
int tp_sf_lazy_has_attr(const struct tp_sf_lazy *L);
/* Inflate, check and put in place the columns of `want` not loaded yet. */
int tp_sf_lazy_need(struct tp_sf_lazy *L, uint32_t want, tp_error *err);
struct tp_sf_blobs;
struct tp_sf_blobs *tp_sf_lazy_models(struct tp_sf_lazy *L);
void tp_sf_lazy_models_ok(struct tp_sf_lazy *L, int ok);
/* The model sections of a store read from a file, NULL none usable. */
const struct tp_sf_blobs *tp_sf_file_models(const tp_store *st);

/* The checks of store_file.c, one column at a time: NULL when every value
 * is in range, else a message (in msg, or static). */
const char *tp_sf_check_col(const tp_store *st, const struct tp_sf_col *c, size_t count, char *msg, size_t cap);
const char *tp_sf_check_aux(const tp_store *st);   /* ev.aux against ev.kind and the side tables */
const char *tp_sf_check_tid(const tp_store *st);   /* thread names against the string table */
/* n values of `width` bytes into records `stride` bytes apart. */
void tp_sf_scatter(char *dst, size_t stride, const unsigned char *src, size_t width, size_t n);
/* A column's memory: big ones on huge pages where the kernel grants them;
 * freed with free(). */
void *tp_sf_big_alloc(size_t n);

/* ---- the shared models in the file (store_file_model.c) ----
 * store_file.c writes sections through tp_sf_put and hands the model
 * sections it reads (tp_sf_is_model_section) to tp_sf_read_models once the
 * rest of the store is read and checked. */
struct tp_sf_writer;
int tp_sf_put(struct tp_sf_writer *w, const char *name, const void *data, uint64_t count, uint32_t width);
/* The field `off` bytes into each of n records `stride` bytes apart, as one
 * section of n values of `width` bytes. */
int tp_sf_put_field(struct tp_sf_writer *w, const char *name, const void *recs, size_t n, size_t stride, size_t off,
                    uint32_t width);

struct tp_sf_blob {            /* one model section, as the file holds it */
    char name[65];
    uint32_t width;
    uint64_t count;
    void *z;                       /* its zstd frame (CRC and size checked) */
    size_t zlen;
};
struct tp_sf_blobs { struct tp_sf_blob *v; size_t n, cap; };

int tp_sf_is_model_section(const char *name);
/* Build the models of a kineto store and write them (a store of another
 * format, or one with a capture attached, gets none). */
int tp_sf_write_models(struct tp_sf_writer *w, const tp_store *st);
/* Model section `name` of values `width` bytes wide inflated (*count
 * SIZE_MAX: any count, set; else it must hold *count values), malloc'd;
 * NULL when absent, of another size or damaged, or out of memory. */
void *tp_sf_blob_inflate(const struct tp_sf_blobs *b, const char *name, size_t width, size_t *count);
/* The views' results that depend on the store alone, computed and written
 * with the models (store_file_results.c). */
int tp_sf_write_results(struct tp_sf_writer *w, const tp_store *st);
/* The Module view's tree and numbers (store_file_modtree.c), written with
 * the results. */
int tp_sf_write_modtree(struct tp_sf_writer *w, const tp_store *st);
/* Mark the model sections kept in L usable when their version is this
 * tprof's, to be inflated only when a view asks for a model
 * (tp_store_file_tree, tp_store_file_breakdown); else free them.  1 when
 * both models are there (the store may then be read lazily). */
int tp_sf_keep_models(const tp_store *st, struct tp_sf_lazy *L);
void tp_sf_blobs_free(struct tp_sf_blobs *b);

#endif
