/* store_file_lazy_test.c — a .tprof store read lazily (store_file_lazy.c):
 * its columns stay unread until asked for, then equal the trace's; one
 * read without being asked for stops the process with its name; a damaged
 * or cut column is reported when it is asked for, naming the file and the
 * section; a store without the attribution is read whole. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include "store_file_int.h"
#include "tbtree.h"
#include "testing.h"

#define TRACE "testdata/sample.pt.trace.json"

static tp_store *load(const char *path, int lazy, tp_error *err)
{
    tp_store *st = tp_store_new();
    if (!st)
        return NULL;
    if (lazy)
        tp_store_set_lazy(st);
    if (tp_store_load(st, path, err) != TP_OK || tp_store_link(st, err) != TP_OK) {
        tp_store_free(st);
        return NULL;
    }
    return st;
}

static int spill(const char *path, const unsigned char *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(b, 1, len, f) == len;
    if (f)
        ok &= fclose(f) == 0;
    return ok ? 0 : -1;
}

static uint32_t u32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t u64(const unsigned char *p) { return (uint64_t)u32(p) | (uint64_t)u32(p + 4) << 32; }

/* Section `name` of a store file: the offset of its header, NULL none. */
static size_t find(const unsigned char *b, size_t len, const char *name, size_t *zat, size_t *zlen)
{
    size_t p = 16;
    while (p + 2 <= len) {
        size_t nlen = (size_t)b[p] | (size_t)b[p + 1] << 8;
        if (!nlen)
            break;
        size_t z = p + 2 + nlen + 28, zl = (size_t)u64(b + p + 2 + nlen + 16);
        if (nlen == strlen(name) && memcmp(b + p + 2, name, nlen) == 0) {
            *zat = z;
            *zlen = zl;
            return p;
        }
        p = z + zl;
    }
    return 0;
}

/* The file with section `name` rewritten: its frame cut to `keep` bytes,
 * header and CRC made to match (a cut that only the inflating finds); or
 * with sections whose name starts with `drop` left out. */
static unsigned char *rewrite(const unsigned char *b, size_t len, const char *name, size_t keep, const char *drop,
                              size_t *olen)
{
    unsigned char *o = malloc(len);
    if (!o)
        return NULL;
    memcpy(o, b, 16);
    size_t p = 16, q = 16;
    for (;;) {
        size_t nlen = (size_t)b[p] | (size_t)b[p + 1] << 8;
        if (!nlen) {
            memcpy(o + q, b + p, len - p);
            q += len - p;
            break;
        }
        size_t h = 2 + nlen + 28, zl = (size_t)u64(b + p + 2 + nlen + 16);
        if (drop && strncmp((const char *)b + p + 2, drop, strlen(drop)) == 0) {
            p += h + zl;
            continue;
        }
        memcpy(o + q, b + p, h + zl);
        if (name && nlen == strlen(name) && memcmp(b + p + 2, name, nlen) == 0) {
            unsigned char *hd = o + q;
            for (int i = 0; i < 8; i++)
                hd[2 + nlen + 16 + i] = (unsigned char)((uint64_t)keep >> (8 * i));
            uLong crc = crc32(crc32(0L, hd, (uInt)(2 + nlen + 24)), hd + h, (uInt)keep);
            for (int i = 0; i < 4; i++)
                hd[2 + nlen + 24 + i] = (unsigned char)(crc >> (8 * i));
            q += h + keep;
        } else {
            q += h + zl;
        }
        p += h + zl;
    }
    *olen = q;
    return o;
}

