/* sqlite_check.c — PRAGMA quick_check(table) costs as much as reading the
 * table twice: SQLite walks the table's and its indexes' b-trees page by
 * page (checkTreePage), then steps through every row again, decoding each
 * column's type to find NULLs in NOT NULL columns and text where a number
 * belongs.  On a million-kernel nvprof dump that was 2.3 s of 8.
 *
 * This file does the same checks in one pass over the raw pages, read in
 * file order through SQLite's own file handle (no second open, no mmap: a
 * file that shrinks gives an I/O error, never SIGBUS), a level of the trees
 * at a time, and it is built to be at least as strict as quick_check, never
 * less: every test below is quick_check's (page header, free blocks, cell
 * bounds, bytes used twice or lost, rowid order against the parent's keys,
 * pages reached twice or out of range, overflow chain lengths, leaves at one
 * depth; per row: a header that adds up to the record, NULL in a NOT NULL
 * column, a number in a TEXT column, text in a numeric column) or stricter
 * (a page of the wrong kind in a tree, an empty non-root page, a record with
 * more or fewer fields than columns, text that quick_check would accept
 * because it does not look like a number).  Anything it does not model (an
 * auto-vacuum file, a STRICT or WITHOUT ROWID table, generated columns, a
 * record header that spills into overflow pages, a database read through a
 * private copy with its -wal) and anything that fails gives 0, and the
 * caller runs quick_check itself, which then decides and words the error
 * exactly as before.  So a database this passes is one quick_check passes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sqlite_check.h"
#include "sqlite_page.h"

/* MAX_LEVELS: SQLite's cursors stop at 20 levels; real trees have 3 to 5 */
/* WINDOW: a read of 256 KiB stays in the core's L2 cache while its pages
 * are gone through (1 MiB did not: 3 % more CPU on the 1.35 GB dump) */
enum { WINDOW = 1 << 18, SLACK = 64, MAX_LEVELS = 16, HEADERS = 8 };

/* AFF_NUM: INTEGER or NUMERIC; AFF_REAL also reads integers stored on disk
 * (SQLite's way with integral reals) back as reals */
enum { AFF_BLOB, AFF_TEXT, AFF_NUM, AFF_REAL };

/* BAD: the storage class of the reserved serial types 10 and 11 */
enum { BAD = 6 };

struct column {
    unsigned char notnull, aff;
    unsigned char deny;         /* bit 1 << class for each storage class (or BAD) it may not hold */
};

struct tree {
    int intkey;                 /* a table b-tree (rowid keys), else an index */
    int leaf, interior;         /* pages of either kind seen on this level */
};

/* A page still to check, with the rowid range its keys must lie in (lo
 * excluded, hi included) where it belongs to a table b-tree. */
struct item {
    uint32_t pgno, tree;
    int64_t lo, hi;
};

struct ck {
    int oom;                    /* an allocation failed: the caller says so, never runs on */
    sqlite3_file *f;
    uint32_t psize, usable, npage;
    unsigned char *used;        /* a bit per page: reached already */
    unsigned char *win;         /* pages read in file order */
    int64_t woff;
    size_t wlen;
    struct column *cols;
    unsigned char *types;       /* per column: 1 << each storage class seen */
    int ncol, alias;            /* alias: the INTEGER PRIMARY KEY column (stored as NULL), or -1 */
    struct tree *trees;         /* [0] the table, then its indexes */
    int ntree;
    struct item *cur, *next;
    size_t ncur, ccur, nnext, cnext;
    uint32_t cov[65536 / 6 + 65536 / 4 + 8];   /* a page's cells and free blocks as start << 16 | end */
    uint64_t bytes[65536 / 64];                 /* a page's bytes in use */
    struct header {             /* a record header that passed (check_row) */
        uint32_t len;
        uint64_t content;       /* the record length its fields add up to */
        unsigned char h[48];
    } seen[HEADERS];
    unsigned next_seen, last_seen;
};

/* A column's affinity as SQLite derives it from the declared type. */
static int affinity(const char *decl)
{
    if (!decl || !*decl)
        return AFF_BLOB;
    if (strcasestr(decl, "INT"))
        return AFF_NUM;
    if (strcasestr(decl, "CHAR") || strcasestr(decl, "CLOB") || strcasestr(decl, "TEXT"))
        return AFF_TEXT;
    if (strcasestr(decl, "BLOB"))
        return AFF_BLOB;
    if (strcasestr(decl, "REAL") || strcasestr(decl, "FLOA") || strcasestr(decl, "DOUB"))
        return AFF_REAL;
    return AFF_NUM;
}

