/* sqlite_scan.c — SELECT cols FROM table ORDER BY rowid without SQLite's
 * virtual machine.  On a million-kernel nvprof dump, stepping the 22 M
 * runtime and marker rows through sqlite3_step and a dozen sqlite3_column_*
 * calls a row was 40 % of tprof's CPU; the rows are plain records on leaf
 * pages, and decoding a record's header is a few dozen instructions.
 *
 * Only for a table tp_sqlite_fast_check has just passed (its pages, cells,
 * overflow chains and records proven), in a database opened read-only and
 * immutable, read through SQLite's own file handle like the check (no second
 * open, no mmap: a file that shrinks gives an I/O error, never SIGBUS).  The
 * reads are still bounds-checked one by one: a file changed behind the
 * immutable promise ends the scan with TP_SQ_BROKEN, never a wild read.
 *
 * The leaves are found a level at a time from the root, each level in key
 * order; they are then read in key order, a window of pages at a time where
 * they also lie in file order (as a table written by appending does). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sqlite_page.h"
#include "sqlite_scan.h"

/* WINDOW: a read of 256 KiB stays in the core's L2 cache while its pages
 * are gone through (1 MiB did not: 3 % more CPU on the 1.35 GB dump) */
enum { WINDOW = 1 << 18, SLACK = 64, MAX_LEVELS = 20, HEADERS = 8, HMAX = 64, MAX_WANT = 32 };

struct hdr {
    uint64_t hsize, end;                /* hsize 0: unused */
    unsigned char h[HMAX];
    uint64_t type[MAX_WANT];
    uint32_t off[MAX_WANT];
};

struct scan {
    sqlite3_file *f;
    uint32_t psize, usable, npage;
    unsigned char *win, *page, *ovf;   /* the window of leaves; one page; an overflowing record */
    size_t covf;
    int64_t woff;
    size_t wlen;
    uint32_t *pages;                   /* the tree a level after another, each in key order */
    size_t npages, cpages;
    uint32_t *cur;                     /* the leaves: the last level */
    size_t ncur;
    int ncol, alias;                   /* alias: the record field of the rowid alias */
    int *slot;                         /* record field -> index in cols, or -1 */
    int nwant;
    struct tp_sq_val *vals;
    struct hdr seen[HEADERS], scratch;
    unsigned last, next_seen;
};

/* Record fields of the columns wanted; cols[0] the rowid alias.  -1 when
 * the table is not one this models (hidden columns, another key), -2 out
 * of memory. */
static int map_columns(struct scan *s, sqlite3 *db, const char *table, const char *const *cols)
{
    int nwant = 0;
    while (cols[nwant])
        nwant++;
    s->nwant = nwant;
    if (nwant == 0 || nwant > MAX_WANT || !(s->vals = calloc((size_t)nwant, sizeof *s->vals)))
        return nwant == 0 || nwant > MAX_WANT ? -1 : -2;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT name, type, pk, hidden FROM pragma_table_xinfo(?1)", -1, &st, NULL) !=
        SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int rc, bad = 0, cap = 0, npk = 0, found = 0;
    s->alias = -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && !bad) {
        if (s->ncol == cap) {
            cap = cap ? cap * 2 : 32;
            void *p = realloc(s->slot, (size_t)cap * sizeof *s->slot);
            if (!p) {
                sqlite3_finalize(st);
                return -2;
            }
            s->slot = p;
        }
        const char *name = (const char *)sqlite3_column_text(st, 0), *type = (const char *)sqlite3_column_text(st, 1);
        int j = s->ncol++;
        s->slot[j] = -1;
        bad = sqlite3_column_int(st, 3) != 0;     /* hidden or generated: not in every record */
        npk += sqlite3_column_int(st, 2) > 0;
        for (int k = 0; name && k < nwant; k++)
            if (strcasecmp(name, cols[k]) == 0 && s->slot[j] < 0) {
                s->slot[j] = k;
                found++;
                if (k == 0 && sqlite3_column_int(st, 2) > 0 && type && strcasecmp(type, "INTEGER") == 0)
                    s->alias = j;
            }
    }
    sqlite3_finalize(st);
    if (bad || rc != SQLITE_DONE || found != nwant || npk != 1 || s->alias < 0)
        return -1;
    /* AUTOINCREMENT is only allowed on the rowid alias: then cols[0] is
     * the rowid, and records store NULL in its place */
    int autoinc = 0, primary = 0;
    if (sqlite3_table_column_metadata(db, "main", table, cols[0], NULL, NULL, NULL, &primary, &autoinc) != SQLITE_OK ||
        !primary || !autoinc)
        return -1;
    return 0;
}

