/* ingest_kineto.c — PyTorch profiler (kineto) Chrome-trace JSON into the store.
 *
 * One streaming pass: each event object is read key by key into spans, then
 * turned into one store row; nothing is built per event but the row.  Accepts
 * a top-level object with "traceEvents" (kineto) or a bare array of events
 * (Dec-2020 traces, which the TensorBoard plugin rejects), legacy categories
 * (Operator, Runtime, Kernel, Memcpy, Memset) and modern ones, ROCm and MTIA.
 * Unknown categories are kept as TP_K_OTHER; malformed events are counted
 * (tp_store_bad) and left out, never silently. */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "ingest.h"
#include "json.h"
#include "link.h"   /* tp_is_autograd_name */

/* A JSON value we kept as a span: its type and text. */
struct jv {
    enum tp_jtype type;   /* TP_J_NONE when the key was absent */
    int has_int;          /* a plain integer number (1), or a decimal of up to 3 places as thousandths
                             (TP_JSON_MILLI), its value read with its text: */
    int64_t i;
    tp_jspan s;
};

struct event {
    struct jv ph, cat, name, pid, tid, ts, dur, id;
    /* args */
    struct jv ext_id, ext_id_lc, correlation, seq, device, stream, grid, block, regs, smem, bps, occ,
        bytes, input_dims, input_type, input_strides, concrete_inputs, call_stack, py_id, py_parent, py_module, fwd_tid,
        dev_type, dev_id, addr, mem_bytes, total_alloc, total_reserved, meta_name, meta_labels, wait_corr, wait_stream;
    /* a collective's metadata (record_param_comms and NCCL kernels) */
    struct jv coll_name, dtype, in_nelems, out_nelems, group_size, pg_name, pg_id, pg_desc, pg_ranks, coll_seq;
    int has_args, has_coll;
    int left_out;         /* a flow, memory or python_function event skipped (tp_store_set_lean) */
    /* The fields read, to be made absent again before the next event: the
     * struct is 800 bytes, an event sets a dozen (clearing it all was 2% of
     * the import).  More than TOUCH_MAX: the next event clears it all. */
    struct jv *touched[24];
    unsigned ntouched;
};
enum { TOUCH_MAX = sizeof ((struct event *)0)->touched / sizeof (struct jv *) };

/* Every field absent, as for a new event. */
static void clear_event(struct event *ev)
{
    if (ev->ntouched > TOUCH_MAX) {
        memset(ev, 0, sizeof *ev);
        return;
    }
    for (unsigned i = 0; i < ev->ntouched; i++)
        ev->touched[i]->type = TP_J_NONE;
    ev->ntouched = 0;
    ev->has_args = ev->has_coll = ev->left_out = 0;
}


/* The keys the importer reads, each with the field of struct event its
 * value goes to: one table for the event's own keys, one for those of its
 * "args" ("name" is the event's name at the top, a metadata event's value
 * in args).  A key in neither is skipped.  Looked up by its first byte
 * (struct key_index, built once per import). */
struct field_key {
    const char *key;
    uint8_t len;
    uint8_t coll;               /* a collective's metadata (ev->has_coll) */
    uint16_t off;               /* offsetof(struct event, the field), or ARGS_OBJECT */
};
enum { ARGS_OBJECT = UINT16_MAX };
#define FK(lit, field) {lit, sizeof(lit) - 1, 0, offsetof(struct event, field)}
#define FKC(lit, field) {lit, sizeof(lit) - 1, 1, offsetof(struct event, field)}

static const struct field_key event_keys[] = {
    FK("ph", ph), FK("cat", cat), FK("name", name), FK("pid", pid), FK("tid", tid), FK("ts", ts),
    FK("dur", dur), FK("id", id), {"args", 4, 0, ARGS_OBJECT},
};

static const struct field_key arg_keys[] = {
    FK("External id", ext_id), FK("external id", ext_id_lc), FK("est. achieved occupancy %", occ),
    FK("correlation", correlation), FK("Sequence number", seq), FKC("Seq", coll_seq), FK("device", device),
    FK("dtype", dtype), FK("stream", stream), FK("shared memory", smem), FK("grid", grid), FK("block", block),
    FK("blocks per SM", bps), FK("bytes", bytes), FK("registers per thread", regs),
    FK("Input Dims", input_dims), FK("Input dims", input_dims), FK("Input type", input_type),
    FK("Input Strides", input_strides), FKC("In msg nelems", in_nelems), FK("Out msg nelems", out_nelems),
    FK("Group size", group_size), FK("Call stack", call_stack), FK("Concrete Inputs", concrete_inputs),
    FKC("Collective name", coll_name), FK("Python id", py_id), FK("Python parent id", py_parent),
    FK("Python module id", py_module), FK("Process Group Name", pg_name), FK("Process Group ID", pg_id),
    FK("Process Group Description", pg_desc), FK("Process Group Ranks", pg_ranks), FK("Fwd thread id", fwd_tid),
    FK("Device Type", dev_type), FK("Device Id", dev_id), FK("Addr", addr), FK("Bytes", mem_bytes),
    FK("Total Allocated", total_alloc), FK("Total Reserved", total_reserved), FK("name", meta_name),
    FK("labels", meta_labels), FK("wait_on_cuda_event_record_corr_id", wait_corr),
    FK("wait_on_stream", wait_stream),
};

/* The keys of a table by their first byte: keys[order[begin[c]] ..
 * order[end[c] - 1]] start with byte c.  A lookup is then the few
 * comparisons with the keys of one letter, as the switch on the first
 * byte it replaced did (a hash of the key measured 2-3% slower in the
 * import: its chain of dependent loads). */
struct key_index {
    const struct field_key *keys;
    uint8_t order[64];
    uint8_t begin[256], end[256];
};

_Static_assert(sizeof arg_keys / sizeof arg_keys[0] <= sizeof ((struct key_index *)0)->order &&
               sizeof event_keys / sizeof event_keys[0] <= sizeof ((struct key_index *)0)->order,
               "struct key_index: order[] holds every key of a table");

static void key_index_init(struct key_index *ix, const struct field_key *keys, size_t n)
{
    memset(ix, 0, sizeof *ix);
    ix->keys = keys;
    size_t k = 0;
    for (unsigned c = 0; c < 256; c++) {
        ix->begin[c] = (uint8_t)k;
        for (size_t i = 0; i < n && k < sizeof ix->order; i++)
            if ((unsigned char)keys[i].key[0] == c)
                ix->order[k++] = (uint8_t)i;
        ix->end[c] = (uint8_t)k;
    }
}

/* a[0..len) == b[0..len), inline: memcmp with a length known only at run
 * time is a library call, and this runs for every key of every event
 * (the chain of comparisons with literals it replaced compiled to a few
 * loads; with memcmp calls the import took 3% more CPU). */
