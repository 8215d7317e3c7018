/* summ_set.c — a set of summary files (a directory of them, or a list) as
 * one run: loaded and merged in rank order. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "summ.h"

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
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char full[4200];
        snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(full, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        if (!ends_with(e->d_name, ".tpsum") || !sqlite_magic(full)) {
            *others = 1;
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **p = realloc(v, cap * sizeof *p);
            if (!p)
                goto oom;
            v = p;
        }
        if (!(v[n] = strdup(full)))
            goto oom;
        n++;
    }
    closedir(d);
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

struct loaded { tp_summary *s; size_t i; };

static int cmp_rank(const void *a, const void *b)
{
    const struct loaded *x = a, *y = b;
    int64_t rx = x->s->meta.rank, ry = y->s->meta.rank;
    int ax = rx == INT64_MIN, ay = ry == INT64_MIN;   /* no rank: after the ranked ones */
    if (ax != ay) return ax - ay;
    if (rx != ry) return rx < ry ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

int tp_summary_load_set(const char *const *paths, size_t n, tp_summary **out, tp_error *err)
{
    *out = NULL;
    struct loaded *v = NULL;
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
            if (nv == cap) {
                cap = cap ? cap * 2 : 16;
                struct loaded *q = realloc(v, cap * sizeof *q);
                if (!q) {
                    rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
                    break;
                }
                v = q;
            }
            rc = tp_summary_load(files ? files[f] : paths[p], &v[nv].s, err);
            if (rc == TP_OK) {
                v[nv].i = nv;
                nv++;
            }
        }
        for (long f = 0; files && f < nf; f++)
            free(files[f]);
        free(files);
    }
    if (rc == TP_OK && nv == 0)
        rc = tp_error_set(err, TP_ERR_USAGE, "no summary file given");
    if (rc == TP_OK) {
        qsort(v, nv, sizeof *v, cmp_rank);
        for (size_t i = 1; i < nv; i++)
            if (v[i].s->meta.rank != INT64_MIN && v[i].s->meta.rank == v[i - 1].s->meta.rank) {
                rc = tp_error_set(err, TP_ERR_FORMAT, "%s and %s: both summarize rank %lld", v[i - 1].s->meta.source,
                                  v[i].s->meta.source, (long long)v[i].s->meta.rank);
                break;
            }
    }
    tp_summary *m = NULL;
    for (size_t i = 0; i < nv; i++) {
        if (rc != TP_OK) {
            tp_summary_free(v[i].s);
        } else if (!m) {
            m = v[i].s;
        } else {
            rc = tp_summary_merge(m, v[i].s, err);   /* frees v[i].s */
        }
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
