/* cmd_cut.c — `tprof cut FILE --step N[-M] | --window T0..T1 -o OUT`: a
 * slice of a trace that Perfetto and chrome://tracing can open. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "options.h"

static const char usage[] =
    "usage: tprof cut FILE (--step N[-M] | --window T0..T1) -o OUT[.gz]\n"
    "Write a PyTorch profiler trace holding only ProfilerStep#N (to #M), or the\n"
    "window T0..T1 after the trace's first event (1.2s..1.8s, 1200ms.., ..500000;\n"
    "microseconds without a unit): the top-level keys, the metadata events and\n"
    "every event that overlaps it, as they were written.  OUT ending in .gz is\n"
    "gzip'd.\n";

int cmd_cut(int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_ARG("step", 's'), CLI_ARG("window", 'W'),
        CLI_ARG("output", 'o'), CLI_LONGOPTS_END,
    };
    struct tp_cut_opts o = { -1, -1, 0, INT64_MAX };
    const char *out = NULL;
    int have_step = 0, have_window = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        tp_error err = {0};
        switch (c) {
        case 's':
            if (tp_parse_steps(optarg, &o.step_first, &o.step_last, NULL) != TP_OK) {
                fprintf(stderr, "tprof: cut: --step: '%s' is not N or N-M (ProfilerStep numbers)\n", optarg);
                return 2;
            }
            have_step = 1;
            break;
        case 'W':
            if (tp_parse_window(optarg, &o.window_from_ns, &o.window_to_ns, &err) != TP_OK) {
                fprintf(stderr, "tprof: cut: %s\n", err.msg);
                return 2;
            }
            have_window = 1;
            break;
        case 'o': out = optarg; break;
        case 'h': fputs(usage, stdout); return 0;
        default: fputs(usage, stderr); return 2;
        }
    }
    if (optind != argc - 1 || !out || have_step == have_window) {
        fprintf(stderr, "tprof: cut: %s\n%s",
                optind != argc - 1 ? "one input file" : !out ? "no -o OUT" : "give --step or --window (one of them)",
                usage);
        return 2;
    }
    tp_error err = {0};
    struct tp_cut_result r;
    if (tp_trace_cut(argv[optind], out, &o, &r, &err) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        return 2;
    }
    fprintf(stderr, "tprof: %s: %" PRIu64 " of %" PRIu64 " events, %" PRId64 ".%03" PRId64 "..%" PRId64 ".%03" PRId64
                    " us, in %s\n",
            argv[optind], r.events_out, r.events_in, r.from_ns / 1000, r.from_ns % 1000,
            r.to_ns == INT64_MAX ? 0 : r.to_ns / 1000, r.to_ns == INT64_MAX ? 0 : r.to_ns % 1000, out);
    return 0;
}