static inline int same_bytes(const char *a, const char *b, size_t len)
{
    if (len >= 8) {   /* words, the last one overlapping the one before */
        uint64_t x, y;
        for (size_t i = 0; i + 8 < len; i += 8) {
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            if (x != y)
                return 0;
        }
        memcpy(&x, a + len - 8, 8);
        memcpy(&y, b + len - 8, 8);
        return x == y;
    }
    if (len >= 4) {
        uint32_t x, y, x2, y2;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        memcpy(&x2, a + len - 4, 4);
        memcpy(&y2, b + len - 4, 4);
        return x == y && x2 == y2;
    }
    return len == 0 || (a[0] == b[0] && a[len / 2] == b[len / 2] && a[len - 1] == b[len - 1]);
}

/* The entry of key k[0..len), or NULL when the importer does not read it. */
static inline const struct field_key *key_find(const struct key_index *ix, const char *k, size_t len)
{
    if (len == 0)
        return NULL;
    unsigned c = (unsigned char)k[0];
    for (unsigned i = ix->begin[c]; i < ix->end[c]; i++) {
        const struct field_key *f = &ix->keys[ix->order[i]];
        if (f->len == len && same_bytes(f->key, k, len))
            return f;
    }
    return NULL;
}

struct key_indexes {
    struct key_index event, args;
    int lean;   /* tp_store_set_lean: its level; the events it leaves out skipped */
};

static void key_indexes_init(struct key_indexes *ki)
{
    key_index_init(&ki->event, event_keys, sizeof event_keys / sizeof event_keys[0]);
    key_index_init(&ki->args, arg_keys, sizeof arg_keys / sizeof arg_keys[0]);
}

/* The text fields whose last string is remembered (get_str): a name,
 * category or call stack is often the one the event before had. */
enum text_field { F_NAME, F_CAT, F_PID, F_TID, F_DIMS, F_TYPES, F_STRIDES, F_CONCRETE, F_STACK, TEXT_FIELDS,
                  F_OTHER = TEXT_FIELDS };

struct importer {
    tp_store *st;
    tp_json *j;
    uint8_t *cat_kind;         /* strtab id -> kind + 1 (0 = not computed) */
    size_t ncat_kind;
    uint32_t memory_name;      /* id of "[memory]" */
    uint32_t last[TEXT_FIELDS];   /* per text field, the id of the last string interned */
    int oom;                   /* a string could not be interned */
    int64_t seq;               /* the event's "Sequence number", kept once the row is (tp_store_set_seq) */
    struct key_indexes keys;   /* the keys read (read_members) */
};

static enum tp_kind kind_of_cat(const char *cat)
{
    char lc[40];
    size_t n = strlen(cat);
    if (n >= sizeof lc)
        return TP_K_OTHER;
    for (size_t i = 0; i <= n; i++)
        lc[i] = (char)tolower((unsigned char)cat[i]);
    static const struct { const char *cat; enum tp_kind kind; } map[] = {
        {"cpu_op", TP_K_CPU_OP}, {"operator", TP_K_CPU_OP},
        {"user_annotation", TP_K_USER_ANNOTATION}, {"gpu_user_annotation", TP_K_GPU_USER_ANNOTATION},
        {"python_function", TP_K_PYTHON_FUNCTION}, {"python", TP_K_PYTHON_FUNCTION},
        {"runtime", TP_K_RUNTIME}, {"cuda_runtime", TP_K_RUNTIME}, {"mtia_runtime", TP_K_RUNTIME},
        {"glow_runtime", TP_K_RUNTIME}, {"xpu_runtime", TP_K_RUNTIME}, {"privateuse1_runtime", TP_K_RUNTIME},
        {"hip_runtime", TP_K_RUNTIME},
        {"cuda_driver", TP_K_DRIVER}, {"xpu_driver", TP_K_DRIVER}, {"privateuse1_driver", TP_K_DRIVER},
        {"kernel", TP_K_KERNEL}, {"mtia_ccp_events", TP_K_KERNEL},
        {"memcpy", TP_K_MEMCPY}, {"gpu_memcpy", TP_K_MEMCPY},
        {"memset", TP_K_MEMSET}, {"gpu_memset", TP_K_MEMSET},
        {"memory", TP_K_MEMORY}, {"trace", TP_K_TRACE_SPAN},
        {"cuda_sync", TP_K_SYNC}, {"cuda_event", TP_K_SYNC}, {"xpu_sync", TP_K_SYNC},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(lc, map[i].cat) == 0)
            return map[i].kind;
    return TP_K_OTHER;
}

static enum tp_kind cat_kind(struct importer *im, uint32_t cat)
{
    if (cat >= im->ncat_kind) {
        size_t n = im->ncat_kind ? im->ncat_kind : 64;
        while (n <= cat)
            n *= 2;
        uint8_t *p = realloc(im->cat_kind, n);
        if (!p) {
            /* the kind is still right, but every failed allocation is
             * reported (issue #11: out of memory is exit 2, never a run
             * that went on without a cache it could not make) */
            im->oom = 1;
            return kind_of_cat(tp_store_str(im->st, cat));
        }
        memset(p + im->ncat_kind, 0, n - im->ncat_kind);
        im->cat_kind = p;
        im->ncat_kind = n;
    }
    if (!im->cat_kind[cat])
        im->cat_kind[cat] = (uint8_t)(kind_of_cat(tp_store_str(im->st, cat)) + 1);
    return (enum tp_kind)(im->cat_kind[cat] - 1);
}

/* Read any value into a jv: strings and numbers as spans, containers as raw text. */
static int read_value(tp_json *j, struct jv *v)
{
    /* strings and numbers first, without asking the type */
    int c = tp_json_peek(j);
    if (c == '"') {
        v->type = TP_J_STRING;
        v->has_int = 0;
        return tp_json_string(j, &v->s);
    }
    if ((c >= '0' && c <= '9') || c == '-') {
        v->type = TP_J_NUMBER;
        return tp_json_number_int(j, &v->s, &v->i, &v->has_int);
    }
    v->has_int = 0;
    v->type = tp_json_type(j);
    switch (v->type) {
    case TP_J_STRING: return tp_json_string(j, &v->s);
    case TP_J_NUMBER: return tp_json_number(j, &v->s);
    case TP_J_TRUE: case TP_J_FALSE: case TP_J_NULL: {
        /* what tp_json_skip does with a literal (the same errors), without
         * its stack of containers: "finished": true is in every event of a
         * PyTorch 2.x trace */
        uint64_t start = tp_json_offset(j);
        enum tp_jtype lit;
        if (tp_json_literal(j, &lit) < 0)
            return -1;
        v->s.off = start;
        v->s.len = (uint32_t)(tp_json_offset(j) - start);
        return 0;
    }
    case TP_J_NONE:
        if (tp_json_peek(j) < 0)
            return tp_json_fail(j, TP_ERR_TRUNCATED, "unexpected end of input (truncated JSON?)");
        return tp_json_fail(j, TP_ERR_FORMAT, "unexpected character");
    default: return tp_json_skip(j, &v->s);
    }
}

/* Skip a value the importer does not read: scalars directly, containers
 * by tp_json_skip (whose stack of containers a scalar does not need; the
 * same errors at the same offsets either way). */