/* -1: not a file or table this models; -2: out of memory. */
static int setup(struct scan *s, sqlite3 *db, const char *table, const char *const *cols, uint32_t *root)
{
    struct tp_sq_file pf;
    if (tp_sq_file_open(db, table, &pf) < 0)
        return -1;
    s->f = pf.f;
    s->psize = pf.psize;
    s->usable = pf.usable;
    s->npage = pf.npage;
    int64_t rp = tp_sq_int_of(db, "SELECT rootpage FROM main.sqlite_master WHERE type = 'table' AND name = ?1", table);
    /* tp_sq_get4(h + 56): the text encoding, 1 for UTF-8 (what a text value's bytes are) */
    if (tp_sq_get4(pf.h + 56) != 1 || rp <= 0 || rp > s->npage)
        return -1;
    *root = (uint32_t)rp;
    s->win = malloc(WINDOW + SLACK);
    s->page = malloc((size_t)s->psize + SLACK);
    if (!s->win || !s->page)
        return -2;
    memset(s->page + s->psize, 0, SLACK);
    return map_columns(s, db, table, cols);
}

static int read_at(struct scan *s, unsigned char *buf, size_t n, uint32_t pgno)
{
    return s->f->pMethods->xRead(s->f, buf, (int)n, (int64_t)(pgno - 1) * s->psize) == SQLITE_OK ? 0 : -1;
}

static int push(struct scan *s, uint32_t pgno)
{
    if (pgno == 0 || pgno > s->npage || s->npages >= s->npage)
        return -1;
    if (s->npages == s->cpages) {
        size_t nc = s->cpages ? s->cpages * 2 : 256;
        void *p = realloc(s->pages, nc * sizeof *s->pages);
        if (!p)
            return -2;
        s->pages = p;
        s->cpages = nc;
    }
    s->pages[s->npages++] = pgno;
    return 0;
}

/* The table's leaves in key order into s->cur: -1 broken, -2 out of memory.
 * Each level's children are appended after it: the level [lo, hi) of
 * s->pages gives [hi, npages). */
static int find_leaves(struct scan *s, uint32_t root)
{
    int e = push(s, root);
    for (size_t lo = 0, hi = s->npages, level = 0; !e; lo = hi, hi = s->npages, level++) {
        if (level >= MAX_LEVELS || lo == hi)
            return -1;
        for (size_t i = lo; i < hi && !e; i++) {
            uint32_t pgno = s->pages[i], hdr = pgno == 1 ? 100 : 0;
            if (read_at(s, s->page, s->psize, pgno) < 0)
                return -1;
            const unsigned char *d = s->page + hdr;
            if (d[0] == 13 && i == lo) {
                s->cur = s->pages + lo;    /* this level is the leaves (each is tested when read) */
                s->ncur = hi - lo;
                return 0;
            }
            uint32_t ncell = tp_sq_get2(d + 3);
            if (d[0] != 5 || hdr + 12 + 2 * ncell > s->usable)
                return -1;
            for (uint32_t c = 0; c < ncell && !e; c++) {
                uint32_t pc = tp_sq_get2(d + 12 + 2 * c);
                e = pc + 4 > s->usable ? -1 : push(s, tp_sq_get4(s->page + pc));
            }
            if (!e)
                e = push(s, tp_sq_get4(d + 8));
        }
    }
    return e;
}

/* Leaf i of s->cur, read with the leaves after it that follow it in the
 * file, up to WINDOW bytes. */
static const unsigned char *leaf_at(struct scan *s, size_t i)
{
    uint32_t pgno = s->cur[i];
    int64_t off = (int64_t)(pgno - 1) * s->psize;
    if (s->wlen && off >= s->woff && off + s->psize <= s->woff + (int64_t)s->wlen)
        return s->win + (off - s->woff);
    uint32_t wpages = WINDOW / s->psize, last = pgno;
    for (size_t j = i + 1; j < s->ncur && s->cur[j] > s->cur[j - 1] && s->cur[j] - pgno < wpages; j++)
        last = s->cur[j];
    size_t n = (size_t)(last - pgno + 1) * s->psize;
    s->wlen = 0;
    if (s->f->pMethods->xRead(s->f, s->win, (int)n, off) != SQLITE_OK)
        return NULL;
    memset(s->win + n, 0, SLACK);
    s->woff = off;
    s->wlen = n;
    return s->win;
}

