/* report.c — messages about inputs, and facts about the terminal. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "report.h"

int cli_report_skips(const tp_store *st)
{
    return cli_report_skips_to(st, stderr);
}

int cli_report_skips_to(const tp_store *st, FILE *out)
{
    char line[1280];
    size_t i = 0;
    while (tp_store_malformed(st, i, line, sizeof line)) {
        fprintf(out, "tprof: %s\n", line);
        i++;
    }
    return i > 0;
}

void cli_report_notes(const char *notes)
{
    for (const char *p = notes; p && *p;) {
        const char *e = strchr(p, '\n');
        int len = e ? (int)(e - p) : (int)strlen(p);
        fprintf(stderr, "tprof: %.*s\n", len, p);
        p += len + (e ? 1 : 0);
    }
}

void cli_report_coverage(const tp_store *st)
{
    char line[2048];
    if (tp_store_coverage(st, line, sizeof line))
        fprintf(stderr, "tprof: %s\n", line);
}

int cli_terminal_width(void)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    return c && atoi(c) > 0 ? atoi(c) : 80;
}

/* The locale's character set, as setlocale(LC_CTYPE, "") would pick it:
 * the first of LC_ALL, LC_CTYPE and LANG that is set and not empty; UTF-8
 * when it names UTF-8 ("en_US.UTF-8", "C.utf8").  Unset: the C locale. */
int cli_locale_utf8(void)
{
    static const char *const vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (!v || !*v)
            continue;
        for (const char *p = v; *p; p++)
            if (strncasecmp(p, "utf-8", 5) == 0 || strncasecmp(p, "utf8", 4) == 0)
                return 1;
        return 0;
    }
    return 0;
}

int cli_threads(void)
{
    const char *env = getenv("TPROF_THREADS");
    return env && atoi(env) > 0 ? atoi(env) : 0;
}

void cli_out_name(char *out, size_t cap, const char *outdir, const char *path, const char *ext)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    const char *base = path + n;
    while (base > path && base[-1] != '/')
        base--;
    snprintf(out, cap, "%s/%.*s.%s", outdir, (int)(path + n - base), base, ext);
}