/* Marks page pgno reached; -1 when it is out of range or was reached before. */
static int ref(struct ck *c, uint64_t pgno)
{
    if (pgno == 0 || pgno > c->npage || (c->used[pgno >> 3] & (1 << (pgno & 7))))
        return -1;
    c->used[pgno >> 3] |= (unsigned char)(1 << (pgno & 7));
    return 0;
}

int64_t tp_sq_int_of(sqlite3 *db, const char *sql, const char *arg)
{
    sqlite3_stmt *s;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return -1;
    if (arg)
        sqlite3_bind_text(s, 1, arg, -1, SQLITE_STATIC);
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) == SQLITE_INTEGER)
        v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* The columns: NOT NULL, affinity, and the rowid alias when it is certain
 * (AUTOINCREMENT, or a nullable one, where treating it as the alias is
 * stricter than quick_check either way). */
static int load_columns(struct ck *c, sqlite3 *db, const char *table)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT type, \"notnull\", pk, hidden, name FROM pragma_table_xinfo(?1)", -1, &s,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
    int rc, cap = 0, npk = 0, pkcol = -1, bad = 0;
    char pkname[256] = "";
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && !bad) {
        if (c->ncol == cap) {
            cap = cap ? cap * 2 : 32;
            void *p = realloc(c->cols, (size_t)cap * sizeof *c->cols);
            if (!p) {
                bad = c->oom = 1;
                break;
            }
            c->cols = p;
        }
        const char *type = (const char *)sqlite3_column_text(s, 0);
        struct column *col = &c->cols[c->ncol];
        col->notnull = sqlite3_column_int(s, 1) != 0;
        col->aff = (unsigned char)affinity(type);
        bad = sqlite3_column_int(s, 3) != 0;      /* hidden or generated */
        if (sqlite3_column_int(s, 2) > 0) {
            npk++;
            if (type && strcasecmp(type, "INTEGER") == 0) {
                pkcol = c->ncol;
                const char *name = (const char *)sqlite3_column_text(s, 4);
                snprintf(pkname, sizeof pkname, "%s", name ? name : "");
            }
        }
        c->ncol++;
    }
    sqlite3_finalize(s);
    if (bad || rc != SQLITE_DONE || c->ncol == 0)
        return -1;
    if (!(c->types = calloc((size_t)c->ncol, 1))) {
        c->oom = 1;
        return -1;
    }
    c->alias = -1;
    if (npk == 1 && pkcol >= 0) {
        int notnull = 0, primary = 0, autoinc = 0;
        if (!c->cols[pkcol].notnull)
            c->alias = pkcol;
        else if (sqlite3_table_column_metadata(db, "main", table, pkname, NULL, NULL, &notnull, &primary,
                                               &autoinc) == SQLITE_OK && primary && autoinc)
            c->alias = pkcol;
    }
    /* what quick_check finds wrong (NULL in a NOT NULL column, a number in
     * a TEXT one, text that reads as a number in a numeric one), or more:
     * all text in a numeric column, anything but the NULL SQLite stores for
     * the rowid alias */
    for (int j = 0; j < c->ncol; j++) {
        struct column *col = &c->cols[j];
        col->deny = 1 << BAD;
        if (j == c->alias)
            col->deny |= 1 << SQLITE_INTEGER | 1 << SQLITE_FLOAT | 1 << SQLITE_TEXT | 1 << SQLITE_BLOB;
        if (col->notnull)
            col->deny |= 1 << SQLITE_NULL;
        if (col->aff == AFF_TEXT)
            col->deny |= 1 << SQLITE_INTEGER | 1 << SQLITE_FLOAT;
        if (col->aff == AFF_NUM || col->aff == AFF_REAL)
            col->deny |= 1 << SQLITE_TEXT;
    }
    return 0;
}