/* The npayload bytes of a record whose first nlocal lie at local and the
 * rest on the overflow chain from pgno; NULL broken (*oom on out of memory). */
static const unsigned char *gather(struct scan *s, const unsigned char *local, uint32_t nlocal, uint64_t npayload,
                                   uint32_t pgno, int *oom)
{
    if (npayload > (uint64_t)1 << 31)
        return NULL;
    if (s->covf < npayload + SLACK) {
        void *p = realloc(s->ovf, npayload + SLACK);
        if (!p) {
            *oom = 1;
            return NULL;
        }
        s->ovf = p;
        s->covf = npayload + SLACK;
    }
    memcpy(s->ovf, local, nlocal);
    memset(s->ovf + npayload, 0, SLACK);
    uint64_t have = nlocal;
    while (have < npayload) {
        if (pgno == 0 || pgno > s->npage || read_at(s, s->page, s->psize, pgno) < 0)
            return NULL;
        uint64_t take = npayload - have < s->usable - 4 ? npayload - have : s->usable - 4;
        memcpy(s->ovf + have, s->page + 4, take);
        have += take;
        pgno = tp_sq_get4(s->page);
    }
    return s->ovf;
}

/* A big-endian two's complement integer of serial type t (1..6: 1, 2, 3,
 * 4, 6 or 8 bytes). */
static int64_t be_int(const unsigned char *p, uint64_t t)
{
    switch (t) {
    case 1: return (int8_t)p[0];
    case 2: return (int16_t)tp_sq_get2(p);
    case 3: return (int32_t)(tp_sq_get4(p) & 0xffffff00) >> 8;
    case 4: return (int32_t)tp_sq_get4(p);
    case 5: return (int64_t)(((uint64_t)tp_sq_get2(p) << 48 | (uint64_t)tp_sq_get4(p + 2) << 16)) >> 16;
    default: return (int64_t)((uint64_t)tp_sq_get4(p) << 32 | tp_sq_get4(p + 4));
    }
}

/* A record header read once: the serial type and offset of each wanted
 * field.  The rows of a table mostly share a few headers (the same
 * columns, numbers of the same widths), so a header seen before costs a
 * memcmp instead of a varint a field. */
static int parse_header(struct scan *s, const unsigned char *rec, uint64_t hsize, int n, struct hdr *h)
{
    static const unsigned char len[10] = { 0, 1, 2, 3, 4, 6, 8, 8, 0, 0 };
    uint64_t off = hsize, pos = (uint64_t)n, t;
    int j = 0;
    for (; pos < hsize && j < s->ncol; j++) {
        if (rec[pos] < 0x80)
            t = rec[pos++];
        else
            pos += (uint64_t)tp_sq_varint(rec + pos, &t);
        if (t == 10 || t == 11)
            return -1;
        uint64_t size = t < 12 ? len[t] : (t - 12) / 2;
        int k = s->slot[j];
        if (k >= 0) {
            h->type[k] = t;
            h->off[k] = off;
        }
        off += size;
    }
    if (j != s->ncol || pos != hsize)
        return -1;
    h->hsize = hsize;
    h->end = off;
    return 0;
}

static void set_val(struct tp_sq_val *v, uint64_t t, const unsigned char *p)
{
    v->p = NULL;
    v->n = 0;
    if (t == 0) {
        v->type = SQLITE_NULL;
    } else if (t <= 6 || t == 8 || t == 9) {
        v->type = SQLITE_INTEGER;
        v->i = t <= 6 ? be_int(p, t) : t == 9;
    } else if (t == 7) {
        uint64_t b = (uint64_t)be_int(p, 6);
        v->type = SQLITE_FLOAT;
        memcpy(&v->f, &b, sizeof v->f);
    } else {
        v->type = t & 1 ? SQLITE_TEXT : SQLITE_BLOB;
        v->p = p;
        v->n = (int)((t - 12) / 2);
    }
}

/* The header of one record (s->seen, parsed when new); NULL when it is not
 * a record of the table's columns. */
