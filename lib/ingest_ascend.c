/* ingest_ascend.c — Ascend NPU profiler output folders (torch_npu).
 * Not implemented yet: no folder is recognised. */
#include "ingest.h"

int tp_ascend_probe(const char *dir)
{
    (void)dir;
    return 0;
}

int tp_ingest_ascend(tp_store *st, const char *dir, tp_error *err)
{
    (void)st;
    return tp_error_set(err, TP_ERR_FORMAT, "%s: Ascend profiler folders are not supported yet", dir);
}
