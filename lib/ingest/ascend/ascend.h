/* ascend.h — the pieces of the Ascend folder importer (internal). */
#ifndef TPROF_ASCEND_H
#define TPROF_ASCEND_H

#include <stdlib.h>
#include "npu.h"
#include "table.h"

/* ascend_tables.c: parse one CSV of the folder (data in memory) into d. */
int tp_ascend_read_csv(tp_store *st, struct tp_npu_data *d, enum tp_npu_file which, const char *name,
                       const char *data, size_t len);

/* ascend_tables.c: the kernel event of task t in the store (kind, times,
 * name, category cat, device, stream); its row, or -1 on out of memory. */
int64_t tp_ascend_task_event(tp_store *st, const struct tp_npu_task *t, uint32_t cat);

/* ascend_comm.c: communication.json into d->comms. */
int tp_ascend_read_comm(tp_store *st, struct tp_npu_data *d, const char *path, tp_error *err);

/* ascend_db.c: the SQLite export (ascend_pytorch_profiler*.db) when the
 * folder has no CSVs; says what it could not find. */
int tp_ascend_read_db(tp_store *st, struct tp_npu_data *d, const char *path, tp_error *err);

/* ascend_link.c: launching ops of the tasks from the trace's flows; tasks
 * from the trace when the folder has no kernel_details.csv. */
int tp_ascend_link(tp_store *st, struct tp_npu_data *d);

/* A JSON reader error "PATH: byte N: what" counted as "FILE: what" at N. */
void tp_ascend_json_bad(tp_store *st, const char *file, const char *msg);

/* The file names, for messages. */
const char *tp_npu_file_name(enum tp_npu_file f);

/* A view that needs files the folder lacks: an empty table (the header
 * only) and the note "DIR: FILE not found: the VIEW view needs it (found:
 * ...)" in err with status TP_OK — the CLI prints it and exits 0, the other
 * views of the folder still work. */
int tp_npu_missing(const tp_store *st, unsigned need, const char *view, const struct tp_coldef *cols, size_t ncols,
                   tp_table **out, tp_error *err);

/* Sums of durations in the NPU views are checked: a folder whose kernels
 * add up beyond int64 ns (292 years; a corrupt or forged CSV) printed a
 * negative total and -0.00 percentages with exit 0.  tp_npu_add: *acc += v,
 * or -1 (acc unchanged) when the sum leaves int64.  tp_npu_ns: llround(us *
 * scale) into *ns, or -1 when it does not fit (NaN fits nowhere either).
 * tp_npu_overflow: the view's error then, "DIR: WHAT sum beyond int64 ns: not
 * a real profile", status TP_ERR_FORMAT (exit 2). */
static inline int tp_npu_add(int64_t *acc, int64_t v)
{
    int64_t s;
    if (__builtin_add_overflow(*acc, v, &s))
        return -1;
    *acc = s;
    return 0;
}
int tp_npu_ns(double us, double scale, int64_t *ns);
int tp_npu_overflow(const tp_store *st, const char *what, tp_error *err);

/* `tprof info` lines for an Ascend store: line i into key/val; 0 after the
 * last (or for other inputs). */
int tp_npu_info_line(const tp_store *st, size_t i, char *key, size_t kcap, char *val, size_t vcap);

#endif
