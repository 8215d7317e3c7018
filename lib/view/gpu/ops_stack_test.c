/* ops_stack_test.c — `ops --group stack[=N]` (ops_stack.c): the --group
 * text, and the frames torch keeps of a "Call stack". */
#include <stdlib.h>
#include <string.h>
#include "table.h"
#include "testing.h"
#include "view_extra.h"

static void check_frames(const char *name, const char *cs, long n, size_t want_n, const char *want)
{
    struct tp_sbuf b = {0};
    size_t got = tp_ops_stack_frames(cs, n, &b);
    tp_sbuf_putc(&b, 0);
    CHECK_INT(name, got, want_n);
    CHECK_STR(name, b.p, want);
    tp_sbuf_free(&b);
}

int main(void)
{
    CHECK_INT("stack: the default depth", tp_ops_stack_depth("stack"), TP_OPS_STACK_DEFAULT);
    CHECK_INT("stack=3", tp_ops_stack_depth("stack=3"), 3);
    CHECK_INT("stack=12", tp_ops_stack_depth("stack=12"), 12);
    CHECK_INT("stack=0 refused", tp_ops_stack_depth("stack=0"), -1);
    CHECK_INT("stack=-1 refused", tp_ops_stack_depth("stack=-1"), -1);
    CHECK_INT("stack=3x refused", tp_ops_stack_depth("stack=3x"), -1);
    CHECK_INT("stack= refused", tp_ops_stack_depth("stack="), -1);
    CHECK_INT("stacks: another group", tp_ops_stack_depth("stacks"), 0);
    CHECK_INT("shape: another group", tp_ops_stack_depth("shape"), 0);
    CHECK_INT("no group", tp_ops_stack_depth(NULL), 0);

    const char *cs = "a.py(1): f;torch/autograd/__init__.py(143): backward;b.py(2): g;"
                     "x/autograd/__init__.py(51): _make_grads;c.py(3): <module>";
    check_frames("innermost first, torch's filter", cs, 5, 3, "a.py(1): f <- b.py(2): g <- c.py(3): <module>");
    check_frames("the first N kept", cs, 2, 2, "a.py(1): f <- b.py(2): g");
    check_frames("one frame", cs, 1, 1, "a.py(1): f");
    check_frames("empty frames skipped", ";a.py(1): f;;", 5, 1, "a.py(1): f");
    check_frames("no stack", "", 5, 0, "");
    check_frames("NULL", NULL, 5, 0, "");
    /* a frame naming only half of a dropped pair stays */
    check_frames("half a pair stays", "torch/tensor.py(9): forward;autograd/__init__.py(1): run", 5, 2,
                 "torch/tensor.py(9): forward <- autograd/__init__.py(1): run");
    TEST_EXIT();
}