static const struct hdr *header(struct scan *s, const unsigned char *rec, uint64_t npayload)
{
    uint64_t hsize;
    int n = tp_sq_varint(rec, &hsize);
    if (hsize < (uint64_t)n || hsize > npayload)
        return NULL;
    struct hdr *h = NULL;
    for (int i = 0; i < HEADERS && !h; i++) {
        struct hdr *c = &s->seen[(s->last + i) % HEADERS];
        if (c->hsize == hsize && tp_sq_same_bytes(c->h, rec, hsize)) {
            h = c;
            s->last = (s->last + i) % HEADERS;
        }
    }
    if (!h) {
        h = hsize <= HMAX ? &s->seen[s->next_seen++ % HEADERS] : &s->scratch;
        h->hsize = 0;
        if (parse_header(s, rec, hsize, n, h) < 0)
            return NULL;
        if (h != &s->scratch)
            memcpy(h->h, rec, hsize);
        else
            h->hsize = 0;      /* never matched */
    }
    /* every field's bytes inside the record: the last ends at h->end */
    return h->end <= npayload ? h : NULL;
}


/* Every cell of every leaf, in key order. */
static int scan_leaves(struct scan *s, const struct tp_sq_scan *how, int64_t *rows)
{
    int gate = how->pass ? how->gate : -1, ka = s->slot[s->alias];
    /* the rowid alias is stored as NULL: its value is the rowid */
    s->vals[ka] = (struct tp_sq_val){ .type = SQLITE_INTEGER };
    uint32_t usable = s->usable, maxlocal = usable - 35, minlocal = (usable - 12) * 32 / 255 - 23;
    int64_t prev = INT64_MIN;
    for (size_t i = 0; i < s->ncur; i++) {
        const unsigned char *page = leaf_at(s, i);
        if (!page)
            return TP_SQ_BROKEN;
        uint32_t hdr = s->cur[i] == 1 ? 100 : 0;
        const unsigned char *d = page + hdr;
        uint32_t ncell = tp_sq_get2(d + 3);
        if (d[0] != 13 || hdr + 8 + 2 * ncell > usable)
            return TP_SQ_BROKEN;
        for (uint32_t c = 0; c < ncell; c++) {
            uint32_t pc = tp_sq_get2(d + 8 + 2 * c);
            if (pc + 4 > usable)
                return TP_SQ_BROKEN;
            uint64_t npayload, key;
            uint32_t at = pc + (uint32_t)tp_sq_varint(page + pc, &npayload);
            at += (uint32_t)tp_sq_varint(page + at, &key);
            uint32_t nlocal = npayload <= maxlocal ? (uint32_t)npayload : 0;
            if (npayload > maxlocal) {
                uint32_t surplus = minlocal + (uint32_t)((npayload - minlocal) % (usable - 4));
                nlocal = surplus <= maxlocal ? surplus : minlocal;
            }
            int64_t rowid = (int64_t)key;
            if (at + nlocal + (npayload > nlocal ? 4 : 0) > usable || rowid <= prev)
                return TP_SQ_BROKEN;
            prev = rowid;
            const unsigned char *rec = page + at;
            if (npayload > nlocal) {
                int oom = 0;
                rec = gather(s, rec, nlocal, npayload, tp_sq_get4(rec + nlocal), &oom);
                if (!rec)
                    return oom ? TP_SQ_NOMEM : TP_SQ_BROKEN;
                /* the page buffer held the chain: the leaf is in the window still */
            }
            const struct hdr *h = header(s, rec, npayload);
            if (!h)
                return TP_SQ_BROKEN;
            ++*rows;
            s->vals[ka].i = rowid;
            if (gate >= 0) {
                if (gate != ka)
                    set_val(&s->vals[gate], h->type[gate], rec + h->off[gate]);
                if (!how->pass(how->ctx, &s->vals[gate]))
                    continue;
            }
            for (int k = 0; k < s->nwant; k++)
                if (k != gate && k != ka)
                    set_val(&s->vals[k], h->type[k], rec + h->off[k]);
            if (how->row(how->ctx, rowid, s->vals))
                return TP_SQ_STOPPED;
        }
    }
    return TP_SQ_DONE;
}

int tp_sqlite_scan(sqlite3 *db, const char *table, const struct tp_sq_scan *how, int64_t *rows)
{
    struct scan s = {0};
    uint32_t root = 0;
    *rows = 0;
    int rc = setup(&s, db, table, how->cols, &root);
    if (rc == 0 && how->pass && (how->gate < 0 || how->gate >= s.nwant))
        rc = -1;
    if (rc == 0) {
        rc = find_leaves(&s, root);
        rc = rc == 0 ? scan_leaves(&s, how, rows) : rc == -2 ? TP_SQ_NOMEM : TP_SQ_BROKEN;
    } else {
        rc = rc == -2 ? TP_SQ_NOMEM : TP_SQ_CANNOT;
    }
    free(s.win);
    free(s.page);
    free(s.ovf);
    free(s.pages);
    free(s.slot);
    free(s.vals);
    return rc;
}
