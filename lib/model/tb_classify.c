/* tb_classify.c — the TensorBoard plugin's event classification (see
 * tb_classify.h). */
#include <string.h>
#include <strings.h>
#include "tb_classify.h"

static int starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

int tp_tb_comm_lib(const char *s)
{
    static const char *const ops[] = {"broadcast", "reduce", "all_reduce", "all_gather", "reduce_scatter"};
    int lib = starts(s, "nccl:") ? 1 : starts(s, "gloo:") ? 2 : 0;
    if (!lib)
        return 0;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (strcmp(s + 5, ops[i]) == 0)
            return lib;
    return 0;
}

int tp_tb_is_dataloader(const char *s)
{
    size_t n = strlen(s);
    return (starts(s, "enumerate(DataLoader)#") && n >= 9 && strcmp(s + n - 9, ".__next__") == 0) ||
           starts(s, "enumerate(DataPipe)#");
}

int tp_tb_is_python_cat(const char *c)
{
    return strcasecmp(c, "python") == 0;
}

int tp_tb_is_host_node(const tp_store *st, size_t r)
{
    uint8_t k = st->kind[r];
    return k == TP_K_CPU_OP || k == TP_K_USER_ANNOTATION || k == TP_K_GPU_USER_ANNOTATION ||
           (k == TP_K_PYTHON_FUNCTION && tp_tb_is_python_cat(tp_store_str(st, st->cat[r])));
}
