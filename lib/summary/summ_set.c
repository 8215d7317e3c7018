/* summ_set.c — a set of summary files (a directory of them, or a list) as
 * one run: loaded and merged in rank order. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "summ.h"
#include "cmp.h"
#include "dir.h"
#include "grow.h"

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

static int sqlite_magic(const char *path)
{
    char buf[16];
    FILE *f = fopen(path, "rb");
    int ok = f && fread(buf, 1, 16, f) == 16 && memcmp(buf, "SQLite format 3", 16) == 0;
    if (f)
        fclose(f);
    return ok;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The summary files of a directory, sorted by name (*others: it holds other
 * files too); -1 on out of memory. */
static long list_dir(const char *dir, char ***out, int *others)
{
    DIR *d = opendir(dir);
    char **v = NULL;
    size_t n = 0, cap = 0;
    *others = 0;
    if (!d)
        return 0;
    struct dirent *e;
    char full[4200];
    struct stat sb;
    while ((e = tp_dir_next(d, dir, full, sizeof full, &sb))) {
        if (!S_ISREG(sb.st_mode))
            continue;
        if (!ends_with(e->d_name, ".tpsum") || !sqlite_magic(full)) {
            *others = 1;
            continue;
        }
        if (tp_grow((void **)&v, &cap, n + 1, sizeof *v) < 0)
            goto oom;
        if (!(v[n] = strdup(full)))
            goto oom;
        n++;
    }
    closedir(d);
    if (n > 0)
        qsort(v, n, sizeof *v, cmp_str);
    *out = v;
    return (long)n;
oom:
    closedir(d);
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return -1;
}

int tp_path_is_summary(const char *path)
{
    struct stat sb;
    if (!path || stat(path, &sb) != 0)
        return 0;
    if (S_ISREG(sb.st_mode))
        return ends_with(path, ".tpsum") && sqlite_magic(path);
    if (!S_ISDIR(sb.st_mode))
        return 0;
    char **v = NULL;
    int others = 0;
    long n = list_dir(path, &v, &others);
    for (long i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return n > 0 && !others ? 2 : 0;
}

/* A file of the set: its path, its rank (from its metadata), its order. */
struct member { char *path; int64_t rank; char *source; size_t i; };

static int cmp_rank(const void *a, const void *b)
{
    const struct member *x = a, *y = b;
    int64_t rx = x->rank, ry = y->rank;
    int ax = rx == INT64_MIN, ay = ry == INT64_MIN;   /* no rank: after the ranked ones */
    if (ax != ay) return ax - ay;
    if (rx != ry) return rx < ry ? -1 : 1;
    return TP_CMP(x->i, y->i);
}

int tp_summary_load_set(const char *const *paths, size_t n, tp_summary **out, tp_error *err)
{
    return tp_summary_load_set_view(paths, n, NULL, out, err);
}

/* Two passes, so that memory is one summary and the merge, whatever the
 * number of files: the metadata of every file first (their rank order and
 * the duplicate check), then each file's sections merged in that order and
 * freed. */
int tp_summary_load_set_view(const char *const *paths, size_t n, const char *view, tp_summary **out,
                             tp_error *err)
{
    *out = NULL;
    struct member *v = NULL;
    size_t nv = 0, cap = 0;
    int rc = TP_OK;
    char dirlabel[1024] = "";
    for (size_t p = 0; p < n && rc == TP_OK; p++) {
        char **files = NULL;
        int others = 0;
        long nf = 1;
        struct stat sb;
        if (stat(paths[p], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            nf = list_dir(paths[p], &files, &others);
            if (nf < 0) {
                rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
                break;
            }
            if (nf == 0)
                rc = tp_error_set(err, TP_ERR_FORMAT, "%s: no summary file (*.tpsum) in it", paths[p]);
            if (!dirlabel[0])
                snprintf(dirlabel, sizeof dirlabel, "%s", paths[p]);
        }
        for (long f = 0; f < nf && rc == TP_OK; f++) {
            if (tp_grow((void **)&v, &cap, nv + 1, sizeof *v) < 0) {
                rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
                break;
            }
            tp_summary *meta = NULL;
            const char *path = files ? files[f] : paths[p];
            rc = tp_summ_load(path, NULL, 1, &meta, err);
            if (rc != TP_OK)
                break;
            v[nv] = (struct member){strdup(path), meta->meta.rank, strdup(meta->meta.source), nv};
            tp_summary_free(meta);
            if (!v[nv].path || !v[nv].source) {
                free(v[nv].path);
                free(v[nv].source);
                rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
                break;
            }
            nv++;
        }
        for (long f = 0; files && f < nf; f++)
            free(files[f]);
        free(files);
    }
    if (rc == TP_OK && nv == 0)
        rc = tp_error_set(err, TP_ERR_USAGE, "no summary file given");
    if (rc == TP_OK) {
        if (nv > 0)
            qsort(v, nv, sizeof *v, cmp_rank);
        for (size_t i = 1; i < nv && rc == TP_OK; i++)
            if (v[i].rank != INT64_MIN && v[i].rank == v[i - 1].rank)
                rc = tp_error_set(err, TP_ERR_FORMAT, "%s and %s: both summarize rank %lld", v[i - 1].source,
                                  v[i].source, (long long)v[i].rank);
    }
    tp_summary *m = NULL;
    for (size_t i = 0; i < nv && rc == TP_OK; i++) {
        tp_summary *s = NULL;
        rc = tp_summ_load(v[i].path, view, 0, &s, err);
        if (rc == TP_OK && !m)
            m = s;
        else if (rc == TP_OK)
            rc = tp_summary_merge(m, s, err);   /* frees s */
    }
    for (size_t i = 0; i < nv; i++) {
        free(v[i].path);
        free(v[i].source);
    }
    free(v);
    if (rc != TP_OK) {
        tp_summary_free(m);
        return rc;
    }
    /* the notes name the run the files came from, else the directory given */
    if (!m->meta.run[0] && dirlabel[0])
        snprintf(m->meta.run, sizeof m->meta.run, "%s", dirlabel);
    *out = m;
    return TP_OK;
}