/* The table's b-tree first, then its indexes'. */
static int load_roots(struct ck *c, sqlite3 *db, const char *table)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT type = 'table', rootpage FROM main.sqlite_master WHERE tbl_name = ?1 "
                           "COLLATE NOCASE AND type IN ('table', 'index') ORDER BY type = 'index'", -1, &s,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
    int rc, bad = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && !bad) {
        int istable = sqlite3_column_int(s, 0);
        int64_t root = sqlite3_column_type(s, 1) == SQLITE_INTEGER ? sqlite3_column_int64(s, 1) : 0;
        bad = root <= 0 || root > c->npage || istable != (c->ntree == 0);
        if (bad)
            break;
        void *p = realloc(c->trees, (size_t)(c->ntree + 1) * sizeof *c->trees);
        void *q = realloc(c->cur, (size_t)(c->ntree + 1) * sizeof *c->cur);
        if (p)
            c->trees = p;
        if (q)
            c->cur = q;
        if (!p || !q) {
            bad = c->oom = 1;
            break;
        }
        c->trees[c->ntree] = (struct tree){ .intkey = istable };
        c->cur[c->ntree] = (struct item){ (uint32_t)root, (uint32_t)c->ntree, INT64_MIN, INT64_MAX };
        c->ntree++;
    }
    sqlite3_finalize(s);
    c->ncur = c->ccur = (size_t)c->ntree;
    return bad || rc != SQLITE_DONE || c->ntree == 0 ? -1 : 0;
}

int tp_sq_file_open(sqlite3 *db, const char *table, struct tp_sq_file *pf)
{
    const char *file = sqlite3_db_filename(db, "main");
    if (!file || !sqlite3_uri_boolean(file, "immutable", 0) || sqlite3_db_readonly(db, "main") != 1 ||
        sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &pf->f) != SQLITE_OK || !pf->f ||
        !pf->f->pMethods)
        return -1;
    if (tp_sq_int_of(db, "SELECT count(*) FROM pragma_table_list WHERE schema = 'main' AND name = ?1 AND "
                     "type = 'table' AND wr = 0 AND strict = 0", table) != 1)
        return -1;
    if (pf->f->pMethods->xRead(pf->f, pf->h, sizeof pf->h, 0) != SQLITE_OK)
        return -1;
    pf->psize = tp_sq_get2(pf->h + 16) == 1 ? 65536 : tp_sq_get2(pf->h + 16);
    pf->usable = pf->psize - pf->h[20];
    int64_t npage = tp_sq_int_of(db, "PRAGMA main.page_count", NULL);
    if (pf->psize < 512 || (pf->psize & (pf->psize - 1)) || pf->usable < 480 ||
        tp_sq_int_of(db, "PRAGMA main.page_size", NULL) != pf->psize || npage <= 0 || npage > UINT32_MAX - 1)
        return -1;
    pf->npage = (uint32_t)npage;
    return 0;
}

static int setup(struct ck *c, sqlite3 *db, const char *table)
{
    struct tp_sq_file pf;
    /* tp_sq_get4(h + 52): the largest root page of an auto-vacuum file, whose
     * pointer-map pages quick_check checks too */
    if (tp_sq_file_open(db, table, &pf) < 0 || tp_sq_get4(pf.h + 52) != 0)
        return -1;
    c->f = pf.f;
    c->psize = pf.psize;
    c->usable = pf.usable;
    c->npage = pf.npage;
    c->used = calloc(c->npage / 8 + 1, 1);
    c->win = calloc(WINDOW + SLACK, 1);
    if (!c->used || !c->win) {
        c->oom = 1;
        return -1;
    }
    /* the page holding the lock byte at 1 GiB is never used: quick_check
     * counts it as reached */
    uint64_t pending = (uint64_t)0x40000000 / c->psize + 1;
    if (pending <= c->npage)
        ref(c, pending);
    return load_columns(c, db, table) < 0 || load_roots(c, db, table) < 0 ? -1 : 0;
}

/* Page pgno; the read takes the pages after it up to last (the next ones
 * to check, in order) along, WINDOW bytes at most. */
static const unsigned char *page_at(struct ck *c, uint32_t pgno, uint32_t last)
{
    int64_t off = (int64_t)(pgno - 1) * c->psize;
    if (c->wlen && off >= c->woff && off + c->psize <= c->woff + (int64_t)c->wlen)
        return c->win + (off - c->woff);
    size_t n = (size_t)(last - pgno + 1) * c->psize;
    if (n > WINDOW)
        n = WINDOW / c->psize * c->psize;
    c->wlen = 0;
    if (c->f->pMethods->xRead(c->f, c->win, (int)n, off) != SQLITE_OK)
        return NULL;
    c->woff = off;
    c->wlen = n;
    return c->win;
}

