/* fuzz_window.c — kineto JSON streamed through a tiny window.  The first
 * byte picks the JSON reader's window (16..526 bytes, so every value and key
 * straddles refills and the window grows when one item exceeds half of it);
 * the rest is fed through a pipe, so the source streams (plain, gzip or zstd)
 * instead of mapping, the path stdin takes.  A writer thread fills the pipe
 * while the loader reads it. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "json.h"
#include "fuzz_views.h"

struct feed {
    int fd;
    const uint8_t *data;
    size_t size;
};

static void *writer(void *arg)
{
    struct feed *f = arg;
    for (size_t done = 0; done < f->size;) {
        ssize_t w = write(f->fd, f->data + done, f->size - done);
        if (w <= 0)
            break;   /* the reader stopped early (EPIPE): fine */
        done += (size_t)w;
    }
    close(f->fd);
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* An SQLite dump on a pipe is refused by name only for "-"; keep the
     * target on JSON. */
    if (size >= 16 && memcmp(data + 1, "SQLite format 3", 15) == 0)
        return 0;
    static int once;
    if (!once) {
        signal(SIGPIPE, SIG_IGN);
        once = 1;
    }
    size_t saved = tp_json_window_bytes;
    tp_json_window_bytes = 16 + (size_t)data[0] * 2;
    int p[2];
    if (pipe(p) != 0)
        abort();
    struct feed f = {p[1], data + 1, size - 1};
    pthread_t th;
    if (pthread_create(&th, NULL, writer, &f) != 0)
        abort();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", p[0]);
    fuzz_load_and_view(path, fuzz_pick(data, size));
    close(p[0]);   /* unblocks a writer the loader did not drain */
    pthread_join(th, NULL);
    tp_json_window_bytes = saved;
    return 0;
}
