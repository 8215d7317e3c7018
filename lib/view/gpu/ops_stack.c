/* ops_stack.c — `ops --group stack[=N]`: torch.profiler's
 * key_averages(group_by_stack_n=N), one row per operator name and the first
 * N frames of its "Call stack" (traces recorded with with_stack=True).
 *
 * Kineto writes the stack innermost frame first, frames joined by ';'.
 * torch reads it into FunctionEvent.stack leaving out the frames
 * _filter_stack_entry drops (autograd's backward and _make_grads, the test
 * harness's prof_* wrappers), then keys by stack[:N]; so does this. */
#include <stdlib.h>
#include <string.h>
#include "table.h"
#include "view_extra.h"

long tp_ops_stack_depth(const char *group)
{
    if (!group || strncmp(group, "stack", 5) != 0 || (group[5] && group[5] != '='))
        return 0;
    if (group[5] == 0)
        return TP_OPS_STACK_DEFAULT;
    if (group[6] < '1' || group[6] > '9')
        return -1;
    char *end;
    long n = strtol(group + 6, &end, 10);
    return *end || n <= 0 || n > 1000000 ? -1 : n;
}

/* torch/autograd/profiler_util.py _filter_stack_entry: 1 to keep. */
static int keep_frame(const char *f, size_t len)
{
    static const char *const dropped[][2] = {
        {"autograd/__init__", "_make_grads"},      {"autograd/__init__", "backward"},
        {"torch/tensor", "backward"},              {"_internal/common_utils", "prof_callable"},
        {"_internal/common_utils", "prof_func_call"}, {"_internal/common_utils", "prof_meth_call"},
    };
    char *s = strndup(f, len);
    int keep = 1;
    for (size_t i = 0; s && keep && i < sizeof dropped / sizeof *dropped; i++)
        keep = !(strstr(s, dropped[i][0]) && strstr(s, dropped[i][1]));
    free(s);
    return keep;
}

size_t tp_ops_stack_frames(const char *call_stack, long n, struct tp_sbuf *b)
{
    size_t kept = 0;
    for (const char *p = call_stack ? call_stack : ""; *p && (long)kept < n;) {
        size_t len = strcspn(p, ";");
        if (len && keep_frame(p, len)) {
            if (kept++)
                tp_sbuf_put(b, TP_OPS_STACK_SEP, strlen(TP_OPS_STACK_SEP));
            tp_sbuf_put(b, p, len);
        }
        p += len + (p[len] == ';');
    }
    return kept;
}
