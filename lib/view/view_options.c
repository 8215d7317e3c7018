/* view_options.c — the options a view declares (view_options.h): finding,
 * setting from a command-line argument, and usage lines. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "views.h"
#include "view_options.h"

const struct tp_view_option tp_vopt_filters[2] = {
    TP_VOPT_FILTERS,
};

const struct tp_view_option tp_vopt_hta[4] = {
    TP_VOPT_FILTERS,
    TP_VOPT_HTA_QUIRKS,
    TP_VOPT_ALL_STEPS,
};

const struct tp_view_option *tp_view_options(const tp_view *v, size_t *n)
{
    /* an NPU twin (tp_view_for_store) honours the options of the view of its name */
    const tp_view *named = v && !v->noptions ? tp_view_find(v->name) : NULL;
    if (named)
        v = named;
    if (n)
        *n = v && v->options ? v->noptions : 0;
    return v && v->noptions ? v->options : NULL;
}

const struct tp_view_option *tp_view_option_find(const tp_view *v, const char *name)
{
    size_t n;
    const struct tp_view_option *opts = tp_view_options(v, &n);
    for (size_t i = 0; name && i < n; i++)
        if (opts[i].name && strcmp(opts[i].name, name) == 0)
            return &opts[i];
    return NULL;
}

/* "--comm: not an option of the kernels view (its options: --group)" */
static int not_declared(const tp_view *v, const char *name, tp_error *err)
{
    char list[256] = "";
    size_t n, len = 0;
    const struct tp_view_option *opts = tp_view_options(v, &n);
    for (size_t i = 0; i < n && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s--%s", i ? ", " : "", opts[i].name);
    return tp_error_set(err, TP_ERR_USAGE, "--%s: not an option of the %s view (%s%s)", name,
                        v->name ? v->name : "?", n ? "its options: " : "it has none", list);
}

/* An integer >= min with nothing after it; -1 when the text is not one. */
static int parse_int(const char *arg, int64_t min, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(arg, &end, 10);
    if (*end || end == arg || errno == ERANGE || x < min)
        return -1;
    *v = x;
    return 0;
}

int tp_view_set_option(const tp_view *v, struct tp_view_opts *vo, const char *name, const char *arg,
                       tp_error *err)
{
    if (!v || !vo || !name)
        return tp_error_set(err, TP_ERR_USAGE, "tp_view_set_option: %s", !v ? "no view" : !vo ? "no options"
                                                                                           : "no option name");
    const struct tp_view_option *o = tp_view_option_find(v, name);
    if (!o)
        return not_declared(v, name, err);
    char *f = (char *)vo + o->field;
    if (o->kind == TP_OPT_OPTIONAL && !arg)
        arg = "";
    if (o->kind != TP_OPT_FLAG && !arg)
        return tp_error_set(err, TP_ERR_USAGE, "option '--%s' needs a value", name);
    int64_t i;
    switch (o->kind) {
    case TP_OPT_FLAG: *(int *)f = 1; break;
    case TP_OPT_STRING:
    case TP_OPT_OPTIONAL: *(const char **)f = arg; break;
    case TP_OPT_COUNT:
        if (parse_int(arg, 0, &i) < 0)
            return tp_error_set(err, TP_ERR_USAGE, "--%s: '%s' is not a number >= 0", name, arg);
        *(int64_t *)f = i;
        break;
    case TP_OPT_POSITIVE:
        if (parse_int(arg, 1, &i) < 0)
            return tp_error_set(err, TP_ERR_USAGE, "--%s: '%s' is not a positive number", name, arg);
        *(int64_t *)f = i;
        break;
    case TP_OPT_MICROSECONDS: {
        char *end;
        double d = strtod(arg, &end);
        if (*end || end == arg || !(d > 0) || isinf(d))
            return tp_error_set(err, TP_ERR_USAGE, "--%s: '%s' is not a positive number of microseconds", name, arg);
        *(double *)f = d;
        break;
    }
    default: return tp_error_set(err, TP_ERR_USAGE, "--%s: the %s view declares it wrongly", name, v->name);
    }
    if (o->given >= 0)
        *(int *)((char *)vo + o->given) = 1;
    return TP_OK;
}

void tp_view_print_options(const tp_view *v, FILE *out)
{
    size_t n, w = 0;
    const struct tp_view_option *opts = tp_view_options(v, &n);
    const tp_view *keyed = v && !v->noptions ? tp_view_find(v->name) : v;   /* as tp_view_options */
    if (!out)
        return;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(opts[i].name) + (opts[i].arg ? strlen(opts[i].arg) + 1 : 0);
        if (len > w)
            w = len;
    }
    for (size_t i = 0; i < n; i++) {
        char head[128];
        snprintf(head, sizeof head, "%s%s%s", opts[i].name, opts[i].arg ? " " : "", opts[i].arg ? opts[i].arg : "");
        char keys[1024] = "";
        const tp_view *twin = keyed ? tp_view_npu_twin(keyed) : NULL;
        size_t o = 0;
        if (strcmp(opts[i].name, "group") == 0 && keyed && keyed->group_keys)
            o = keyed->group_keys(keys, sizeof keys);   /* generated from the view's key columns */
        if (o && o < sizeof keys && twin && twin != keyed && twin->group_keys) {
            o += (size_t)snprintf(keys + o, sizeof keys - o, "; Ascend: ");
            if (o < sizeof keys)
                twin->group_keys(keys + o, sizeof keys - o);
        }
        fprintf(out, "  --%-*s  %s%s%s\n", (int)w, head, opts[i].help ? opts[i].help : "", *keys ? " " : "", keys);
    }
}
