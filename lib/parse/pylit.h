/* pylit.h — a parser for the Python literals PyProf writes: the NVTX marker
 * strings ({'mod': 'torch', 'op': 'addmm', 'args': [...]}) and the lines of
 * parse.py's dict files (one repr(dict) per line).
 *
 * Grammar: dict {k: v, ...}, list [...], tuple (...) / (x,), str with single,
 * double or triple quotes and Python escapes (\\ \' \" \n \t \r \a \b \f \v
 * \ooo \xhh \uXXXX \UXXXXXXXX, prefixes r/u/b), int (any size; those beyond
 * int64 keep a double), float (1e-05, 2.0, .5, inf, nan), True, False, None,
 * and a leading unary minus/plus.  Values live in an arena freed at once. */
#ifndef TPROF_PYLIT_H
#define TPROF_PYLIT_H

#include <stddef.h>
#include <stdint.h>

enum py_type { PY_NONE, PY_BOOL, PY_INT, PY_FLOAT, PY_STR, PY_LIST, PY_TUPLE, PY_DICT };

typedef struct py_val py_val;
struct py_val {
    enum py_type type;
    int64_t i;                 /* BOOL, INT (when !big) */
    double f;                  /* FLOAT; INT as a double too */
    int big;                   /* INT beyond int64 */
    const char *s;             /* STR: decoded UTF-8, NUL-terminated */
    size_t slen;
    size_t n;                  /* LIST/TUPLE/DICT: number of items (dict: pairs) */
    py_val *first, *next;      /* children: items, or dict values */
    py_val *key;               /* dict children: their key */
};

typedef struct pylit_arena pylit_arena;

pylit_arena *pylit_arena_new(void);
void pylit_arena_reset(pylit_arena *a);     /* drop every value, keep the memory */
void pylit_arena_free(pylit_arena *a);

/* Parse text[0..len) as one literal (surrounding white space allowed).
 * Returns the value, or NULL with *errpos set to the byte offset of the
 * problem and *errmsg to a short reason. */
py_val *pylit_parse(pylit_arena *a, const char *text, size_t len, size_t *errpos,
                    const char **errmsg);

/* Non-zero when an allocation failed since the last reset: a NULL from
 * pylit_parse then means "out of memory", not "not a literal". */
int pylit_arena_oom(const pylit_arena *a);

/* Dict lookup by string key (NULL when absent or not a dict). */
py_val *pylit_get(const py_val *dict, const char *key);
/* i-th item of a list/tuple (NULL when out of range). */
py_val *pylit_item(const py_val *seq, size_t i);
/* The string of a STR value, else NULL. */
const char *pylit_str(const py_val *v);
int pylit_is_seq(const py_val *v);      /* list or tuple */

/* Python truthiness-free equality of two values (same type and content;
 * ints compare with ints, tuples with tuples). */
int pylit_equal(const py_val *a, const py_val *b);

#endif