static int push(struct ck *c, uint32_t pgno, uint32_t tree, int64_t lo, int64_t hi)
{
    if (pgno == 0)
        return -1;
    if (c->nnext == c->cnext) {
        size_t nc = c->cnext ? c->cnext * 2 : 256;
        void *p = realloc(c->next, nc * sizeof *c->next);
        if (!p) {
            c->oom = 1;
            return -1;
        }
        c->next = p;
        c->cnext = nc;
    }
    c->next[c->nnext++] = (struct item){ pgno, tree, lo, hi };
    return 0;
}

/* An overflow chain of exactly `expected` pages, none reached before. */
static int check_overflow(struct ck *c, uint32_t pgno, uint64_t expected)
{
    uint64_t n = 0;
    while (pgno) {
        unsigned char b[4];
        if (n == expected || ref(c, pgno) < 0 ||
            c->f->pMethods->xRead(c->f, b, 4, (int64_t)(pgno - 1) * c->psize) != SQLITE_OK)
            return -1;
        pgno = tp_sq_get4(b);
        n++;
    }
    return n == expected ? 0 : -1;
}

/* A table row's record: its header within the page, its fields one per
 * column and adding up to the payload, each of a type its column allows. */
static int check_row(struct ck *c, const unsigned char *p, uint32_t nlocal, uint64_t npayload)
{
    /* the storage class of serial types 0..11 (SQLite's codes; BAD for the
     * reserved 10 and 11), and their sizes */
    static const unsigned char cls[12] = { SQLITE_NULL, SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_INTEGER,
                                           SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_FLOAT,
                                           SQLITE_INTEGER, SQLITE_INTEGER, BAD, BAD };
    static const unsigned char len[12] = { 0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0 };
    uint64_t hsize, t;
    int n = tp_sq_varint(p, &hsize);
    if (n > 4 || hsize < (uint64_t)n || hsize > nlocal)
        return -1;
    /* rows of a table mostly share a few headers: a header seen before
     * passed, its types were noted, its fields add up to a known length;
     * the one the last row matched is tried first (runs of rows share one) */
    for (int i = 0; i < HEADERS && hsize <= sizeof c->seen[0].h; i++) {
        unsigned k = (c->last_seen + (unsigned)i) % HEADERS;
        if (c->seen[k].len == hsize && tp_sq_same_bytes(c->seen[k].h, p, hsize)) {
            c->last_seen = k;
            return c->seen[k].content == npayload ? 0 : -1;
        }
    }
    uint64_t off = hsize;
    uint32_t pos = (uint32_t)n;
    int j = 0;
    while (pos < hsize) {
        if (p[pos] < 0x80) {
            t = p[pos++];
        } else {
            int m = tp_sq_varint(p + pos, &t);
            pos += (uint32_t)m;
            if (m > 4)
                return -1;
        }
        if (pos > hsize || j >= c->ncol)
            return -1;
        unsigned k = t < 12 ? cls[t] : t & 1 ? SQLITE_TEXT : SQLITE_BLOB;
        if (c->cols[j].deny >> k & 1)
            return -1;
        c->types[j] |= (unsigned char)(1 << k);
        off += t < 12 ? len[t] : (t - 12) / 2;
        j++;
    }
    if (j != c->ncol || off != npayload)
        return -1;
    if (hsize <= sizeof c->seen[0].h) {
        struct header *h = &c->seen[c->next_seen++ % HEADERS];
        h->len = (uint32_t)hsize;
        h->content = off;
        memcpy(h->h, p, hsize);
    }
    return 0;
}

/* The usual page: its cells (cov[0, ncell), last cell first) lie in
 * rising addresses and its free blocks (cov[ncell, n), rising: check_page
 * saw to it) too.  Then one merge of the two finds a byte used twice, and
 * *covered is their size: 1.  0 when the cells are not in order (the
 * bitmap decides); -1 when a byte is used twice. */
static int coverage_in_order(const uint32_t *cov, size_t ncell, size_t n, uint32_t *covered)
{
    for (size_t i = 1; i < ncell; i++)
        if (cov[i] >> 16 <= (cov[i - 1] & 0xffff))
            return 0;
    size_t a = 0, b = ncell;
    int64_t last = -1;
    uint32_t sum = 0;
    while (a < ncell || b < n) {
        uint32_t x = b >= n || (a < ncell && cov[a] >> 16 < cov[b] >> 16) ? cov[a++] : cov[b++];
        if ((int64_t)(x >> 16) <= last)
            return -1;
        last = x & 0xffff;
        sum += (x & 0xffff) - (x >> 16) + 1;
    }
    *covered = sum;
    return 1;
}

