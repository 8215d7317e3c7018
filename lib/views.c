/* views.c — the registry of views: a new analysis is one view_*.c file and
 * one line here. */
#include <string.h>
#include "table.h"
#include "views.h"

static const tp_view *const registry[] = {
    &tp_view_prof,
    &tp_view_info,
    &tp_view_kernels,
    &tp_view_ops,
    &tp_view_steps,
    NULL,
};

const tp_view *const *tp_views(void)
{
    return registry;
}

const tp_view *tp_view_find(const char *name)
{
    for (size_t i = 0; registry[i]; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

void tp_view_print_columns(const tp_view *v, FILE *out)
{
    size_t wkey = 3, whead = 6;
    for (size_t i = 0; i < v->ncols; i++) {
        size_t a = strlen(v->cols[i].key), b = strlen(v->cols[i].header);
        if (a > wkey) wkey = a;
        if (b > whead) whead = b;
    }
    fprintf(out, "  %-*s  %-*s  %s\n", (int)wkey, "key", (int)whead, "header", "description");
    for (size_t i = 0; i < v->ncols; i++)
        fprintf(out, "  %-*s  %-*s  %s\n", (int)wkey, v->cols[i].key, (int)whead, v->cols[i].header,
                v->cols[i].desc ? v->cols[i].desc : "");
    fprintf(out, "default: -c %s\n", v->default_columns);
}
