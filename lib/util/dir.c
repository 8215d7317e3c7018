/* dir.c — the entries of a folder (dir.h). */
#include <stdio.h>
#include "dir.h"

struct dirent *tp_dir_next(DIR *d, const char *dir, char *full, size_t cap, struct stat *sb)
{
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(full, cap, "%s/%s", dir, e->d_name);
        if (stat(full, sb) == 0)
            return e;
    }
    return NULL;
}
