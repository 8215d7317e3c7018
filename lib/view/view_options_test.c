/* view_options_test.c — the options views declare (tp_view_options): what
 * the command line and the usage text are generated from. */
#include <stdlib.h>
#include <string.h>
#include "testing.h"
#include "tprof.h"

/* Every declared option is complete, and views that share an option name
 * agree on how it is read: the CLI gives getopt each name once. */
static void check_declarations(void)
{
    int complete = 1, agree = 1, inside = 1;
    for (const tp_view *const *v = tp_views(); *v; v++) {
        size_t n;
        const struct tp_view_option *o = tp_view_options(*v, &n);
        for (size_t i = 0; i < n; i++) {
            complete &= o[i].name && *o[i].name && o[i].help && *o[i].help && o[i].name[0] != '-' &&
                        (o[i].arg != NULL) == (o[i].kind != TP_OPT_FLAG);
            inside &= o[i].field < sizeof(struct tp_view_opts) && o[i].given < (long)sizeof(struct tp_view_opts);
            for (const tp_view *const *w = tp_views(); *w; w++) {
                const struct tp_view_option *p = tp_view_option_find(*w, o[i].name);
                /* the command line needs only that they agree on taking an
                 * argument; --step is the one name with two meanings
                 * (critical-path's HTA window N, the others' filter N|A-B) */
                if (p && ((p->arg != NULL) != (o[i].arg != NULL) ||
                          (strcmp(o[i].name, "step") != 0 && (p->kind != o[i].kind || p->field != o[i].field))))
                    agree = 0;
            }
        }
    }
    CHECK("every option has a name, help, and an argument iff it is not a flag", complete);
    CHECK("every option sets a field of struct tp_view_opts", inside);
    CHECK("views sharing an option read it alike (--step: alike in taking an argument)", agree);
}

int main(void)
{
    tp_error err = {0};
    check_declarations();
    const tp_view *kernels = tp_view_find("kernels"), *queue = tp_view_find("queue"),
                  *launches = tp_view_find("launches"), *cp = tp_view_find("critical-path"),
                  *memory = tp_view_find("memory"), *prof = tp_view_find("prof");
    size_t n = 9;
    CHECK("prof has the filters alone", tp_view_options(prof, &n) != NULL && n == 2 &&
                                             tp_view_option_find(prof, "step") && tp_view_option_find(prof, "window"));
    CHECK("critical-path's --step is its own (a count), the others' a filter",
          tp_view_option_find(cp, "step")->kind == TP_OPT_COUNT &&
              tp_view_option_find(kernels, "step")->kind == TP_OPT_STRING);
    CHECK("kernels has --group", tp_view_option_find(kernels, "group") != NULL);
    CHECK("the HTA views share --hta-quirks and --all-steps",
          tp_view_option_find(queue, "hta-quirks") && tp_view_option_find(tp_view_find("temporal"), "all-steps"));

    struct tp_view_opts vo = {0};
    const tp_view *twin = tp_view_npu_twin(memory);
    CHECK("an NPU twin honours the options of its namesake",
          twin && twin != memory && tp_view_option_find(twin, "group") == tp_view_option_find(memory, "group") &&
              tp_view_option_find(twin, "group") != NULL);
    CHECK_INT("an NPU twin takes them", tp_view_set_option(tp_view_npu_twin(kernels), &vo, "group", "core", &err), TP_OK);
    CHECK_INT("string", tp_view_set_option(kernels, &vo, "group", "props", &err), TP_OK);
    CHECK_STR("string: set", vo.group, "props");
    CHECK_INT("flag", tp_view_set_option(memory, &vo, "curve", NULL, &err), TP_OK);
    CHECK_INT("flag: set", vo.curve, 1);
    CHECK_INT("positive", tp_view_set_option(queue, &vo, "max-queue", "12", &err), TP_OK);
    CHECK_INT("positive: set", vo.max_queue, 12);
    CHECK_INT("positive: 0 refused", tp_view_set_option(queue, &vo, "max-queue", "0", &err), TP_ERR_USAGE);
    CHECK_STR("positive: message", err.msg, "--max-queue: '0' is not a positive number");
    CHECK_INT("positive: trailing text refused", tp_view_set_option(queue, &vo, "max-queue", "3x", &err),
              TP_ERR_USAGE);
    CHECK_INT("positive: out of range refused",
              tp_view_set_option(queue, &vo, "max-queue", "99999999999999999999", &err), TP_ERR_USAGE);
    CHECK_INT("positive: kept after a refusal", vo.max_queue, 12);
    CHECK_INT("microseconds", tp_view_set_option(launches, &vo, "runtime-cutoff", "2.5", &err), TP_OK);
    CHECK("microseconds: set", vo.runtime_cutoff_us == 2.5);
    CHECK_INT("microseconds: negative refused", tp_view_set_option(launches, &vo, "launch-delay-cutoff", "-1", &err),
              TP_ERR_USAGE);
    CHECK_INT("microseconds: inf refused", tp_view_set_option(launches, &vo, "launch-delay-cutoff", "inf", &err),
              TP_ERR_USAGE);
    CHECK("count: not given yet", vo.step_given == 0);
    CHECK_INT("count 0", tp_view_set_option(cp, &vo, "step", "0", &err), TP_OK);
    CHECK("count 0: set, and said to be given", vo.step == 0 && vo.step_given == 1);
    CHECK_INT("count: negative refused", tp_view_set_option(cp, &vo, "instance", "-2", &err), TP_ERR_USAGE);
    CHECK_STR("count: message", err.msg, "--instance: '-2' is not a number >= 0");

    CHECK_INT("undeclared", tp_view_set_option(kernels, &vo, "comm", NULL, &err), TP_ERR_USAGE);
    CHECK_STR("undeclared: message names the view's options", err.msg,
              "--comm: not an option of the kernels view (its options: --step, --window, --group, --short, --plot)");
    CHECK_INT("undeclared, prof", tp_view_set_option(prof, &vo, "group", "x", &err), TP_ERR_USAGE);
    CHECK_STR("undeclared, prof: message", err.msg,
              "--group: not an option of the prof view (its options: --step, --window)");
    const tp_view *gpu = tp_view_find("gpu");
    CHECK("optional: gpu --series declared so", gpu && tp_view_option_find(gpu, "series") &&
                                                   tp_view_option_find(gpu, "series")->kind == TP_OPT_OPTIONAL);
    CHECK_INT("optional: left out", tp_view_set_option(gpu, &vo, "series", NULL, &err), TP_OK);
    CHECK_STR("optional: left out is \"\"", vo.series, "");
    CHECK_INT("optional: given", tp_view_set_option(gpu, &vo, "series", "10ms", &err), TP_OK);
    CHECK_STR("optional: given is the argument", vo.series, "10ms");
    CHECK_INT("the filter", tp_view_set_option(kernels, &vo, "step", "5-7", &err), TP_OK);
    CHECK_STR("the filter: set", vo.filter_steps, "5-7");

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tp_view_print_options(cp, f);
    tp_view_print_options(prof, f);
    fclose(f);
    CHECK("usage: one line per option", buf && strstr(buf, "  --step N           the window: ProfilerStep#N\n") &&
                                            strstr(buf, "  --path             the path edge by edge\n"));
    size_t lines = 0;
    for (char *p = buf; p && *p; p++)
        lines += *p == '\n';
    size_t nprof = 0;
    tp_view_options(cp, &n);
    tp_view_options(prof, &nprof);
    CHECK_INT("usage: a line per option of each", lines, n + nprof);
    free(buf);
    TEST_EXIT();
}