/* Read st->ts[0] in a child: it must stop with the column's name. */
static void stray_read(tp_store *st)
{
    int fds[2];
    if (pipe(fds) != 0) {
        SKIP("lazy.stray_read", "no pipe");
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        volatile int64_t v = st->ts[0];
        (void)v;
        _exit(0);                       /* read silently: the failure */
    }
    close(fds[1]);
    char msg[512] = {0};
    size_t got = 0;
    ssize_t k;
    while (got + 1 < sizeof msg && (k = read(fds[0], msg + got, sizeof msg - 1 - got)) > 0)
        got += (size_t)k;
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK("lazy.stray_read_stops", WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    CHECK("lazy.stray_read_names_column", strstr(msg, "internal error: ev.ts of ") != NULL);
}

int main(void)
{
    char path[64];
    if (tt_tmpfile(path, sizeof path, "lazy") < 0)
        TEST_EXIT();
    tp_error err = {0};
    tp_store *js = load(TRACE, 0, &err);
    CHECK("lazy.saved", js && tp_store_save(js, NULL, path, &err) == TP_OK);
    tp_store *ls = load(path, 1, &err);
    tp_store *es = load(path, 0, &err);
    CHECK("lazy.loaded", ls && es);
    if (!js || !ls || !es) {
        tp_store_free(js);
        tp_store_free(ls);
        tp_store_free(es);
        unlink(path);
        TEST_EXIT();
    }
    const struct tp_sf_lazy *L = ls->models[TP_MODEL_FILE].p, *E = es->models[TP_MODEL_FILE].p;
    CHECK("lazy.nothing_read_yet", !tp_sf_lazy_loaded(L, "ev.ts") && !tp_sf_lazy_loaded(L, "ev.name") &&
                                       !tp_sf_lazy_loaded(L, "link.parent") && !tp_sf_lazy_loaded(L, "opt.attr.op"));
    CHECK("lazy.eager_reads_all", tp_sf_lazy_loaded(E, "ev.ts") && tp_sf_lazy_loaded(E, "opt.attr.op"));
    CHECK("lazy.counts_known", ls->n == js->n && ls->nkernels == js->nkernels && ls->nops == js->nops);
    CHECK("lazy.attr_totals", ls->attr.kernels == js->attr.kernels && ls->attr.kernel_ns == js->attr.kernel_ns &&
                                  memcmp(ls->attr.cause_ns, js->attr.cause_ns, sizeof js->attr.cause_ns) == 0 &&
                                  ls->attr.host_ops == js->attr.host_ops);
    stray_read(ls);
    CHECK("lazy.need_ok", tp_store_need(ls, TP_NEED_TS | TP_NEED_NAME | TP_NEED_PARENT | TP_NEED_ATTR_OP, &err) == TP_OK);
    CHECK("lazy.need_reads_those", tp_sf_lazy_loaded(L, "ev.ts") && tp_sf_lazy_loaded(L, "ev.name") &&
                                       tp_sf_lazy_loaded(L, "link.parent") && tp_sf_lazy_loaded(L, "opt.attr.op"));
    CHECK("lazy.need_only_those", !tp_sf_lazy_loaded(L, "ev.dur") && !tp_sf_lazy_loaded(L, "opt.attr.cause"));
    size_t n = js->n;
    CHECK("lazy.ts_equal", memcmp(ls->ts, js->ts, n * sizeof *js->ts) == 0);   /* (stored as differences) */
    CHECK("lazy.name_equal", memcmp(ls->name, js->name, n * sizeof *js->name) == 0);
    CHECK("lazy.parent_equal", memcmp(ls->parent, js->parent, n * sizeof *js->parent) == 0);
    size_t nd = js->ndev;
    CHECK("lazy.ndev_equal", ls->ndev == nd);
    CHECK("lazy.attr_op_equal", memcmp(ls->attr.dev_op, js->attr.dev_op, nd * sizeof *js->attr.dev_op) == 0);
    CHECK("lazy.need_again_ok", tp_store_need(ls, TP_NEED_ALL, &err) == TP_OK);
    CHECK("lazy.all_equal", memcmp(ls->kind, js->kind, n) == 0 && memcmp(ls->dur, js->dur, n * 8) == 0 &&
                                memcmp(ls->aux, js->aux, n * 4) == 0 &&
                                memcmp(ls->dev_launcher, js->dev_launcher, nd * sizeof *js->dev_launcher) == 0 &&
                                memcmp(ls->attr.dev_cause, js->attr.dev_cause, nd) == 0);
    /* the model from the file asks for the rows it reads itself */
    tp_store *ms = load(path, 1, &err);
    struct tb_model *m = ms ? tp_store_file_tree(ms) : NULL;
    CHECK("lazy.tree_needs_its_rows", m && tp_sf_lazy_loaded(ms->models[TP_MODEL_FILE].p, "ev.ts") &&
                                          !tp_sf_lazy_loaded(ms->models[TP_MODEL_FILE].p, "ev.name"));
    if (m)
        tp_tb_model_delete(m);
    tp_store_free(ms);

    size_t len, zat, zlen;
    unsigned char *b = (unsigned char *)tt_read_file(path, &len);
    size_t at = b ? find(b, len, "ev.dur", &zat, &zlen) : 0;
    CHECK("lazy.found_section", at > 0 && zlen > 8);
    if (at && zlen > 8) {
        char dpath[sizeof path + 8];
        snprintf(dpath, sizeof dpath, "%s.bad", path);
        /* a flipped byte in ev.dur: the store loads; asking for ev.dur says
         * where and what, every time; a whole read refuses the store */
        b[zat + zlen / 2] ^= 0x55;
        spill(dpath, b, len);
        b[zat + zlen / 2] ^= 0x55;
        tp_error e = {0};
        tp_store *ds = load(dpath, 1, &e);
        CHECK("lazy.damaged_loads", ds != NULL);
        char want[600];
        snprintf(want, sizeof want, "%s: byte %zu: checksum mismatch: the file is damaged (section ev.dur)", dpath, at);
        if (ds) {
            CHECK_INT("lazy.damaged_refused", tp_store_need(ds, TP_NEED_DUR | TP_NEED_NAME, &e), TP_ERR_IO);
            CHECK_STR("lazy.damaged_message", e.msg, want);
            e = (tp_error){0};
            CHECK_INT("lazy.damaged_refused_again", tp_store_need(ds, TP_NEED_DUR, &e), TP_ERR_IO);
            CHECK("lazy.other_columns_fine", tp_store_need(ds, TP_NEED_TS, &e) == TP_OK);
            tp_store_free(ds);
        }
        e = (tp_error){0};
        CHECK("lazy.damaged_eager_refused", load(dpath, 0, &e) == NULL);
        CHECK_STR("lazy.damaged_eager_message", e.msg, want);
        /* ev.dur's frame cut in half, with a header and CRC that agree: only
         * inflating it finds out */
        size_t clen;
        unsigned char *c = rewrite(b, len, "ev.dur", zlen / 2, NULL, &clen);
        if (c && spill(dpath, c, clen) == 0 && (ds = load(dpath, 1, &e)) != NULL) {
            e = (tp_error){0};
            CHECK_INT("lazy.cut_refused", tp_store_need(ds, TP_NEED_DUR, &e), TP_ERR_IO);
            snprintf(want, sizeof want, "%s: byte %zu: ", dpath, at);
            CHECK("lazy.cut_message", strncmp(e.msg, want, strlen(want)) == 0 &&
                                          strstr(e.msg, "(section ev.dur)") != NULL);
            tp_store_free(ds);
        } else {
            CHECK("lazy.cut_loads", 0);
        }
        free(c);
        /* without the attribution (a store written before it was saved) the
         * store is read whole, and the linker computes it */
        c = rewrite(b, len, NULL, 0, "opt.attr.", &clen);
        if (c && spill(dpath, c, clen) == 0 && (ds = load(dpath, 1, &e)) != NULL) {
            CHECK("lazy.no_attr_reads_all", tp_sf_lazy_loaded(ds->models[TP_MODEL_FILE].p, "ev.ts") &&
                                                ds->attr.dev_op && ds->attr.kernels == js->attr.kernels &&
                                                memcmp(ds->attr.dev_op, js->attr.dev_op,
                                                       js->ndev * sizeof *js->attr.dev_op) == 0);
            tp_store_free(ds);
        } else {
            CHECK("lazy.no_attr_loads", 0);
        }
        free(c);
        unlink(dpath);
    }
    free(b);
    tp_store_free(js);
    tp_store_free(ls);
    tp_store_free(es);
    unlink(path);
    TEST_EXIT();
}
