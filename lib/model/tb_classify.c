/* tb_classify.c — the TensorBoard plugin's event classification (see
 * tb_classify.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "tb_classify.h"
#include "tbtree.h"

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

int tp_tb_names_init(struct tp_tb_names *nm, const tp_store *st)
{
    nm->st = st;
    nm->bits = calloc(st->strings.count + 1, 1);
    return nm->bits ? 0 : -1;
}

void tp_tb_names_free(struct tp_tb_names *nm)
{
    free(nm->bits);
    nm->bits = NULL;
}

unsigned tp_tb_name_class(struct tp_tb_names *nm, uint32_t id)
{
    uint8_t v = nm->bits[id];
    if (v)
        return v;
    const char *name = tp_store_str(nm->st, id);
    v = TP_TBN_KNOWN;
    if (starts(name, "ProfilerStep#")) v |= TP_TBN_STEP;
    if (tp_tb_is_dataloader(name)) v |= TP_TBN_DATALOADER;
    if (tp_tb_comm_lib(name)) v |= TP_TBN_COMM;
    if (starts(name, "Optimizer.step")) v |= TP_TBN_OPT_STEP;
    if (tp_tb_is_pl_profile(name)) v |= TP_TBN_PL_PROFILE;
    if (tp_tb_pl_module_name(name)) v |= TP_TBN_PL_MODULE;
    return nm->bits[id] = v;
}
