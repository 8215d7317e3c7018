/* tb_classify_test.c — the plugin's name and category rules. */
#include <string.h>
#include "tb_classify.h"
#include "testing.h"

static uint32_t id(tp_store *st, const char *s) { return tp_store_intern(st, s, strlen(s)); }

int main(void)
{
    CHECK_INT("nccl all_reduce", tp_tb_comm_lib("nccl:all_reduce"), 1);
    CHECK_INT("gloo broadcast", tp_tb_comm_lib("gloo:broadcast"), 2);
    CHECK_INT("nccl send is not in the plugin's set", tp_tb_comm_lib("nccl:send"), 0);
    CHECK_INT("prefix only", tp_tb_comm_lib("nccl:all_reduce_coalesced"), 0);
    CHECK_INT("not communication", tp_tb_comm_lib("aten::add"), 0);
    CHECK("DataLoader __next__", tp_tb_is_dataloader("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"));
    CHECK("DataLoader without __next__", !tp_tb_is_dataloader("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__init__"));
    CHECK("DataPipe", tp_tb_is_dataloader("enumerate(DataPipe)#ShufflerIterDataPipe"));
    CHECK("python", tp_tb_is_python_cat("python"));
    CHECK("Python", tp_tb_is_python_cat("Python"));
    CHECK("PYTHON (the plugin lower-cases cat)", tp_tb_is_python_cat("PYTHON"));
    CHECK("python_function is not python", !tp_tb_is_python_cat("python_function"));
    /* a name's class, tested once per string id and then read back */
    tp_store *st = tp_store_new();
    uint32_t step = id(st, "ProfilerStep#12"), dl = id(st, "enumerate(DataPipe)#X"), comm = id(st, "gloo:reduce"),
             opt = id(st, "Optimizer.step#SGD.step"), plp = id(st, "[pl][profile]run_training_epoch"),
             plm = id(st, "[pl][module]torch.nn.Linear: layer1"), op = id(st, "aten::mm");
    struct tp_tb_names nm;
    CHECK("names init", tp_tb_names_init(&nm, st) == 0);
    for (int pass = 0; pass < 2; pass++) {
        CHECK_INT("class step", tp_tb_name_class(&nm, step), TP_TBN_KNOWN | TP_TBN_STEP);
        CHECK_INT("class dataloader", tp_tb_name_class(&nm, dl), TP_TBN_KNOWN | TP_TBN_DATALOADER);
        CHECK_INT("class comm", tp_tb_name_class(&nm, comm), TP_TBN_KNOWN | TP_TBN_COMM);
        CHECK_INT("class optimizer step", tp_tb_name_class(&nm, opt), TP_TBN_KNOWN | TP_TBN_OPT_STEP);
        CHECK_INT("class pl profile", tp_tb_name_class(&nm, plp), TP_TBN_KNOWN | TP_TBN_PL_PROFILE);
        CHECK_INT("class pl module", tp_tb_name_class(&nm, plm), TP_TBN_KNOWN | TP_TBN_PL_MODULE);
        CHECK_INT("class plain op", tp_tb_name_class(&nm, op), TP_TBN_KNOWN);
    }
    tp_tb_names_free(&nm);
    tp_store_free(st);
    TEST_EXIT();
}
