/* progress.c — "tprof: run.json: 312 of 995 MB (31%), 410 MB/s, 1 s" on
 * stderr while a load runs, redrawn in place.
 *
 * A 1 GB trace or a 16-rank run is seconds of blank screen otherwise.  The
 * line is for people, so it appears only on a terminal, only after about a
 * second (a quick load shows nothing), and is erased before tprof writes
 * anything else: a thread polls the library's counters (bytes read by every
 * source, ranks done) five times a second; cli_progress_end stops it and
 * clears the line, so tables and messages never share a line with it.
 * Not a terminal, --quiet or TERM=dumb: nothing at all. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "progress.h"

static struct {
    pthread_t thread;
    int running;                 /* a thread was started and not yet joined */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop;
    char what[256];
    uint64_t total, base;        /* bytes to read; the counter's value at the start */
    const tp_run *run;
    struct timespec t0;
    long delay_ms;
} P = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

static double since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static int stderr_columns(void)
{
    struct winsize ws;
    return ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

/* Sizes as people read them: 312 MB, 6.4 GB. */
static void human(uint64_t b, char *buf, size_t cap)
{
    if (b >= UINT64_C(10) << 30)
        snprintf(buf, cap, "%.0f GB", (double)b / (1 << 30));
    else if (b >= UINT64_C(1) << 30)
        snprintf(buf, cap, "%.1f GB", (double)b / (1 << 30));
    else
        snprintf(buf, cap, "%.0f MB", (double)b / (1 << 20));
}

static void draw(void)
{
    double secs = since(&P.t0);
    uint64_t done = tp_input_bytes_read() - P.base;
    char line[512], d[32], t[32];
    int n = snprintf(line, sizeof line, "tprof: %s: ", P.what);
    human(done, d, sizeof d);
    if (P.run)
        n += snprintf(line + n, sizeof line - (size_t)n, "%zu of %zu ranks, ", tp_run_ranks_done(P.run),
                      tp_run_size(P.run));
    if (P.total && done >= P.total && !P.run) {   /* all read: the linker runs */
        human(P.total, t, sizeof t);
        n += snprintf(line + n, sizeof line - (size_t)n, "%s read, linking", t);
    } else if (P.total) {
        human(P.total, t, sizeof t);
        n += snprintf(line + n, sizeof line - (size_t)n, "%s of %s (%.0f%%), %.0f MB/s", d, t,
                      done >= P.total ? 100.0 : 100.0 * (double)done / (double)P.total,
                      secs > 0 ? (double)done / (1 << 20) / secs : 0.0);
    } else {
        n += snprintf(line + n, sizeof line - (size_t)n, "%s read, %.0f MB/s", d,
                      secs > 0 ? (double)done / (1 << 20) / secs : 0.0);
    }
    if (n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, ", %.0f s", secs);
    /* one line, never wrapped: a wrapped line cannot be redrawn in place */
    int cols = stderr_columns();
    if (cols > 1 && strlen(line) >= (size_t)cols)
        line[cols - 1] = 0;
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
}

static void *progress_main(void *arg)
{
    (void)arg;
    int drawn = 0;
    pthread_mutex_lock(&P.lock);
    while (!P.stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 200 * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&P.wake, &P.lock, &until);
        if (!P.stop && since(&P.t0) * 1000 >= (double)P.delay_ms) {
            draw();
            drawn = 1;
        }
    }
    if (drawn) {   /* erase it: what comes next starts on a clean line */
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    pthread_mutex_unlock(&P.lock);
    return NULL;
}

void cli_progress_begin(const char *what, uint64_t total, const tp_run *r, int quiet)
{
    const char *term = getenv("TERM");
    if (P.running || quiet || !isatty(STDERR_FILENO) || (term && strcmp(term, "dumb") == 0))
        return;
    const char *base = strrchr(what, '/');   /* the name, not the whole path: the line has one row */
    base = base && base[1] ? base + 1 : what;
    snprintf(P.what, sizeof P.what, "%s", strcmp(what, "-") == 0 ? "<stdin>" : base);
    P.total = total;
    P.base = tp_input_bytes_read();
    P.run = r;
    P.stop = 0;
    const char *d = getenv("TPROF_PROGRESS_DELAY_MS");
    P.delay_ms = d && *d ? atol(d) : 1000;
    clock_gettime(CLOCK_MONOTONIC, &P.t0);
    P.running = pthread_create(&P.thread, NULL, progress_main, NULL) == 0;
}

void cli_progress_end(void)
{
    if (!P.running)
        return;
    pthread_mutex_lock(&P.lock);
    P.stop = 1;
    pthread_cond_signal(&P.wake);
    pthread_mutex_unlock(&P.lock);
    pthread_join(P.thread, NULL);
    P.running = 0;
}

uint64_t cli_input_size(const char *path, const tp_run *r)
{
    struct stat sb;
    if (!r)
        return strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : 0;
    uint64_t sum = 0;
    for (size_t i = 0; i < tp_run_size(r); i++) {
        const struct tp_run_rank *k = tp_run_rank(r, i);
        if (k && k->path && k->path[0] && stat(k->path, &sb) == 0 && S_ISREG(sb.st_mode))
            sum += (uint64_t)sb.st_size;
    }
    return sum;
}
