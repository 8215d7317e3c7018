/* dir.h — the entries of a folder (internal). */
#ifndef TPROF_DIR_H
#define TPROF_DIR_H

#include <dirent.h>
#include <stddef.h>
#include <sys/stat.h>

/* The next entry of d (opened on dir) that is not hidden (no leading '.'):
 * its path "dir/name" in full (cap bytes) and what stat says of it in *sb;
 * NULL at the end.  An entry stat cannot read is passed over. */
struct dirent *tp_dir_next(DIR *d, const char *dir, char *full, size_t cap, struct stat *sb);

#endif
