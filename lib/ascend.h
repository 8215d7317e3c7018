/* ascend.h — the pieces of the Ascend folder importer (internal). */
#ifndef TPROF_ASCEND_H
#define TPROF_ASCEND_H

#include "npu.h"
#include "table.h"

/* ascend_tables.c: parse one CSV of the folder (data in memory) into d. */
int tp_ascend_read_csv(tp_store *st, struct tp_npu_data *d, enum tp_npu_file which, const char *name,
                       const char *data, size_t len);

/* ascend_comm.c: communication.json into d->comms. */
int tp_ascend_read_comm(tp_store *st, struct tp_npu_data *d, const char *path, tp_error *err);

/* ascend_db.c: the SQLite export (ascend_pytorch_profiler*.db) when the
 * folder has no CSVs; says what it could not find. */
int tp_ascend_read_db(tp_store *st, struct tp_npu_data *d, const char *path, tp_error *err);

/* The file names, for messages. */
const char *tp_npu_file_name(enum tp_npu_file f);

/* A view that needs files the folder lacks: "DIR: no FILE (VIEW needs it;
 * found: ...)" as TP_ERR_FORMAT. */
int tp_npu_missing(const tp_store *st, unsigned need, const char *view, tp_error *err);

#endif
