/* tb_classify_test.c — the plugin's name and category rules. */
#include "tb_classify.h"
#include "testing.h"

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
    TEST_EXIT();
}