static int skip_value(tp_json *j)
{
    int c = tp_json_peek(j);
    tp_jspan s;
    if (c == '"')
        return tp_json_string(j, &s);
    if ((c >= '0' && c <= '9') || c == '-')
        return tp_json_number(j, &s);
    if (c == 't' || c == 'f' || c == 'n') {
        enum tp_jtype lit;
        return tp_json_literal(j, &lit);
    }
    return tp_json_skip(j, NULL);
}

/* read_value into a field of the event, remembered for clear_event. */
static int read_field(tp_json *j, struct event *ev, struct jv *dst)
{
    if (ev->ntouched < TOUCH_MAX)
        ev->touched[ev->ntouched++] = dst;
    else
        ev->ntouched = TOUCH_MAX + 1;
    return read_value(j, dst);
}

#define KEY(lit) (key.len == sizeof(lit) - 1 && memcmp(k, lit, sizeof(lit) - 1) == 0)

/* Under tp_store_set_lean: 1 when the event read so far is one a store of
 * that level leaves out, so the rest of it need not be read: a flow event
 * (by its phase; TP_LEAN_FLOWS keeps those of category "fwdbwd", as
 * tbtree_bwd.c reads them), and for TP_LEAN_KERNELS a memory event (an
 * instant named "[memory]", as event_kind reads it) or a python_function
 * event (its category, case aside, as kind_of_cat reads it) not named like
 * an autograd node, with its start read (the first host event's start is
 * the profiler's, attribution.c). */
static int left_out_event(tp_json *j, const struct event *ev, int level)
{
    if (ev->ph.type != TP_J_STRING || ev->ph.s.len == 0)
        return 0;
    char ph = tp_json_ptr(j, ev->ph.s)[0];
    if ((ph == 's' || ph == 'f' || ph == 't') && level >= TP_LEAN_KERNELS)
        return 1;
    if (ph == 's' || ph == 'f' || ph == 't')
        return 0;   /* read whole and checked (left_out_flow): info and check count a bad one */
    if (level < TP_LEAN_KERNELS) {
        /* TP_LEAN_TREE: a memory event once its start is read (the span) */
        if (level != TP_LEAN_TREE || (ph != 'i' && ph != 'I') || ev->name.type != TP_J_STRING || ev->ts.type == TP_J_NONE)
            return 0;
        return ev->name.s.len == 8 && memcmp(tp_json_ptr(j, ev->name.s), "[memory]", 8) == 0;
    }
    if (ev->name.type != TP_J_STRING)
        return 0;
    if (ph == 'i' || ph == 'I')
        return ev->name.s.len == 8 && memcmp(tp_json_ptr(j, ev->name.s), "[memory]", 8) == 0;
    if (ev->cat.type != TP_J_STRING || ev->ts.type == TP_J_NONE)
        return 0;
    const char *c = tp_json_ptr(j, ev->cat.s);
    if (!((ev->cat.s.len == 15 && strncasecmp(c, "python_function", 15) == 0) ||
          (ev->cat.s.len == 6 && strncasecmp(c, "python", 6) == 0)))
        return 0;
    return !tp_is_autograd_name(tp_json_ptr(j, ev->name.s), ev->name.s.len);
}

/* The members of an object (the event, or its args) into the fields of
 * ev their keys name (ix); the others skipped.  The field is chosen before
 * the value is read: reading can move the window under the key. */
static int read_members(tp_json *j, struct event *ev, struct key_indexes *ki, struct key_index *ix)
{
    if (tp_json_obj_begin(j) < 0)
        return -1;
    int n = 0, r;
    tp_jspan key;
    while ((r = tp_json_obj_next(j, &n, &key)) == 1) {
        const struct field_key *f = key_find(ix, tp_json_ptr(j, key), key.len);
        if (!f) {
            if (skip_value(j) < 0)
                return -1;
        } else if (f->off == ARGS_OBJECT) {
            if (tp_json_type(j) != TP_J_OBJECT) {
                struct jv skip;
                if (read_value(j, &skip) < 0)   /* args that are not an object: ignored */
                    return -1;
                continue;
            }
            ev->has_args = 1;
            if (read_members(j, ev, ki, &ki->args) < 0)
                return -1;
        } else {
            struct jv *dst = (struct jv *)(void *)((char *)ev + f->off);
            if (read_field(j, ev, dst) < 0)
                return -1;
            ev->has_coll |= f->coll;
            if (ki->lean && ix == &ki->event &&
                (dst == &ev->cat || dst == &ev->name || dst == &ev->ph || dst == &ev->ts) &&
                left_out_event(j, ev, ki->lean)) {
                ev->left_out = 1;
                return tp_json_skip_rest(j, n);
            }
        }
    }
    return r < 0 ? -1 : 0;
}

static int read_event(tp_json *j, struct event *ev, struct key_indexes *ki)
{
    clear_event(ev);
    if (tp_json_type(j) != TP_J_OBJECT) {
        if (tp_json_peek(j) < 0)
            return tp_json_fail(j, TP_ERR_TRUNCATED, "unexpected end of input (truncated JSON?)");
        struct jv skip;
        if (read_value(j, &skip) < 0)
            return -1;
        return 1;   /* not an object: caller counts it */
    }
    return read_members(j, ev, ki, &ki->event);
}

/* ---- turning spans into fields ---- */

