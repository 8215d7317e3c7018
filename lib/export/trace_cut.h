/* trace_cut.h — internal declarations of trace_cut.c; the API is in tprof.h
 * (tp_trace_cut). */
#ifndef TPROF_TRACE_CUT_H
#define TPROF_TRACE_CUT_H
#include "tprof.h"
#endif