/* No byte of the content area [top, usable) used twice, and the bytes
 * used by nothing adding up to the fragment count in the header: the
 * cells and free blocks marked in a bitmap of the page's bytes, or merged
 * when in order. */
static int check_coverage(struct ck *c, size_t ncell, size_t n, uint32_t top, unsigned frag)
{
    uint32_t sorted = 0;
    int o = coverage_in_order(c->cov, ncell, n, &sorted);
    if (o != 0)
        return o < 0 || c->usable - top - sorted != frag ? -1 : 0;
    uint64_t *bm = c->bytes;
    uint32_t covered = 0;
    for (uint32_t w = top >> 6; w <= (c->usable - 1) >> 6; w++)
        bm[w] = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t start = c->cov[i] >> 16, end = c->cov[i] & 0xffff;   /* end >= start: sizes are >= 4 */
        covered += end - start + 1;
        for (uint32_t w = start >> 6; w <= end >> 6; w++) {
            uint32_t lo = w << 6 > start ? 0 : start & 63, hi = (w << 6) + 63 < end ? 63 : end & 63;
            uint64_t mask = (~UINT64_C(0) >> (63 - hi)) & (~UINT64_C(0) << lo);
            if (bm[w] & mask)
                return -1;
            bm[w] |= mask;
        }
    }
    return c->usable - top - covered == frag ? 0 : -1;
}

/* One b-tree page: its header, free blocks and cells; its children queued
 * with the rowid range each must keep to. */
static int check_page(struct ck *c, const struct item *it, const unsigned char *page, int root)
{
    uint32_t hdr = it->pgno == 1 ? 100 : 0, usable = c->usable;
    const unsigned char *d = page + hdr;
    unsigned flag = d[0];
    if (flag != 2 && flag != 5 && flag != 10 && flag != 13)
        return -1;
    int leaf = flag >= 10, intkey = (flag & 7) == 5;
    struct tree *t = &c->trees[it->tree];
    if (intkey != t->intkey)
        return -1;
    *(leaf ? &t->leaf : &t->interior) = 1;
    uint32_t ncell = tp_sq_get2(d + 3), childsz = leaf ? 0 : 4;
    if (t->leaf && t->interior)
        return -1;                                   /* leaves at two depths */
    if (ncell > (c->psize - 8) / 6 || (ncell == 0 && !(root && leaf)))
        return -1;
    uint32_t first = hdr + 8 + childsz + 2 * ncell, top = tp_sq_get2(d + 5) ? tp_sq_get2(d + 5) : 65536;
    uint64_t nfree = d[7] + (uint64_t)top;
    size_t ncov = ncell;
    /* free blocks: in order, inside the content area, four bytes or more */
    for (uint32_t pc = tp_sq_get2(d + 1); pc;) {
        if (pc < top || pc > usable - 4)
            return -1;
        uint32_t next = tp_sq_get2(page + pc), size = tp_sq_get2(page + pc + 2);
        if (size < 4 || pc + size > usable || (next && next <= pc + size + 3) || ncov >= sizeof c->cov / sizeof *c->cov)
            return -1;
        nfree += size;
        c->cov[ncov++] = pc << 16 | (pc + size - 1);
        pc = next;
    }
    if (nfree > usable || nfree < first)
        return -1;
    const unsigned char *idx = d + 8 + childsz;
    int64_t prevkey = it->lo;
    /* table leaves keep up to maxLocal bytes of a row on the page, index
     * cells up to maxEmbed; the rest goes to overflow pages */
    uint32_t maxlocal = intkey ? usable - 35 : (usable - 12) * 64 / 255 - 23, minlocal = (usable - 12) * 32 / 255 - 23;
    for (uint32_t i = 0; i < ncell; i++) {
        uint32_t pc = tp_sq_get2(idx + 2 * i);
        if (pc < top || pc > usable - 4)
            return -1;
        const unsigned char *cell = page + pc;
        uint64_t size, npayload = 0, key = 0;
        uint32_t nlocal = 0;
        const unsigned char *payload = NULL;
        if (intkey && !leaf) {
            size = 4 + (uint64_t)tp_sq_varint(cell + 4, &key);
        } else {
            int n = tp_sq_varint(cell + childsz, &npayload);
            if (n > 4)
                return -1;
            size = childsz + (uint64_t)n;
            if (intkey)
                size += (uint64_t)tp_sq_varint(cell + size, &key);
            payload = cell + size;
            if (npayload <= maxlocal) {
                nlocal = (uint32_t)npayload;
                size += nlocal;
                if (size < 4)
                    size = 4;
            } else {
                uint32_t surplus = minlocal + (uint32_t)((npayload - minlocal) % (usable - 4));
                nlocal = surplus <= maxlocal ? surplus : minlocal;
                size += nlocal + 4;
            }
        }
        if (pc + size > usable)
            return -1;
        c->cov[ncell - 1 - i] = pc << 16 | (uint32_t)(pc + size - 1);
        if (intkey) {
            int64_t k = (int64_t)key;
            /* keys rise; a leaf's last may equal the parent's key, an
             * interior page's keys stay below the right child's */
            if (k <= prevkey || (leaf ? k > it->hi : k >= it->hi))
                return -1;
            if (!leaf && push(c, tp_sq_get4(cell), it->tree, prevkey, k) < 0)
                return -1;
            prevkey = k;
        } else if (!leaf && push(c, tp_sq_get4(cell), it->tree, 0, 0) < 0) {
            return -1;
        }
        if (npayload > nlocal &&
            check_overflow(c, tp_sq_get4(cell + size - 4), (npayload - nlocal + usable - 5) / (usable - 4)) < 0)
            return -1;
        if (intkey && leaf && it->tree == 0 && check_row(c, payload, nlocal, npayload) < 0)
            return -1;
    }
    if (!leaf && push(c, tp_sq_get4(d + 8), it->tree, intkey ? prevkey : 0, intkey ? it->hi : 0) < 0)
        return -1;
    return check_coverage(c, ncell, ncov, top, d[7]);
}

