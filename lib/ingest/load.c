/* load.c — tp_store_load: sniff what a path holds and hand it to the right
 * importer.  Content decides, never the file name. */
#include <string.h>
#include <sys/stat.h>
#include "ingest.h"
#include "store_file.h"

/* The AWS Neuron TensorBoard plugin's files (reference/npu/SPEC.md §B):
 * neuron_framework_op.json and neuron_hlo_op.json are {"ops": [...],
 * "total_time": N}; neuron_op_timeline.json and neuron_trace.json are a
 * Chrome trace whose envelope has "neuronStartTimestampNs".  Their op
 * records have no published schema, so they are refused by name rather than
 * read as an empty or meaningless PyTorch trace. */
static int is_neuron_profile(const char *head, size_t n)
{
    size_t i = 0;
    if (n == 0 || head[0] != '{')
        return 0;
    for (i = 1; i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'); i++)
        ;
    if (n - i >= 6 && memcmp(head + i, "\"ops\"", 5) == 0)
        return 1;
    return memmem(head, n, "\"neuronStartTimestampNs\"", 24) != NULL;
}

int tp_store_load(tp_store *st, const char *path, tp_error *err)
{
    struct stat sb;
    if (!st || !path)
        return tp_error_set(err, TP_ERR_USAGE, "tp_store_load: %s", st ? "no path" : "no store");
    const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
    size_t plen = strlen(shown);
    if (plen >= sizeof st->path)
        plen = sizeof st->path - 1;   /* messages name a path cut at 1023 bytes */
    memcpy(st->path, shown, plen);
    st->path[plen] = 0;
    if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        if (tp_ascend_probe(path))
            return tp_ingest_ascend(st, path, err);
        return tp_error_set(err, TP_ERR_IO, "%s: is a directory, not a trace file", path);
    }

    tp_source *src;
    int rc = tp_source_open(&src, path, err);
    if (rc != TP_OK)
        return rc;
    st->compression = tp_compression_name(tp_source_compression(src));
    st->input_bytes = tp_source_file_size(src);

    const char *head;
    size_t n = tp_source_peek(src, &head);
    if (n >= TP_STORE_MAGIC_LEN && memcmp(head, TP_STORE_MAGIC, TP_STORE_MAGIC_LEN) == 0) {
        rc = tp_store_read_file(st, src, err);
        tp_source_close(src);
        return rc;
    }
    if (n >= 16 && memcmp(head, "SQLite format 3", 16) == 0) {
        tp_source_close(src);
        if (strcmp(path, "-") == 0)
            return tp_error_set(err, TP_ERR_USAGE, "<stdin>: SQLite dumps must be given as a file, not on stdin");
        if (st->compression[0] != 'n')
            return tp_error_set(err, TP_ERR_FORMAT, "%s: compressed SQLite dumps are not supported; decompress it first", path);
        return tp_ingest_sqlite(st, path, err);
    }
    if (n >= 3 && (unsigned char)head[0] == 0xef && (unsigned char)head[1] == 0xbb && (unsigned char)head[2] == 0xbf)
        tp_source_skip(src, 3);   /* UTF-8 byte order mark: the readers start after it */
    /* Blanks of any length before the first byte that tells the format
     * (the peek alone holds only 4 KB of them). */
    tp_source_skip_blanks(src);
    n = tp_source_peek(src, &head);
    if (n == 0 || !head) {   /* !head never holds; it tells GCC (-Wnonnull in UBSan builds) that memmem gets a buffer */
        /* Nothing but blanks, or the decompressor failed before its first
         * byte: that error is the news, not "empty". */
        const tp_error *se = tp_source_error(src);
        rc = se ? tp_error_set(err, se->status, "%s", se->msg)
                : tp_error_set(err, TP_ERR_FORMAT, "%s: empty file: not a trace", st->path);
        tp_source_close(src);
        return rc;
    }
    if (is_neuron_profile(head, n)) {
        rc = tp_error_set(err, TP_ERR_FORMAT, "%s: AWS Neuron profiles are not supported yet", st->path);
    } else if (head[0] == '{' && n > 1 && head[1] == '\'') {
        rc = tp_ingest_pydict(st, src, err);
    } else if (head[0] == '{' || head[0] == '[') {
        rc = tp_ingest_kineto(st, src, err);
    } else if (n >= 8 && memcmp(head, "=====", 5) == 0) {
        rc = tp_error_set(err, TP_ERR_FORMAT, "%s: nvprof text output; export with `nvprof -o FILE.sql` instead",
                          st->path);
    } else {
        /* PyProf's dict files may start with noise lines before the first
         * dict (pyprof.init's "Initializing NVTX monkey patches"); a profile
         * with no kernels is only that noise. */
        if (memmem(head, n, "\n{'", 3) || memmem(head, n, "NVTX monkey patch", 17))
            rc = tp_ingest_pydict(st, src, err);
        else
            rc = tp_error_set(err, TP_ERR_FORMAT,
                              "%s: not a trace: expected PyTorch profiler JSON, an nvprof/nsys SQLite dump or a PyProf dict file",
                              st->path);
    }
    tp_source_close(src);
    return rc;
}
