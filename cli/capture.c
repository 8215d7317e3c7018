/* capture.c — --capture: graph replays charged to the operators captured
 * into the graph, from a capture trace or a folder of them (TraceLens'
 * capture_traces/). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "capture.h"

static int is_trace_name(const char *n)
{
    size_t len = strlen(n);
    static const char *const ends[] = {".json", ".json.gz", ".json.zst"};
    if (strcmp(n, "execution_details.json") == 0)   /* TraceLens' index, not a trace */
        return 0;
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
        size_t e = strlen(ends[i]);
        if (len > e && strcmp(n + len - e, ends[i]) == 0)
            return 1;
    }
    return 0;
}

/* Load, link and attach one capture trace; 0, or 2 after a message. */
static int attach_one(tp_store *st, const char *path)
{
    tp_error err = {0};
    tp_store *cap = tp_store_new();
    int rc = !cap ? TP_ERR_NOMEM : tp_store_load(cap, path, &err);
    if (rc == TP_OK)
        rc = tp_store_link(cap, &err);
    if (rc == TP_OK)
        rc = tp_store_attach_capture(st, cap, &err);
    if (rc != TP_OK)
        fprintf(stderr, "tprof: %s\n", cap ? err.msg : "out of memory");
    tp_store_free(cap);
    return rc == TP_OK ? 0 : 2;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int cli_attach_capture(tp_store *st, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "tprof: --capture %s: no such file or directory\n", path);
        return 2;
    }
    if (!S_ISDIR(sb.st_mode))
        return attach_one(st, path);
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "tprof: --capture %s: cannot read the directory\n", path);
        return 2;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int status = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!is_trace_name(e->d_name))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            char **p = realloc(names, cap * sizeof *p);
            if (!p) { status = 2; break; }
            names = p;
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        if (!(names[n] = malloc(len))) { status = 2; break; }
        snprintf(names[n++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    if (status)
        fprintf(stderr, "tprof: out of memory\n");
    else if (n == 0) {
        fprintf(stderr, "tprof: --capture %s: no trace in the directory\n", path);
        status = 2;
    }
    if (names)
        qsort(names, n, sizeof *names, cmp_str);   /* a stable order: captures are matched in turn */
    for (size_t i = 0; i < n; i++) {
        if (!status && attach_one(st, names[i]))
            status = 2;
        free(names[i]);
    }
    free(names);
    return status;
}