static int cmp_item(const void *a, const void *b)
{
    uint32_t x = ((const struct item *)a)->pgno, y = ((const struct item *)b)->pgno;
    return (x > y) - (x < y);
}

/* Level by level from the roots; each level's pages in file order. */
static int walk(struct ck *c)
{
    uint32_t wpages = WINDOW / c->psize;
    for (int level = 0; c->ncur; level++) {
        if (level >= MAX_LEVELS)
            return -1;
        qsort(c->cur, c->ncur, sizeof *c->cur, cmp_item);
        for (int t = 0; t < c->ntree; t++)
            c->trees[t].leaf = c->trees[t].interior = 0;
        c->nnext = 0;
        size_t ahead = 0;
        for (size_t i = 0; i < c->ncur; i++) {
            const struct item *it = &c->cur[i];
            if (ahead < i)
                ahead = i;
            while (ahead + 1 < c->ncur && c->cur[ahead + 1].pgno - it->pgno < wpages)
                ahead++;
            if (ref(c, it->pgno) < 0)
                return -1;
            const unsigned char *page = page_at(c, it->pgno, c->cur[ahead].pgno);
            if (!page || check_page(c, it, page, level == 0) < 0)
                return -1;
        }
        struct item *t = c->cur;
        size_t cap = c->ccur;
        c->cur = c->next;
        c->ccur = c->cnext;
        c->ncur = c->nnext;
        c->next = t;
        c->cnext = cap;
        c->nnext = 0;
    }
    return 0;
}

int tp_sqlite_fast_check(sqlite3 *db, const char *table, unsigned char **types, int *ncol)
{
    struct ck *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    int ok = setup(c, db, table) == 0 && walk(c) == 0;
    for (int j = 0; ok && j < c->ncol; j++) {
        if (j == c->alias && c->types[j])
            c->types[j] = 1 << SQLITE_INTEGER;      /* stored as NULL, read as the rowid */
        if (c->cols[j].aff == AFF_REAL && (c->types[j] & 1 << SQLITE_INTEGER))
            c->types[j] = (unsigned char)((c->types[j] & ~(1 << SQLITE_INTEGER)) | 1 << SQLITE_FLOAT);
    }
    if (ok && types) {
        *types = c->types;
        *ncol = c->ncol;
        c->types = NULL;
    }
    free(c->types);
    free(c->used);
    free(c->win);
    free(c->cols);
    free(c->trees);
    free(c->cur);
    free(c->next);
    int oom = c->oom;
    free(c);
    return oom ? -1 : ok;
}
