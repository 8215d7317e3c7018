/* store_file_int.h — the field tables shared by the .tprof writer and reader
 * (store_file_cols.c lists them; store_file.c moves the bytes). */
#ifndef TPROF_STORE_FILE_INT_H
#define TPROF_STORE_FILE_INT_H

#include <stddef.h>
#include "store_file.h"

enum tp_sf_root { TP_SF_ROOT_STORE, TP_SF_ROOT_NPU };

enum tp_sf_table_id {
    TP_SF_EVENTS, TP_SF_LINKS, TP_SF_KERNELS, TP_SF_OPS, TP_SF_MEMS, TP_SF_DEVICES,
    TP_SF_ANNOTS, TP_SF_STEPS, TP_SF_SKIPS,
    TP_SF_NPU_TASKS, TP_SF_NPU_OPS, TP_SF_NPU_ALLOCS, TP_SF_NPU_RECORDS, TP_SF_NPU_MODULES,
    TP_SF_NPU_STEPS, TP_SF_NPU_COMMS, TP_SF_NPU_XCOLS, TP_SF_NPU_XCELLS, TP_SF_COLLS,
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

#endif