/* An integer field: JSON number or numeric string.  1 ok, 0 absent, -1 bad. */
static int get_i64(tp_json *j, const struct jv *v, int64_t *out)
{
    if (v->type == TP_J_NONE || v->type == TP_J_NULL)
        return 0;
    if (v->type != TP_J_NUMBER && v->type != TP_J_STRING)
        return -1;
    if (v->has_int == 1) {
        *out = v->i;
        return 1;
    }
    const char *s = tp_json_ptr(j, v->s);
    if (v->s.len && ((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z'))
        return -1;   /* a name ("stream 7"): strtod reads no integer from a letter on (inf, nan are no ids) */
    if (tp_decimal_to_i64(s, v->s.len, out) == 0)
        return 1;
    /* Some exporters write ids as floats (1.0e3); accept integral doubles. */
    double d;
    /* The range check comes first: casting a double outside int64's range
     * (an id of 2e37) is undefined behaviour, not just a wrong value. */
    if (tp_decimal_to_double(s, v->s.len, &d) == 0 && d > -9.2e18 && d < 9.2e18 && d == (double)(int64_t)d) {
        *out = (int64_t)d;
        return 1;
    }
    return -1;
}

static int get_double(tp_json *j, const struct jv *v, double *out)
{
    if (v->type == TP_J_NONE || v->type == TP_J_NULL)
        return 0;
    if (v->type != TP_J_NUMBER && v->type != TP_J_STRING)
        return -1;
    const char *s = tp_json_ptr(j, v->s);
    if (v->has_int == 1 && (v->i != 0 || s[0] != '-')) {
        /* an integer of up to 18 digits rounds to the double strtod gives
         * (to nearest, ties to even); "-0" is strtod's -0.0 */
        *out = (double)v->i;
        return 1;
    }
    return tp_decimal_to_double(s, v->s.len, out) == 0 ? 1 : -1;
}

static int get_ns(tp_json *j, const struct jv *v, int64_t *out)
{
    if (v->type == TP_J_NONE)
        return 0;
    if (v->type != TP_J_NUMBER && v->type != TP_J_STRING)
        return -1;
    if (v->has_int == TP_JSON_MILLI) {
        *out = v->i;   /* a decimal of up to 3 places, read as thousandths */
        return 1;
    }
    if (v->has_int == 1 && v->i >= 0 && v->i <= INT64_MAX / 1000) {
        *out = v->i * 1000;   /* what tp_decimal_us_to_ns makes of the text */
        return 1;
    }
    return tp_decimal_us_to_ns(tp_json_ptr(j, v->s), v->s.len, out) == 0 ? 1 : -1;
}

/* The id of a string value.  Of field f (but F_OTHER) the last string is
 * tried first, with a compare: on a 1 GB trace half the strings are the
 * last one of their field again (an operator's children share its call
 * stack), and a compare of a kilobyte costs less than its hash and the
 * table's cache misses.  An equal string gets the same id from the table. */
static uint32_t get_str(struct importer *im, const struct jv *v, enum text_field f)
{
    if (v->type == TP_J_NONE)
        return 0;
    const char *p = tp_json_ptr(im->j, v->s);
    tp_strtab *t = &im->st->strings;
    if (f != F_OTHER) {
        uint32_t last = im->last[f];
        if (tp_strtab_len(t, last) == v->s.len && memcmp(tp_strtab_get(t, last), p, v->s.len) == 0)
            return last;
    }
    /* Text straight from the input has no NUL byte when the reader has met
     * no control character in a string: no search for one. */
    uint32_t id = !(v->s.off & TP_JSPAN_SCRATCH) && !im->j->control_chars ? tp_strtab_intern(t, p, v->s.len)
                                                                            : tp_store_intern(im->st, p, v->s.len);
    if (id == UINT32_MAX) {
        im->oom = 1;   /* the caller fails at the event's end; "" stands in until then */
        return 0;
    }
    if (f != F_OTHER)
        im->last[f] = id;
    return id;
}

/* pid/tid: numbers, numeric strings, or names ("stream 7", "Spans"). */
static int64_t get_id(struct importer *im, const struct jv *v, enum text_field f)
{
    int64_t x;
    if (v->type == TP_J_NONE)
        return TP_NONE;
    if (get_i64(im->j, v, &x) == 1 && x < TP_TID_STRING)
        return x;   /* negative ids too */
    return TP_TID_STRING | (int64_t)get_str(im, v, f);
}

/* [x, y, z] of small ints. */
static void get_dim3(tp_json *j, const struct jv *v, int32_t out[3])
{
    if (v->type != TP_J_ARRAY)
        return;
    const char *s = tp_json_ptr(j, v->s), *e = s + v->s.len;
    for (int d = 0; d < 3 && s < e; d++) {
        while (s < e && !(*s >= '0' && *s <= '9') && *s != '-')
            s++;
        if (s >= e)
            break;
        char *end;
        long x = strtol(s, &end, 10);
        out[d] = (int32_t)x;
        s = end;
    }
}

static int64_t pick_i64(struct importer *im, const struct jv *v, const char *what, uint64_t off, int *bad)
{
    if (v->type == TP_J_NONE)
        return TP_NONE;   /* most keys, on most events: no call */
    int64_t x;
    int r = get_i64(im->j, v, &x);
    if (r == 1)
        return x;
    if (r < 0) {
        char reason[96];
        snprintf(reason, sizeof reason, "%s is not an integer", what);
        tp_store_bad(im->st, reason, off);
        *bad = 1;
    }
    return TP_NONE;
}

/* Out of memory half way through a row: the row goes (a kernel without its
 * kernel record, a name without its string, is no row); the rows before it
 * stay, and the error names the byte. */
static int drop_row_oom(tp_store *st, int64_t row, tp_json *j)
{
    st->n = (size_t)row;
    while (st->ncolls && st->colls[st->ncolls - 1].row >= row)
        st->ncolls--;
    tp_store_trim_seqs(st);
    return tp_json_fail(j, TP_ERR_NOMEM, "out of memory");
}

/* A text field of a collective: a string, or a number kept as written
 * ("Process Group ID": 0); anything else absent. */
static uint32_t coll_str(struct importer *im, const struct jv *v)
{
    return v->type == TP_J_STRING || v->type == TP_J_NUMBER ? get_str(im, v, F_OTHER) : 0;
}

/* The collective record of a kernel or operator that carries one. */
static int add_coll(struct importer *im, struct event *ev, size_t row, uint64_t off, int *bad)
{
    struct tp_coll_info *c = tp_store_add_coll_info(im->st, row);
    if (!c)
        return -1;
    c->name = coll_str(im, &ev->coll_name);
    c->dtype = coll_str(im, &ev->dtype);
    c->pg_name = coll_str(im, ev->pg_name.type != TP_J_NONE ? &ev->pg_name : &ev->pg_id);
    c->pg_desc = coll_str(im, &ev->pg_desc);
    c->pg_ranks = coll_str(im, &ev->pg_ranks);
    c->in_nelems = pick_i64(im, &ev->in_nelems, "\"In msg nelems\"", off, bad);
    c->out_nelems = pick_i64(im, &ev->out_nelems, "\"Out msg nelems\"", off, bad);
    c->group_size = pick_i64(im, &ev->group_size, "\"Group size\"", off, bad);
    c->seq = pick_i64(im, &ev->coll_seq, "\"Seq\"", off, bad);
    return 0;
}

/* The fields every event needs: "ph", "ts" (but for metadata), "dur" and
 * the types of "name" and "cat".  1 when usable (*ph, *ts, *dur set), 0
 * when the event is counted as malformed and skipped. */
static int check_event(tp_store *st, tp_json *j, const struct event *ev, uint64_t off, char *ph, int64_t *ts,
                       int64_t *dur)
{
    if (ev->ph.type != TP_J_STRING || ev->ph.s.len < 1) {
        tp_store_bad(st, ev->ph.type == TP_J_NONE ? "event without \"ph\"" : "\"ph\" is not a string", off);
        return 0;
    }
    *ph = tp_json_ptr(j, ev->ph.s)[0];
    *ts = *dur = 0;
    int r = get_ns(j, &ev->ts, ts);
    const char *why = r < 0                                        ? "\"ts\" is not a number in range"
                      : r == 0 && *ph != 'M'                       ? "event without \"ts\""
                      : get_ns(j, &ev->dur, dur) < 0               ? "\"dur\" is not a number in range"
                      : ev->name.type != TP_J_NONE && ev->name.type != TP_J_STRING ? "\"name\" is not a string"
                      : ev->cat.type != TP_J_NONE && ev->cat.type != TP_J_STRING   ? "\"cat\" is not a string"
                      : *dur < 0                                   ? "negative \"dur\""
                      : *ts > INT64_MAX / 2 || *ts < INT64_MIN / 2 || *dur > INT64_MAX / 4
                          ? "timestamp out of range"
                          : NULL;
    if (why)
        tp_store_bad(st, why, off);
    return why == NULL;
}

/* The kind of row `row` by its phase and category; a flow's id goes to
 * `correlation`. */
static enum tp_kind event_kind(struct importer *im, const struct event *ev, int64_t row, char ph, uint64_t off,
                               int *bad)
{
    tp_store *st = im->st;
    switch (ph) {
    case 'X':
        return cat_kind(im, st->cat[row]);
    case 'i': case 'I':
        return st->name[row] == im->memory_name ? TP_K_MEMORY : TP_K_INSTANT;
    case 's': case 'f': case 't':
        if (ev->id.type == TP_J_STRING && get_i64(im->j, &ev->id, &st->correlation[row]) != 1) {
            /* Ascend's HostToDevice flows carry string ids past int64
             * ("40004068119343529983"): flows only pair s with f, so a
             * 62-bit hash of the text stands in (bit 62 set: never equal to
             * a numeric id below 2^62). */
            const unsigned char *p = (const unsigned char *)tp_json_ptr(im->j, ev->id.s);
            uint64_t h = 0xcbf29ce484222325ULL;
            for (uint32_t q = 0; q < ev->id.s.len; q++)
                h = (h ^ p[q]) * 0x100000001b3ULL;
            st->correlation[row] = (int64_t)((h & ((UINT64_C(1) << 62) - 1)) | (UINT64_C(1) << 62));
        } else {
            st->correlation[row] = pick_i64(im, &ev->id, "flow \"id\"", off, bad);
        }
        return TP_K_FLOW;
    case 'C': return TP_K_COUNTER;
    case 'M': return TP_K_META;
    default: return TP_K_OTHER;
    }
}

/* The args every kind may carry: ids, device and stream (row -1: only
 * checked, for a python frame a TP_LEAN_PYGRAPH load leaves out). */
static void read_common_args(struct importer *im, const struct event *ev, int64_t row, enum tp_kind kind,
                             uint64_t off, int *bad)
{
    tp_store *st = im->st;
    const struct jv *ext = ev->ext_id.type != TP_J_NONE ? &ev->ext_id : &ev->ext_id_lc;
    int64_t x = pick_i64(im, ext, "\"External id\"", off, bad);
    if (row >= 0 && tp_store_set_ext(st, (size_t)row, x) < 0)
        im->oom = 1;   /* an id past 32 bits, and no memory for the 64-bit column */
    if (kind != TP_K_FLOW) {
        x = pick_i64(im, &ev->correlation, "\"correlation\"", off, bad);
        if (row >= 0)
            st->correlation[row] = x;
    }
    im->seq = pick_i64(im, &ev->seq, "\"Sequence number\"", off, bad);
    x = pick_i64(im, &ev->device, "\"device\"", off, bad);
    if (x != TP_NONE && row >= 0)
        st->device[row] = (int32_t)x;
    x = pick_i64(im, &ev->stream, "\"stream\"", off, bad);
    if (x != TP_NONE && row >= 0)
        st->stream[row] = (int32_t)x;
}

static int read_kernel_args(struct importer *im, const struct event *ev, int64_t row, uint64_t off, int *bad)
{
    struct tp_kernel_info *k = tp_store_add_kernel_info(im->st, (size_t)row);
    if (!k)
        return -1;
    get_dim3(im->j, &ev->grid, k->grid);
    get_dim3(im->j, &ev->block, k->block);
    int64_t x = pick_i64(im, &ev->regs, "\"registers per thread\"", off, bad);
    if (x != TP_NONE)
        k->regs = (int32_t)x;
    x = pick_i64(im, &ev->smem, "\"shared memory\"", off, bad);
    if (x != TP_NONE)
        k->smem = x;
    x = pick_i64(im, &ev->bytes, "\"bytes\"", off, bad);
    if (x != TP_NONE)
        k->bytes = x;
    double d;
    if (get_double(im->j, &ev->bps, &d) == 1)
        k->blocks_per_sm = d;
    if (get_double(im->j, &ev->occ, &d) == 1)
        k->occupancy = d;
    return 0;
}

/* "Event Sync" and "Stream Wait Event" name the cudaEventRecord they wait
 * for and the stream it recorded on: the critical path joins them to the
 * kernel the event recorded (critical_path_sync.c). */
static int read_sync_args(struct importer *im, const struct event *ev, int64_t row, uint64_t off, int *bad)
{
    int64_t corr = pick_i64(im, &ev->wait_corr, "\"wait_on_cuda_event_record_corr_id\"", off, bad);
    int64_t ws = pick_i64(im, &ev->wait_stream, "\"wait_on_stream\"", off, bad);
    if (corr == TP_NONE && ws == TP_NONE)
        return 0;
    struct tp_kernel_info *k = tp_store_add_kernel_info(im->st, (size_t)row);
    if (!k)
        return -1;
    k->sync_record_corr = corr;
    if (ws != TP_NONE && ws >= INT32_MIN && ws <= INT32_MAX)
        k->sync_wait_stream = (int32_t)ws;
    return 0;
}

/* An operator's python ids and "Fwd thread id" (ids[0..3]), checked. */
static void pick_op_ids(struct importer *im, const struct event *ev, uint64_t off, int *bad, int64_t ids[4])
{
    ids[0] = pick_i64(im, &ev->py_id, "\"Python id\"", off, bad);
    ids[1] = pick_i64(im, &ev->py_parent, "\"Python parent id\"", off, bad);
    ids[2] = pick_i64(im, &ev->py_module, "\"Python module id\"", off, bad);
    ids[3] = pick_i64(im, &ev->fwd_tid, "\"Fwd thread id\"", off, bad);
}

static int read_op_args(struct importer *im, const struct event *ev, int64_t row, uint64_t off, int *bad)
{
    struct tp_op_info *o = tp_store_add_op_info(im->st, (size_t)row);
    if (!o)
        return -1;
    if (ev->input_dims.type == TP_J_ARRAY)
        o->input_dims = get_str(im, &ev->input_dims, F_DIMS);
    if (ev->input_type.type == TP_J_ARRAY)
        o->input_types = get_str(im, &ev->input_type, F_TYPES);
    if (ev->input_strides.type == TP_J_ARRAY)
        o->input_strides = get_str(im, &ev->input_strides, F_STRIDES);
    if (ev->concrete_inputs.type == TP_J_ARRAY)
        o->concrete_inputs = get_str(im, &ev->concrete_inputs, F_CONCRETE);
    if (ev->call_stack.type == TP_J_STRING)
        o->call_stack = get_str(im, &ev->call_stack, F_STACK);
    int64_t ids[4];
    pick_op_ids(im, ev, off, bad, ids);
    if (tp_store_set_py(im->st, o, ids[0], ids[1], ids[2]) < 0)
        return -1;
    return tp_store_set_fwd_thread(im->st, (size_t)(o - im->st->ops), ids[3]);
}

static int read_mem_args(struct importer *im, const struct event *ev, int64_t row, uint64_t off, int *bad)
{
    struct tp_mem_info *m = tp_store_add_mem_info(im->st, (size_t)row);
    if (!m)
        return -1;
    int64_t x = pick_i64(im, &ev->dev_type, "\"Device Type\"", off, bad);
    if (x != TP_NONE)
        m->device_type = (int32_t)x;
    x = pick_i64(im, &ev->dev_id, "\"Device Id\"", off, bad);
    if (x != TP_NONE)
        m->device_id = (int32_t)x;
    m->addr = pick_i64(im, &ev->addr, "\"Addr\"", off, bad);
    m->bytes = pick_i64(im, &ev->mem_bytes, "\"Bytes\"", off, bad);
    m->total_allocated = pick_i64(im, &ev->total_alloc, "\"Total Allocated\"", off, bad);
    m->total_reserved = pick_i64(im, &ev->total_reserved, "\"Total Reserved\"", off, bad);
    return 0;
}

/* One event into a row: the fields every event has, its kind, then the
 * side table of its kind.  A malformed event is counted and dropped. */
static int add_event(struct importer *im, struct event *ev, uint64_t off)
{
    tp_store *st = im->st;
    tp_json *j = im->j;
    char ph;
    int64_t ts, dur;
    if (!check_event(st, j, ev, off, &ph, &ts, &dur))
        return 0;
    int bad = 0;
    int64_t row = tp_store_add(st);
    if (row < 0)
        return tp_json_fail(j, TP_ERR_NOMEM, "out of memory");
    st->ph[row] = ph;
    st->ts[row] = ts;
    st->dur[row] = dur;
    st->name[row] = get_str(im, &ev->name, F_NAME);
    st->cat[row] = get_str(im, &ev->cat, F_CAT);
    st->pid[row] = get_id(im, &ev->pid, F_PID);
    st->tid[row] = get_id(im, &ev->tid, F_TID);
    enum tp_kind kind = event_kind(im, ev, row, ph, off, &bad);
    st->kind[row] = (uint8_t)kind;
    im->seq = TP_NONE;
    if (ev->has_args)
        read_common_args(im, ev, row, kind, off, &bad);
    int rc = 0;
    switch (kind) {
    case TP_K_KERNEL: case TP_K_MEMCPY: case TP_K_MEMSET:
        rc = read_kernel_args(im, ev, row, off, &bad);
        break;
    case TP_K_SYNC:
        rc = read_sync_args(im, ev, row, off, &bad);
        break;
    case TP_K_CPU_OP: case TP_K_USER_ANNOTATION: case TP_K_GPU_USER_ANNOTATION: case TP_K_PYTHON_FUNCTION:
        rc = read_op_args(im, ev, row, off, &bad);
        break;
    case TP_K_MEMORY:
        rc = read_mem_args(im, ev, row, off, &bad);
        break;
    case TP_K_META:
        if (ev->meta_name.type == TP_J_STRING)
            st->aux[row] = get_str(im, &ev->meta_name, F_OTHER);
        else if (ev->meta_labels.type == TP_J_STRING)
            st->aux[row] = get_str(im, &ev->meta_labels, F_OTHER);
        break;
    default:
        break;
    }
    if (rc == 0 && !bad && ev->has_coll && (kind == TP_K_KERNEL || kind == TP_K_CPU_OP)) {
        if (add_coll(im, ev, (size_t)row, off, &bad) < 0)
            return drop_row_oom(st, row, j);
        if (bad)
            st->ncolls--;   /* the row goes, and its record with it */
    }
    if (rc < 0 || im->oom)
        return drop_row_oom(st, row, j);
    if (bad)
        st->n--;   /* drop the row; the reason is counted */
    else if (tp_store_set_seq(st, (size_t)row, im->seq) < 0)
        return drop_row_oom(st, row, j);
    return 0;
}

/* Under TP_LEAN_FLOWS to TP_LEAN_TREE, once the whole event is read: 1
 * for a flow event but a forward-backward one (category "fwdbwd", as
 * tbtree_bwd.c reads them).  Read whole, and checked as every event is,
 * so that a malformed one is counted as in a whole load (info, check). */
static int left_out_flow(tp_json *j, const struct event *ev)
{
    if (ev->ph.type != TP_J_STRING || ev->ph.s.len == 0)
        return 0;
    char ph = tp_json_ptr(j, ev->ph.s)[0];
    if (ph != 's' && ph != 'f' && ph != 't')
        return 0;
    return ph == 't' || (ev->cat.type == TP_J_STRING &&
                         !(ev->cat.s.len == 6 && memcmp(tp_json_ptr(j, ev->cat.s), "fwdbwd", 6) == 0));
}

/* Under TP_LEAN_PYGRAPH to TP_LEAN_TREE, once the whole event is read: 1
 * for a complete python_function event (its category, case aside) that is no nn.Module
 * call (no "Python module id": the operator tree makes module nodes of
 * those, tbtree.c) and not named like an autograd node (a kernel's
 * direction, link_annot.c).  Read whole because the module id is the
 * last thing it says; what is saved is its row, its strings and its link
 * (and the check of its args' ids). */
static int left_out_python(tp_json *j, const struct event *ev)
{
    if (ev->ph.type != TP_J_STRING || ev->ph.s.len != 1 || tp_json_ptr(j, ev->ph.s)[0] != 'X' ||
        ev->cat.type != TP_J_STRING || ev->cat.s.len != 15 ||
        strncasecmp(tp_json_ptr(j, ev->cat.s), "python_function", 15) != 0 || ev->name.type != TP_J_STRING)
        return 0;
    if (ev->py_module.type != TP_J_NONE && ev->py_module.type != TP_J_NULL)
        return 0;
    return !tp_is_autograd_name(tp_json_ptr(j, ev->name.s), ev->name.s.len);
}

/* A left-out event's start and duration into the store's left_out_*
 * (see leave_out). */
static void left_out_span(tp_store *st, char ph, int64_t ts, int64_t dur)
{
    if (ph == 'X' && ts < st->left_out_first_ts)
        st->left_out_first_ts = ts;
    int64_t end = ph == 'X' && dur > 0 ? ts + dur : ts;
    if (ts < st->left_out_lo)
        st->left_out_lo = ts;
    if (end > st->left_out_hi)
        st->left_out_hi = end;
}

/* An event a lean store leaves out: counted, and a python_function
 * event's start kept when it is the earliest such complete event (a whole
 * load's first host event may be one; attribution.c reads
 * tp_store.left_out_first_ts), and the span of the events it leaves out
 * that are no flow (tp_store.left_out_lo, left_out_hi: the trace's span
 * may begin or end with one, gpu_series.c; complete for TP_LEAN_PYGRAPH
 * to TP_LEAN_TREE, which read every start and duration of them).  Flows
 * and instants are no host events. */
static void leave_out(tp_store *st, tp_json *j, const struct event *ev)
{
    int64_t ts, dur;
    st->left_out++;
    char ph = tp_json_ptr(j, ev->ph.s)[0];
    if (ph == 's' || ph == 'f' || ph == 't' || get_ns(j, &ev->ts, &ts) != 1)
        return;
    dur = 0;
    if (ph == 'X' && ev->dur.type != TP_J_NONE && get_ns(j, &ev->dur, &dur) != 1)
        dur = 0;
    left_out_span(st, ph, ts, dur);
}

/* Under TP_LEAN_PYGRAPH, a python frame left_out_python leaves out:
 * checked as a whole load checks its row (check_event, then the integers
 * of its args in add_event's order; a bad one is counted and the frame
 * dropped, as its row would be), counted as left out, and with a "Python
 * id" kept in st->pyframes for the module hierarchy (modtree_py.c). */
static int keep_pyframe(struct importer *im, const struct event *ev, uint64_t off)
{
    char ph;
    int64_t ts, dur, ids[4];
    if (!check_event(im->st, im->j, ev, off, &ph, &ts, &dur))
        return 0;
    int bad = 0;
    if (ev->has_args)
        read_common_args(im, ev, -1, TP_K_PYTHON_FUNCTION, off, &bad);
    pick_op_ids(im, ev, off, &bad, ids);
    if (bad)
        return 0;
    tp_store *st = im->st;
    st->left_out++;
    st->left_out_py++;
    left_out_span(st, ph, ts, dur);   /* leave_out's, with what check_event read */
    if (ids[0] != TP_NONE && tp_store_add_pyframe(st, ts, ids[0], ids[1]) < 0)
        return tp_json_fail(im->j, TP_ERR_NOMEM, "out of memory");
    return 0;
}

/* Under TP_LEAN_PYGRAPH, 1 for a frame left_out_python would leave out
 * that is kept as a row all the same: one named like a step
 * ("ProfilerStep#", or with an escape that may decode to it: HTA's
 * --hta-quirks and the critical path's window match every event's name,
 * hta.c, critical_path_window.c) or with a "stream" of 0 or more, as
 * read_common_args stores it (HTA's GPU events with --hta-quirks, the
 * critical path's attribution: tp_cp_lean_serves). */
static int frame_kept_at_pygraph(tp_json *j, const struct event *ev)
{
    const char *name = tp_json_ptr(j, ev->name.s);
    size_t len = ev->name.s.len;
    int64_t stream;
    return (len >= 13 && memcmp(name, "ProfilerStep#", 13) == 0) || memchr(name, '\\', len) ||
           (ev->has_args && get_i64(j, &ev->stream, &stream) == 1 && (int32_t)stream >= 0);
}

static int read_events(struct importer *im)
{
    tp_json *j = im->j;
    if (tp_json_arr_begin(j) < 0)
        return -1;
    int n = 0, r;
    struct event ev;
    memset(&ev, 0, sizeof ev);
    for (;;) {
        tp_json_set_mark(j);
        r = tp_json_arr_next(j, &n);
        if (r <= 0)
            break;
        uint64_t off = tp_json_offset(j);
        int e = read_event(j, &ev, &im->keys);
        if (e < 0)
            return -1;
        if (e == 1) {
            tp_store_bad(im->st, "event is not an object", off);
            continue;
        }
        if (ev.left_out)
            leave_out(im->st, j, &ev);
        else if (im->keys.lean >= TP_LEAN_PYGRAPH && im->keys.lean <= TP_LEAN_TREE && left_out_python(j, &ev) &&
                 !(im->keys.lean == TP_LEAN_PYGRAPH && frame_kept_at_pygraph(j, &ev))) {
            /* checked as every event is (its phase, start, duration, name): a
             * bad one is counted as in a whole load */
            char ph;
            int64_t ts, dur;
            if (im->keys.lean == TP_LEAN_PYGRAPH) {
                if (keep_pyframe(im, &ev, off) < 0)
                    return -1;
            } else if (check_event(im->st, j, &ev, off, &ph, &ts, &dur)) {
                leave_out(im->st, j, &ev);
                im->st->left_out_py++;
            }
        }
        else if (im->keys.lean && im->keys.lean < TP_LEAN_KERNELS && left_out_flow(j, &ev)) {
            /* checked as every event is (its phase, start, duration, name,
             * its id): a bad one is counted as in a whole load */
            char ph;
            int64_t ts, dur;
            int bad = 0;
            if (check_event(im->st, j, &ev, off, &ph, &ts, &dur) &&
                (ev.id.type == TP_J_STRING || (pick_i64(im, &ev.id, "flow \"id\"", off, &bad), !bad)))
                leave_out(im->st, j, &ev);
        }
        else {
            size_t row = im->st->n;
            if (add_event(im, &ev, off) < 0)
                return -1;
            /* TP_LEAN_MEMORY_PEAKS: a memory event made into a row as in a
             * whole load (so a bad one is counted the same), then folded
             * into the GPU peaks: no later pass sees it */
            if (im->keys.lean == TP_LEAN_MEMORY_PEAKS && im->st->n > row && im->st->kind[row] == TP_K_MEMORY) {
                leave_out(im->st, j, &ev);
                tp_store_fold_memory_row(im->st, row);
            }
        }
    }
    return r;
}

static int read_devices(struct importer *im)
{
    tp_json *j = im->j;
    tp_store *st = im->st;
    if (tp_json_type(j) != TP_J_ARRAY)
        return tp_json_skip(j, NULL);
    if (tp_json_arr_begin(j) < 0)
        return -1;
    int n = 0, r;
    /* The array grows by doubling: one device more per realloc made a
     * deviceProperties of two million objects (a trace grown wrong) take
     * 42,000 mremap calls that each moved the whole array. */
    size_t cap = st->ndevices;
    while ((r = tp_json_arr_next(j, &n)) == 1) {
        if (tp_json_type(j) != TP_J_OBJECT) {
            if (tp_json_skip(j, NULL) < 0)
                return -1;
            continue;
        }
        if (st->ndevices == cap) {
            size_t c = cap ? cap * 2 : 8;
            struct tp_device *grown = realloc(st->devices, c * sizeof *grown);
            if (!grown)
                return tp_json_fail(j, TP_ERR_NOMEM, "out of memory");
            st->devices = grown;
            cap = c;
        }
        struct tp_device *d = &st->devices[st->ndevices++];
        memset(d, 0, sizeof *d);
        d->id = (int32_t)(st->ndevices - 1);   /* the plugin indexes by position */
        if (tp_json_obj_begin(j) < 0)
            return -1;
        int m = 0, q;
        tp_jspan key;
        while ((q = tp_json_obj_next(j, &m, &key)) == 1) {
            /* Which field the key names is decided before the value is read:
             * reading it can refill (move) the window or grow the escape
             * scratch, and either leaves a pointer to the key dangling. */
            const char *k = tp_json_ptr(j, key);
            int is_name = KEY("name");
            int64_t *wide = NULL;
            int32_t *narrow = NULL;
            if (KEY("id")) narrow = &d->id;
            else if (KEY("totalGlobalMem")) wide = &d->total_mem;
            else if (KEY("computeMajor")) narrow = &d->major;
            else if (KEY("computeMinor")) narrow = &d->minor;
            else if (KEY("numSms")) narrow = &d->num_sms;
            else if (KEY("maxThreadsPerMultiprocessor")) narrow = &d->max_threads_per_sm;
            else if (KEY("maxThreadsPerBlock")) narrow = &d->max_threads_per_block;
            else if (KEY("regsPerBlock")) narrow = &d->regs_per_block;
            else if (KEY("regsPerMultiprocessor")) narrow = &d->regs_per_sm;
            else if (KEY("warpSize")) narrow = &d->warp_size;
            else if (KEY("sharedMemPerBlock")) wide = &d->smem_per_block;
            else if (KEY("sharedMemPerMultiprocessor")) wide = &d->smem_per_sm;
            else if (KEY("sharedMemPerBlockOptin")) wide = &d->smem_optin;
            k = NULL;
            struct jv v;
            if (read_value(j, &v) < 0)
                return -1;
            int64_t x = 0;
            if (is_name)
                d->name = v.type == TP_J_STRING ? get_str(im, &v, F_OTHER) : 0;
            else if ((wide || narrow) && get_i64(j, &v, &x) == 1) {
                if (wide)
                    *wide = x;
                else if (x >= INT32_MIN && x <= INT32_MAX)
                    *narrow = (int32_t)x;
            }
        }
        if (q < 0)
            return -1;
        if (im->oom)
            return tp_json_fail(j, TP_ERR_NOMEM, "out of memory");
    }
    return r;
}

static int read_distributed(struct importer *im)
{
    tp_json *j = im->j;
    if (tp_json_type(j) != TP_J_OBJECT)
        return tp_json_skip(j, NULL);
    if (tp_json_obj_begin(j) < 0)
        return -1;
    int n = 0, r;
    tp_jspan key;
    while ((r = tp_json_obj_next(j, &n, &key)) == 1) {
        const char *k = tp_json_ptr(j, key);
        int is_rank = KEY("rank"), is_ws = KEY("world_size"), is_backend = KEY("backend");
        struct jv v;
        if (read_value(j, &v) < 0)
            return -1;
        int64_t x;
        if (is_rank && get_i64(j, &v, &x) == 1)
            im->st->rank = x;
        else if (is_ws && get_i64(j, &v, &x) == 1)
            im->st->world_size = x;
        else if (is_backend && v.type == TP_J_STRING)
            im->st->dist_backend = get_str(im, &v, F_OTHER);
        if (im->oom)
            return tp_json_fail(j, TP_ERR_NOMEM, "out of memory");
    }
    return r;
}

/* Where the rows of a "traceEvents" array begin. */
struct store_mark {
    size_t n, nkernels, nops, nmems, npyframes;
};

/* A second top-level "traceEvents": Python's json (and so the TensorBoard
 * plugin) keeps the last value of a repeated key, so the rows of the earlier
 * array go, counted under a reason that `info` shows. */
static void drop_earlier_events(tp_store *st, const struct store_mark *first, uint64_t off)
{
    size_t dropped = st->n - first->n + st->left_out;   /* a lean load's too: as a whole load counts */
    st->n = first->n;
    st->left_out = 0;   /* the events left out were the earlier array's too */
    st->left_out_py = 0;
    st->left_out_first_ts = INT64_MAX;
    st->left_out_lo = INT64_MAX;
    st->left_out_hi = INT64_MIN;
    st->nkernels = first->nkernels;
    st->nops = first->nops;
    st->nmems = first->nmems;
    st->pyframes.n = first->npyframes;
    tp_store_trim_seqs(st);
    tp_store_trim_fwds(st);
    static const char reason[] = "\"traceEvents\" repeats: the last array wins (as in Python's json), "
                                 "earlier events dropped";
    tp_store_skip(st, reason, off);
    for (size_t i = 0; i < st->nskips; i++)
        if (strcmp(st->skips[i].reason, reason) == 0 && dropped > 0)
            st->skips[i].count += dropped - 1;   /* count the events, not the repeats */
}

int tp_ingest_kineto(tp_store *st, tp_source *src, tp_error *err)
{
    tp_json j;
    if (tp_json_init_source(&j, src, err) != TP_OK)
        return err->status;
    struct importer im = { .st = st, .j = &j };
    key_indexes_init(&im.keys);
    im.keys.lean = st->lean;
    im.memory_name = tp_store_intern(st, "[memory]", 8);
    st->format = TP_SRC_KINETO_JSON;
    int rc = 0, saw_events = 0;
    struct store_mark first = {0, 0, 0, 0, 0};
    int c = tp_json_peek(&j);
    if (c == '[') {
        saw_events = 1;
        rc = read_events(&im);
    } else if (c == '{') {
        rc = tp_json_obj_begin(&j);
        int n = 0, r = 0;
        tp_jspan key;
        while (rc >= 0 && (r = tp_json_obj_next(&j, &n, &key)) == 1) {
            const char *k = tp_json_ptr(&j, key);
            if (KEY("traceEvents")) {
                if (saw_events)
                    drop_earlier_events(st, &first, tp_json_offset(&j));
                else
                    first = (struct store_mark){st->n, st->nkernels, st->nops, st->nmems, st->pyframes.n};
                saw_events = 1;
                if (tp_json_type(&j) != TP_J_ARRAY) {
                    rc = tp_json_fail(&j, TP_ERR_FORMAT, "\"traceEvents\" is not an array");
                    break;
                }
                rc = read_events(&im);
            } else if (KEY("deviceProperties")) {
                rc = read_devices(&im);
            } else if (KEY("distributedInfo")) {
                rc = read_distributed(&im);
            } else if (KEY("baseTimeNanoseconds") || KEY("schemaVersion")) {
                int is_base = KEY("baseTimeNanoseconds");
                struct jv v;
                rc = read_value(&j, &v);
                int64_t x;
                if (rc >= 0 && get_i64(&j, &v, &x) == 1) {
                    if (is_base)
                        st->base_time_ns = x;
                    else
                        st->schema_version = (int32_t)x;
                }
            } else {
                rc = tp_json_skip(&j, NULL);
            }
            tp_json_set_mark(&j);
        }
        if (r < 0)
            rc = -1;
    } else if (c < 0) {
        rc = j.failed ? -1 : tp_json_fail(&j, TP_ERR_FORMAT, "empty input: not a trace");
    } else {
        rc = tp_json_fail(&j, TP_ERR_FORMAT, "not JSON (expected '{' or '[')");
    }
    if (rc >= 0 && tp_json_peek(&j) >= 0)
        rc = tp_json_fail(&j, TP_ERR_FORMAT, "unexpected data after the end of the JSON document");
    if (rc >= 0 && j.failed)
        rc = -1;   /* the source failed after the document (corrupt compressed data past its end) */
    if (rc >= 0 && !saw_events)
        rc = tp_json_fail(&j, TP_ERR_FORMAT, "JSON without \"traceEvents\": not a PyTorch profiler trace");
    if (j.control_chars) {
        char reason[96];
        snprintf(reason, sizeof reason, "raw control characters inside strings (%llu)",
                 (unsigned long long)j.control_chars);
        tp_store_bad(st, reason, j.first_control_off);
    }
    st->text_bytes = tp_json_offset(&j);
    st->truncated = rc < 0 && err->status == TP_ERR_TRUNCATED;
    free(im.cat_kind);
    tp_json_free(&j);
    return rc < 0 ? (err->status ? err->status : TP_ERR_FORMAT) : TP_OK;
}
