/* opcall_marker.c — a PyProf argument marker (Python dict literal) as a tp_opcall.
 *
 *   {'mod': 'torch', 'op': 'addmm', 'args': [{'name': '', 'type': 'tensor',
 *    'shape': (512,), 'dtype': 'float32'}, {'name': 'alpha', 'type': 'int', 'value': 1}]}
 *
 * Argument mapping (struct tp_arg):
 *   'tensor'            TP_ARG_TENSOR, ndim/shape/dtype
 *   'ndarray'           TP_ARG_OTHER, svalue "ndarray", ndim/shape/dtype kept
 *   'int' / 'bool'      TP_ARG_INT / TP_ARG_BOOL, ivalue
 *   'float'             TP_ARG_FLOAT, fvalue ("inf"/"-inf"/"nan" strings decoded)
 *   'str'               TP_ARG_STR, svalue
 *   'NoneType'          TP_ARG_NONE
 *   'list' / 'tuple'    TP_ARG_LIST, svalue "list"/"tuple", ndim = item count,
 *                       shape[] = the items when they are ints, ivalue 1 if all are ints
 *   anything else       TP_ARG_OTHER, svalue = the Python type name
 * Returns 0, -1 when the text is not such a dict, -2 when it has more than
 * TP_MAX_ARGS arguments or a shape beyond TP_MAX_DIMS (the formulas then
 * report "na"). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "opcall.h"
#include "pylit.h"

static void copy_str(char *dst, size_t cap, const char *s)
{
    snprintf(dst, cap, "%s", s ? s : "");
}

static int fill_ints(struct tp_arg *a, const py_val *seq)
{
    a->ndim = 0;
    int all = 1;
    for (const py_val *x = seq->first; x; x = x->next) {
        if (a->ndim >= TP_MAX_DIMS)
            return -2;
        if (x->type == PY_INT && !x->big)
            a->shape[a->ndim] = x->i;
        else if (x->type == PY_BOOL)
            a->shape[a->ndim] = x->i;
        else {
            a->shape[a->ndim] = 0;
            all = 0;
        }
        a->ndim++;
    }
    return all;
}

int tp_opcall_from_marker(const char *text, struct tp_opcall *call)
{
    memset(call, 0, sizeof *call);
    if (!text)
        return -1;
    pylit_arena *ar = pylit_arena_new();
    if (!ar)
        return TP_OPCALL_NOMEM;
    int rc = 0;
    py_val *d = pylit_parse(ar, text, strlen(text), NULL, NULL);
    if (!d && pylit_arena_oom(ar)) {
        rc = TP_OPCALL_NOMEM;
        goto out;
    }
    py_val *mod = pylit_get(d, "mod"), *op = pylit_get(d, "op"), *args = pylit_get(d, "args");
    if (!d || !mod || !op || !args) {
        rc = -1;
        goto out;
    }
    copy_str(call->mod, sizeof call->mod, pylit_str(mod));
    copy_str(call->op, sizeof call->op, pylit_str(op));
    if (!pylit_is_seq(args)) {
        rc = -1;
        goto out;
    }
    for (py_val *x = args->first; x; x = x->next) {
        if (call->nargs >= TP_MAX_ARGS) {
            rc = -2;
            break;
        }
        struct tp_arg *a = &call->args[call->nargs++];
        copy_str(a->name, sizeof a->name, pylit_str(pylit_get(x, "name")));
        const char *type = pylit_str(pylit_get(x, "type"));
        py_val *value = pylit_get(x, "value");
        if (!type)
            type = "";
        if (strcmp(type, "tensor") == 0 || strcmp(type, "ndarray") == 0) {
            a->type = type[0] == 't' ? TP_ARG_TENSOR : TP_ARG_OTHER;
            if (a->type == TP_ARG_OTHER)
                copy_str(a->svalue, sizeof a->svalue, "ndarray");
            py_val *shape = pylit_get(x, "shape");
            if (pylit_is_seq(shape) && fill_ints(a, shape) == -2)
                rc = -2;
            copy_str(a->dtype, sizeof a->dtype, pylit_str(pylit_get(x, "dtype")));
        } else if (strcmp(type, "int") == 0) {
            a->type = TP_ARG_INT;
            a->ivalue = value && value->type == PY_INT ? value->i : 0;
            a->fvalue = value ? value->f : 0;
        } else if (strcmp(type, "bool") == 0) {
            a->type = TP_ARG_BOOL;
            a->ivalue = value ? value->i : 0;
        } else if (strcmp(type, "float") == 0) {
            a->type = TP_ARG_FLOAT;
            if (value && value->type == PY_STR)
                a->fvalue = strcmp(value->s, "inf") == 0 ? INFINITY
                            : strcmp(value->s, "-inf") == 0 ? -INFINITY : NAN;
            else if (value)
                a->fvalue = value->type == PY_INT ? (double)value->i : value->f;
        } else if (strcmp(type, "str") == 0) {
            a->type = TP_ARG_STR;
            copy_str(a->svalue, sizeof a->svalue, pylit_str(value));
        } else if (strcmp(type, "NoneType") == 0) {
            a->type = TP_ARG_NONE;
        } else if (strcmp(type, "list") == 0 || strcmp(type, "tuple") == 0) {
            a->type = TP_ARG_LIST;
            copy_str(a->svalue, sizeof a->svalue, type);
            if (pylit_is_seq(value)) {
                int all = fill_ints(a, value);
                if (all == -2)
                    rc = -2;
                a->ivalue = all == 1;
            }
        } else {
            a->type = TP_ARG_OTHER;
            copy_str(a->svalue, sizeof a->svalue, type);
        }
    }
out:
    pylit_arena_free(ar);
    return rc;
}
