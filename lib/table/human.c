/* human.c — --human: times and bytes with units, as torch.profiler's
 * key_averages().table() prints them (torch/autograd/profiler_util.py,
 * _format_time, override_time_unit and _format_memory), for the text
 * formats a person reads.  The typed formats (CSV, TSV, JSON lines) keep
 * plain numbers: a cell "1.234ms" would not load as a number. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "table.h"

static size_t put(const char *s, int n, char *buf, size_t cap)
{
    if (n < 0)
        n = 0;
    if (cap) {
        size_t m = (size_t)n < cap - 1 ? (size_t)n : cap - 1;
        memcpy(buf, s, m);
        buf[m] = 0;
    }
    return (size_t)n;
}

size_t tp_fmt_human_time(double us, int unit, char *buf, size_t cap)
{
    char out[400];
    int n;
    /* _format_time picks the unit by size (a negative time stays in us, as
     * there); time_unit= (here --timeunit) forces one.  ns is tprof's: an
     * integer count of nanoseconds. */
    if (unit == TP_UNIT_S || (unit <= TP_UNIT_DEFAULT && us >= 1e6))
        n = snprintf(out, sizeof out, "%.3fs", us / 1e6);
    else if (unit == TP_UNIT_MS || (unit <= TP_UNIT_DEFAULT && us >= 1e3))
        n = snprintf(out, sizeof out, "%.3fms", us / 1e3);
    else if (unit == TP_UNIT_NS)
        n = snprintf(out, sizeof out, "%.0fns", us * 1e3);
    else
        n = snprintf(out, sizeof out, "%.3fus", us);
    return put(out, n, buf, cap);
}

size_t tp_fmt_human_bytes(double bytes, int integral, char *buf, size_t cap)
{
    const double KB = 1024.0, MB = 1024.0 * KB, GB = 1024.0 * MB;
    char out[400];
    int n;
    if (fabs(bytes) >= GB)
        n = snprintf(out, sizeof out, "%.2f GB", bytes / GB);
    else if (fabs(bytes) >= MB)
        n = snprintf(out, sizeof out, "%.2f MB", bytes / MB);
    else if (fabs(bytes) >= KB)
        n = snprintf(out, sizeof out, "%.2f KB", bytes / KB);
    else if (integral)   /* str(nbytes) + " B" */
        n = snprintf(out, sizeof out, "%.0f B", bytes);
    else {   /* a mean of bytes: Python's str(float) */
        char f[64];
        tp_fmt_pyfloat(bytes, f, sizeof f);
        n = snprintf(out, sizeof out, "%s B", f);
    }
    return put(out, n, buf, cap);
}

/* The unit a header names: "(us)", "(ns)" or "(B)" at its end, else NULL. */
static const char *header_unit(const char *h)
{
    static const char *const units[] = {"(us)", "(ns)", "(B)"};
    size_t hl = h ? strlen(h) : 0;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        size_t ul = strlen(units[i]);
        if (hl > ul && strcmp(h + hl - ul, units[i]) == 0)
            return units[i];
    }
    return NULL;
}

enum tp_human tp_wctx_human(const struct tp_wctx *w, size_t j)
{
    const struct tp_output_opts *o = w->o;
    if (!o->human || (o->format != TP_FMT_COLUMNS && o->format != TP_FMT_SPACE && o->format != TP_FMT_MARKDOWN))
        return TP_HUMAN_NONE;
    const struct tp_coldef *c = &w->cols[w->sel[j]];
    if (c->type == TP_COL_STR)
        return TP_HUMAN_NONE;
    if (c->type == TP_COL_US)
        return TP_HUMAN_NS;
    /* the other numeric columns say their unit in their header (the same
     * rule --timeunit applies to means in "(us)") */
    const char *u = header_unit(c->header);
    if (!u)
        return TP_HUMAN_NONE;
    return u[1] == 'B' ? TP_HUMAN_BYTES : u[1] == 'n' ? TP_HUMAN_NS : TP_HUMAN_US;
}

const char *tp_human_header(const char *h, char *buf, size_t cap)
{
    const char *u = header_unit(h);
    if (!u)
        return h;
    snprintf(buf, cap, "%.*s", (int)(strlen(h) - strlen(u)), h);
    return buf;
}

size_t tp_human_cell(const tp_table *t, size_t row, size_t col, enum tp_human kind, int unit, char *buf,
                     size_t cap)
{
    enum tp_cellkind k = tp_table_cell_kind(t, row, col);
    int integral = k == TP_CELL_INT;
    double v = integral ? (double)tp_table_cell_int(t, row, col) : tp_table_cell_float(t, row, col);
    if (kind == TP_HUMAN_BYTES)
        return tp_fmt_human_bytes(v, integral, buf, cap);
    return tp_fmt_human_time(kind == TP_HUMAN_NS ? v / 1000.0 : v, unit, buf, cap);
}
