/* flops_test.c — the FLOP module: PyProf's op classes in both dialects,
 * where the reference aborts (na + warning), the aten formulas for kineto
 * operators, and PyProf 3.x's own outputs on the real profile (the 144 rows
 * before its abort) and on its QA kernels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ingest.h"
#include "flops_int.h"
#include "opcall.h"
#include "pyprof.h"
#include "store.h"
#include "testing.h"

#define REF "../shared/reference/pyprof/data/"

static struct tp_flops_result R;

static void eval(const char *marker, const char *kernel, int bprop, int sub, enum tp_pyprof_dialect d)
{
    struct tp_opcall c;
    memset(&R, 0, sizeof R);
    if (tp_opcall_from_marker(marker, &c) != 0) {
        snprintf(R.warning, sizeof R.warning, "marker does not parse");
        return;
    }
    tp_flops_eval(&c, kernel, bprop, sub, d, &R);
}

/* a kineto operator with its "Concrete Inputs" (NULL: none recorded) */
static void eval_kc(const char *name, const char *dims, const char *types, const char *concrete,
                    const char *kernel)
{
    struct tp_opcall c;
    memset(&R, 0, sizeof R);
    if (tp_opcall_from_kineto(name, dims, types, &c) != 0 || tp_opcall_add_concrete(&c, concrete) != 0) {
        snprintf(R.warning, sizeof R.warning, "kineto inputs do not parse");
        return;
    }
    tp_flops_eval(&c, kernel, 0, 0, TP_PYPROF_3X, &R);
}

static void eval_k(const char *name, const char *dims, const char *types, const char *kernel)
{
    eval_kc(name, dims, types, NULL, kernel);
}

#define T(shape, dt) "{'name': '', 'type': 'tensor', 'shape': " shape ", 'dtype': '" dt "'}"
#define M(mod, op, args) "{'mod': '" mod "', 'op': '" op "', 'args': [" args "]}"

static void test_apex(void)
{
    eval(M("torch.nn.functional", "linear", T("(35, 20, 200)", "float32") ", " T("(33278, 200)", "float32") ", "
           T("(33278,)", "float32")), "volta_sgemm_128x64_tn", 0, 0, TP_PYPROF_APEX);
    CHECK_STR("apex_linear_params", R.params, "M=33278,N=(35,20),K=200,fp32,");
    CHECK("apex_linear_bytes", R.bytes.value == 30510200 && !R.bytes.is_float);   /* precedence bug kept */
    CHECK("apex_linear_flops", R.flops.value == 2.0 * 33278 * 700 * 200);
    CHECK_STR("apex_linear_tc", R.tc, "0");
    eval(M("torch.nn.functional", "linear", T("(700, 200)", "float32") ", " T("(33278, 200)", "float32")),
         "elementwise_kernel", 0, 0, TP_PYPROF_APEX);
    CHECK_STR("apex_bias_op", R.op, "bias");
    CHECK_STR("apex_bias_params", R.params, "M=33278,N=700,fp32,");
    eval(M("torch.nn.functional", "linear", T("(700, 200)", "float32") ", " T("(33278, 200)", "float32")),
         "softmax_warp_forward", 0, 0, TP_PYPROF_APEX);
    CHECK("apex_linear_bad_kernel_na", strcmp(R.params, "na=na,") == 0 && strcmp(R.tc, "na") == 0 && R.warning[0] &&
          strcmp(R.op, "linear") == 0);
    eval(M("Tensor", "__mul__", T("(35, 20, 200)", "float32") ", {'name': '', 'type': 'float', 'value': 14.1}"),
         "elementwise_kernel", 0, 0, TP_PYPROF_APEX);
    CHECK_STR("apex_mul_params", R.params, "T=[(35,20,200)],fp32,");
    CHECK("apex_mul_flops_float", R.flops.is_float && R.flops.value == 140000.0 && R.bytes.value == 1120000);
    eval(M("Tensor", "__add__", T("(35, 20, 200)", "float32") ", " T("(35, 1, 200)", "float32")),
         "elementwise_kernel", 0, 0, TP_PYPROF_APEX);
    CHECK("apex_add_broadcast", R.flops.value == 143500.0 && R.bytes.value == 1148000);
    eval(M("Tensor", "add_", T("(35, 20)", "float32") ", {'name': '', 'type': 'int', 'value': -20}, "
           T("(35, 20)", "float32")), "elementwise_kernel", 0, 0, TP_PYPROF_APEX);
    CHECK("apex_add_3args_ok", R.known && R.bytes.value == 35 * 20 * 3 * 4);
    eval(M("Tensor", "__mul__", T("(4,)", "float32") ", " T("(4,)", "float32")), "elementwise_kernel", 1, 0,
         TP_PYPROF_APEX);
    CHECK("apex_mul_bprop", R.bytes.value == 4 * 3 * 4);
    eval(M("Tensor", "lt", T("(4,)", "float32") ", " T("(4,)", "float32")), "elementwise_kernel", 1, 0,
         TP_PYPROF_APEX);
    CHECK("apex_lt_bprop_aborts", !R.known && R.warning[0] && strcmp(R.params, "na=na,") == 0);
    eval(M("torch.nn.functional", "embedding", T("(35, 20)", "int64") ", " T("(33278, 200)", "float32")),
         "indexSelectLargeIndex", 0, 0, TP_PYPROF_APEX);
    CHECK_STR("apex_embedding_params", R.params, "I=(35,20),int64,E=(33278,200),fp32,");
    CHECK("apex_embedding_bytes", R.bytes.value == 1125600);
    eval(M("torch.nn.functional", "log_softmax", T("(700, 33278)", "float32")), "cunn_SoftMaxForward", 0, 0,
         TP_PYPROF_APEX);
    CHECK("apex_log_softmax", R.flops.value == 0 && R.bytes.value == 700.0 * 33278 * 4 * 3);
    eval(M("torch", "log_softmax", T("(700, 33278)", "float32")), "cunn_SoftMaxForward", 0, 0, TP_PYPROF_APEX);
    CHECK("apex_log_softmax_torch_aborts", !R.known && R.warning[0]);
    eval(M("Tensor", "nonzero", T("(5, 5)", "uint8")), "k", 0, 0, TP_PYPROF_APEX);
    CHECK("apex_nonzero_typeerror", !R.known && R.warning[0]);
    eval(M("torch.nn.functional", "conv2d", T("(32, 3, 224, 224)", "float32") ", " T("(64, 3, 7, 7)", "float32")
           ", {'name': '', 'type': 'NoneType', 'value': None}, {'name': '', 'type': 'tuple', 'value': (2, 2)}, "
           "{'name': '', 'type': 'tuple', 'value': (3, 3)}"), "volta_scudnn_128x64_relu_interior_nn_v1", 0, 0,
         TP_PYPROF_APEX);
    CHECK_STR("apex_conv_params", R.params, "N=32,C=3,H=224,W=224,K=64,P=112,Q=112,R=7,S=7,ph=3,pw=3,U=2,V=2,dh=1,"
              "dw=1,g=1,fp32,");
    CHECK("apex_conv_float", R.flops.is_float && R.flops.value == 2.0 * 32 * 64 * 112 * 112 * 3 * 49 &&
          R.bytes.is_float);
    CHECK_STR("apex_conv_tc", R.tc, "-");
    eval(M("torch", "matmul", T("(8, 4, 5)", "float16") ", " T("(5, 6)", "float16")), "volta_h884gemm_64x64_nn", 0,
         0, TP_PYPROF_APEX);
    CHECK("apex_matmul", R.flops.value == 2.0 * 8 * 4 * 6 * 5 && R.bytes.value == 2 * (24 + 20 + 30) &&
          strcmp(R.tc, "1") == 0);
    CHECK_STR("apex_matmul_params", R.params, "A=(8,4,5),B=(5,6),fp16,");
    eval(M("torch", "addmm", T("(4,)", "float32") ", " T("(3, 5)", "float32") ", " T("(5, 4)", "float32")),
         "volta_sgemm_32x32", 0, 0, TP_PYPROF_APEX);
    CHECK_STR("apex_addmm_params", R.params, "M=4,N=3,K=5,fp32,");
    eval(M("torch", "bmm", T("(2, 3, 5)", "float16") ", " T("(2, 5, 4)", "float16")), "volta_h884gemm", 0, 0,
         TP_PYPROF_APEX);
    CHECK("apex_bmm", strcmp(R.params, "B=2,M=4,N=3,K=5,fp16,") == 0 && R.flops.value == 240);
    eval(M("torch", "unknown_op", T("(700, 33278)", "float32") ", " T("(700,)", "int64")), "k", 0, 0,
         TP_PYPROF_APEX);
    CHECK_STR("apex_foo_params", R.params, "T=[(700,33278),(700,)],['float32','int64']");
    CHECK("apex_foo_unknown", !R.known && !R.warning[0] && strcmp(R.tc, "-") == 0);
    eval(M("torch", "zeros", "{'name': '', 'type': 'tuple', 'value': (2, 3)}"), "k", 0, 0, TP_PYPROF_APEX);
    CHECK_STR("apex_zeros_is_foo", R.params, "T=[],[]");
    eval(M("Tensor", "half", T("(10,)", "float32")), "k", 0, 0, TP_PYPROF_APEX);
    CHECK("apex_convert", strcmp(R.params, "T=(10,),fp32,fp16,") == 0 && R.bytes.value == 60);
    eval(M("LSTMCell", "forward", T("(8, 16)", "float16") ", " T("(8, 32)", "float16")), "volta_h884gemm_nn", 0, 4,
         TP_PYPROF_APEX);
    CHECK("apex_lstm_recur", strcmp(R.params, "gemm=recur,M=128,N=8,K=32,fp16,") == 0 && strcmp(R.tc, "1") == 0);
    eval(M("torch.nn.functional", "dropout", T("(4, 4)", "bfloat16")), "k", 0, 0, TP_PYPROF_APEX);
    CHECK("bf16_extension", R.known && R.bytes.value == 64 && strstr(R.warning, "bfloat16"));
}

static void test_3x(void)
{
    eval(M("Tensor", "__mul__", T("(35, 20, 200)", "float32") ", {'name': '', 'type': 'float', 'value': 14.1}"),
         "elementwise_kernel", 0, 0, TP_PYPROF_3X);
    CHECK_STR("3x_mul_params", R.params, "[35,20,200]fp32;[]fp32");
    CHECK("3x_mul_numbers", !R.flops.is_float && R.flops.value == 140000 && R.bytes.value == 1120004);
    eval(M("Tensor", "add_", T("(35, 20)", "float32") ", {'name': '', 'type': 'int', 'value': -20}, "
           T("(35, 20)", "float32")), "elementwise_kernel", 0, 0, TP_PYPROF_3X);
    CHECK("3x_add_3args_aborts", !R.known && strstr(R.warning, "3 positional"));
    eval(M("torch.nn.functional", "log_softmax", T("(700, 33278)", "float32")), "k", 0, 0, TP_PYPROF_3X);
    CHECK("3x_log_softmax", R.flops.value == 489186600);
    eval(M("Tensor", "float", T("(18, 104, 160)", "bool")), "elementwise_kernel", 0, 0, TP_PYPROF_3X);
    CHECK("3x_float_bool", strcmp(R.params, "[18,104,160]bool") == 0 && R.bytes.value == 1497600);
    eval(M("torch", "zeros", "{'name': '', 'type': 'tuple', 'value': (2, 3)}"), "k", 0, 0, TP_PYPROF_3X);
    CHECK("3x_zeros", strcmp(R.params, "[2,3]fp32") == 0 && R.bytes.value == 24);
    eval(M("torch", "full", "{'name': '', 'type': 'list', 'value': [4]}, {'name': '', 'type': 'int', 'value': 1}"),
         "k", 0, 0, TP_PYPROF_3X);
    CHECK("3x_full", strcmp(R.params, "[4]int32") == 0 && R.bytes.value == 16);
    eval(M("Tensor", "lt", T("(4, 1)", "float32") ", " T("(1, 5)", "float32")), "k", 0, 0, TP_PYPROF_3X);
    CHECK("3x_lt_bool_out", R.flops.value == 20 && R.bytes.value == 16 + 20 + 20);
    eval(M("torch", "index_select", T("(10, 4)", "float32") ", {'name': '', 'type': 'int', 'value': 0}, "
           T("(3,)", "int64")), "k", 0, 0, TP_PYPROF_3X);
    CHECK("3x_index_select", strcmp(R.params, "T=(10,4),D=0,I=3,fp32,") == 0 && R.bytes.value == 2 * 12 * 4 + 24);
    eval(M("torch", "index_select", T("(10, 4)", "float32") ", {'name': '', 'type': 'int', 'value': 0}, "
           T("(3,)", "int64")), "k", 0, 0, TP_PYPROF_APEX);
    CHECK("apex_index_select_aborts", !R.known && R.warning[0]);
}

static void test_aten(void)
{
    eval_k("aten::addmm", "[[512],[32,1024],[1024,512],[],[]]", "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"]",
           "ampere_sgemm_128x64_tn");
    CHECK("aten_addmm", R.known && R.flops.value == 2.0 * 32 * 512 * 1024 + 32 * 512 &&
          R.bytes.value == 4.0 * (32 * 1024 + 1024 * 512 + 32 * 512 + 512) && strcmp(R.tc, "0") == 0);
    eval_k("aten::mm", "[[64,128],[128,32]]", "[\"c10::Half\",\"c10::Half\"]", "sm80_xmma_gemm_f16f16");
    CHECK("aten_mm_tc", R.known && strcmp(R.tc, "1") == 0 && R.bytes.value == 2.0 * (64 * 128 + 128 * 32 + 64 * 32));
    eval_k("aten::bmm", "[[8,4,5],[8,5,6]]", "[\"float\",\"float\"]", "k");
    CHECK("aten_bmm", R.flops.value == 2.0 * 8 * 4 * 5 * 6);
    eval_k("aten::matmul", "[[2,8,4,5],[5,6]]", "[\"float\",\"float\"]", "k");
    CHECK("aten_matmul_batch", R.flops.value == 2.0 * 16 * 4 * 5 * 6);
    eval_k("aten::linear", "[[32,1024],[512,1024],[512]]", "[\"float\",\"float\",\"float\"]", "k");
    CHECK("aten_linear", R.flops.value == 2.0 * 32 * 512 * 1024);
    eval_k("aten::add", "[[32,512],[512],[]]", "[\"float\",\"float\",\"Scalar\"]", "k");
    CHECK("aten_add_broadcast", R.known && R.flops.value == 32 * 512 && R.bytes.value == 4.0 * (32 * 512 * 2 + 512));
    eval_k("aten::relu", "[[10,10]]", "[\"float\"]", "k");
    CHECK("aten_relu", R.flops.value == 100 && R.bytes.value == 800);
    eval_k("aten::tanh", "[[10,10]]", "[\"float\"]", "k");
    CHECK("aten_tanh", R.flops.value == 2000);
    eval_k("aten::softmax", "[[4,10],[],[]]", "[\"float\",\"Int\",\"\"]", "k");
    CHECK("aten_softmax", R.flops.value == 1600 && R.bytes.value == 480);
    eval_k("aten::layer_norm", "[[4,10],[],[10],[10],[],[]]", "[\"float\",\"GenericList\",\"float\",\"float\",\"Double\",\"Bool\"]", "k");
    CHECK("aten_layer_norm", R.flops.value == 320 && R.bytes.value == 640);
    eval_k("aten::embedding", "[[100,16],[4,8],[],[],[]]", "[\"float\",\"long int\",\"Int\",\"Bool\",\"Bool\"]", "k");
    CHECK("aten_embedding", R.known && R.bytes.value == 32.0 * 8 + 2.0 * 32 * 16 * 4);
    eval_k("aten::conv2d", "[[32,3,224,224],[64,3,7,7],[64],[],[],[],[]]",
           "[\"float\",\"float\",\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Int\"]", "k");
    CHECK("aten_conv_unknown_stride", !R.known && R.warning[0] && R.flops.value == 0);
    eval_k("aten::max_pool2d", "[[32,64,112,112],[],[],[],[],[]]",
           "[\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Bool\"]", "k");
    CHECK("aten_pool_unknown", !R.known);
    eval_k("aten::dropout", "[[10,10],[],[]]", "[\"float\",\"Double\",\"Bool\"]", "k");
    CHECK("aten_dropout", R.flops.value == 500 && R.bytes.value == 800);
    eval_k("aten::cross_entropy_loss", "[[32,10],[32],[],[],[],[]]",
           "[\"float\",\"long int\",\"\",\"Int\",\"Int\",\"Double\"]", "k");
    CHECK("aten_cross_entropy", R.known && R.flops.value == 21.0 * 320 + 32);
    eval_k("aten::_foreach_add_", "[[[2,3],[4]],[[2,3],[4]]]", "[\"TensorList\",\"TensorList\"]", "k");
    CHECK("aten_foreach_no_dtype_na", !R.known);
    eval_k("aten::mm", "[[64,128],[128,32]]", "[\"c10::complex<float>\",\"c10::complex<float>\"]", "k");
    CHECK("aten_unknown_dtype_na", !R.known && R.warning[0]);
    eval_k("aten::view", "[[64,128],[]]", "[\"float\",\"IntList\"]", "k");
    CHECK("aten_no_formula", !R.known && !R.warning[0] && strcmp(R.params, "[64,128]fp32") == 0);
    /* the op-level entry point also takes apex markers as 3.x: aten only in 3X */
    eval_k("aten::relu", "[[10]]", "[\"float\"]", "k");
    CHECK_STR("aten_op", R.op, "relu");
}

#define CONV_TYPES "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"ScalarList\",\"ScalarList\"," \
                   "\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\"]"

/* Convolution and pooling with the scalar values PyTorch 2.x records */
static void test_conv_pool(void)
{
    /* TraceLens CONV_fwd (Falconsai ViT patch embedding): 0.924844032 GFLOPs */
    eval_kc("aten::convolution", "[[4,3,224,224],[768,3,16,16],[768],[],[],[],[],[],[]]", CONV_TYPES,
            "[\"\",\"\",\"\",\"[16, 16]\",\"[0, 0]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\"]", "k");
    CHECK("conv_vit_flops", R.known && R.flops.value == 924844032.0);
    CHECK("conv_vit_bytes", R.bytes.value == 2.0 * (4 * 3 * 224 * 224 + 768 * 3 * 16 * 16 + 4 * 768 * 14 * 14));
    CHECK_STR("conv_vit_params", R.params,
              "[4,3,224,224]bf16;[768,3,16,16]bf16;[768]bf16;stride=[16,16],padding=[0,0],dilation=[1,1],groups=1");
    /* grouped (depthwise): weight [64,1,3,3], 64 groups, stride 2, padding 1: out 56x56 */
    eval_kc("aten::convolution", "[[2,64,112,112],[64,1,3,3],[],[],[],[],[],[],[]]", CONV_TYPES,
            "[\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"64\"]", "k");
    CHECK("conv_grouped_flops", R.known && R.flops.value == 2.0 * 2 * 64 * 1 * 9 * 56 * 56);
    /* dilation 2 and a one-element list for every dim: out (32+2-2*2-1)/1+1 = 30 */
    eval_kc("aten::conv2d", "[[1,8,32,32],[16,8,3,3],[16],[],[],[],[]]",
            "[\"float\",\"float\",\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\"]",
            "[\"\",\"\",\"\",\"[1]\",\"[1]\",\"[2]\",\"1\"]", "k");
    CHECK("conv_dilated_flops", R.known && R.flops.value == 2.0 * 16 * 8 * 9 * 30 * 30);
    /* transposed, grouped: input [1,8,16,16], weight [8,4,4,4] (C_in, C_out/g, R, S), groups 2,
     * stride 2, padding 1, output_padding 1: out (16-1)*2 - 2 + 3 + 1 + 1 = 33, K = 8 */
    eval_kc("aten::convolution", "[[1,8,16,16],[8,4,4,4],[8],[],[],[],[],[],[]]", CONV_TYPES,
            "[\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"True\",\"[1, 1]\",\"2\"]", "k");
    CHECK("conv_transposed_flops", R.known && R.flops.value == 2.0 * 8 * 16 * 16 * 4 * 16);
    CHECK("conv_transposed_bytes", R.bytes.value == 2.0 * (8 * 16 * 16 + 8 * 4 * 16 + 8 * 33 * 33));
    CHECK("conv_transposed_params", strstr(R.params, "transposed=1,output_padding=[1,1],groups=2") != NULL);
    /* cuDNN's own schema: (self, weight, padding, stride, dilation, groups, ...) */
    eval_kc("aten::cudnn_convolution", "[[4,3,224,224],[768,3,16,16],[],[],[],[],[],[],[]]",
            "[\"float\",\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\",\"Scalar\","
            "\"Scalar\",\"Scalar\"]",
            "[\"\",\"\",\"[0, 0]\",\"[16, 16]\",\"[1, 1]\",\"1\",\"False\",\"False\",\"True\"]", "k");
    CHECK("conv_cudnn_order", R.known && R.flops.value == 924844032.0);
    /* backward: output_mask [False, True, False] (first layer: no input gradient) = one forward;
     * TraceLens' CONV_bwd counts both (4.72055808 GFLOPs) */
    static const char bwd_dims[] = "[[10,64,112,112],[10,3,224,224],[64,3,7,7],[],[],[],[],[],[],[],[]]";
    static const char bwd_types[] = "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"ScalarList\","
        "\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\",\"ScalarList\"]";
    eval_kc("aten::convolution_backward", bwd_dims, bwd_types,
            "[\"\",\"\",\"\",\"[0]\",\"[2, 2]\",\"[3, 3]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\","
            "\"[False, True, False]\"]", "k");
    CHECK("conv_bwd_weight_only", R.known && R.flops.value == 4720558080.0 / 2);
    CHECK("conv_bwd_params", strstr(R.params, "groups=1,output_mask=[0,1,0]") != NULL);
    eval_kc("aten::convolution_backward", bwd_dims, bwd_types,
            "[\"\",\"\",\"\",\"[64]\",\"[2, 2]\",\"[3, 3]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\","
            "\"[True, True, True]\"]", "k");
    CHECK("conv_bwd_all", R.known && R.flops.value == 4720558080.0 + 10.0 * 64 * 112 * 112);
    CHECK("conv_bwd_all_bytes", R.bytes.value == 2.0 * (2 * (10.0 * 3 * 224 * 224 + 64 * 3 * 49 + 10.0 * 64 * 112 * 112) +
                                                         10.0 * 64 * 112 * 112 + 64));
    /* the values missing: na, as before */
    eval_kc("aten::convolution", "[[4,3,224,224],[768,3,16,16],[768],[],[],[],[],[],[]]", CONV_TYPES,
            "[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\"]", "k");
    CHECK("conv_values_absent_na", !R.known && R.warning[0]);
    /* a transposed convolution whose padding eats the output: na, not a negative count */
    eval_kc("aten::convolution", "[[1,8,2,2],[8,4,1,1],[],[],[],[],[],[],[]]", CONV_TYPES,
            "[\"\",\"\",\"\",\"[1, 1]\",\"[5, 5]\",\"[1, 1]\",\"True\",\"[0, 0]\",\"1\"]", "k");
    CHECK("conv_transposed_empty_na", !R.known && R.warning[0]);
    /* groups that do not divide the channels: na */
    eval_kc("aten::convolution", "[[1,6,8,8],[4,4,3,3],[],[],[],[],[],[],[]]", CONV_TYPES,
            "[\"\",\"\",\"\",\"[1, 1]\",\"[0, 0]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"2\"]", "k");
    CHECK("conv_bad_groups_na", !R.known && R.warning[0]);

    /* max_pool2d(k 3, s 2, p 1) on 112: out 56, FLOPs out·9 */
    eval_kc("aten::max_pool2d", "[[32,64,112,112],[],[],[],[],[]]",
            "[\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\"]",
            "[\"\",\"[3, 3]\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"False\"]", "k");
    CHECK("pool_max_flops", R.known && R.flops.value == 32.0 * 64 * 56 * 56 * 9);
    CHECK("pool_max_bytes", R.bytes.value == 4.0 * (32 * 64 * 112 * 112 + 32 * 64 * 56 * 56));
    eval_kc("aten::max_pool2d_with_indices", "[[32,64,112,112],[],[],[],[],[]]",
            "[\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\"]",
            "[\"\",\"[3, 3]\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"False\"]", "k");
    CHECK("pool_max_indices_bytes", R.bytes.value == 4.0 * (32 * 64 * 112 * 112 + 32 * 64 * 56 * 56) +
                                                     8.0 * 32 * 64 * 56 * 56);
    /* ceil_mode: 3x3/2 on 8 without padding: floor 3, ceil 4 (last window starts at 6 < 8) */
    eval_kc("aten::max_pool2d", "[[1,1,8,8],[],[],[],[],[]]",
            "[\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\"]",
            "[\"\",\"[3, 3]\",\"[2, 2]\",\"[0, 0]\",\"[1, 1]\",\"True\"]", "k");
    CHECK("pool_ceil_mode", R.known && R.flops.value == 4.0 * 4 * 9);
    /* avg_pool2d with stride omitted ([] = kernel size), one-element lists */
    eval_kc("aten::avg_pool2d", "[[2,4,8,8],[],[],[],[],[],[]]",
            "[\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\",\"Scalar\",\"\"]",
            "[\"\",\"[2]\",\"[]\",\"[0]\",\"False\",\"True\",\"\"]", "k");
    CHECK("pool_avg_default_stride", R.known && R.flops.value == 2.0 * 4 * 4 * 4 * 4);
    /* backward: (grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices) */
    eval_kc("aten::max_pool2d_with_indices_backward", "[[10,64,56,56],[10,64,112,112],[],[],[],[],[],[10,64,56,56]]",
            "[\"c10::BFloat16\",\"c10::BFloat16\",\"ScalarList\",\"ScalarList\",\"ScalarList\","
            "\"ScalarList\",\"Scalar\",\"long int\"]",
            "[\"\",\"\",\"[3, 3]\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"\"]", "k");
    CHECK("pool_max_bwd", R.known && R.flops.value == 10.0 * 64 * 56 * 56 &&
          R.bytes.value == 2.0 * (10.0 * 64 * 56 * 56 + 10.0 * 64 * 112 * 112) + 8.0 * 10 * 64 * 56 * 56);
    eval_kc("aten::avg_pool2d_backward", "[[2,4,4,4],[2,4,8,8],[],[],[],[],[],[]]",
            "[\"float\",\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\","
            "\"Scalar\",\"\"]", "[\"\",\"\",\"[2, 2]\",\"[2, 2]\",\"[0, 0]\",\"False\",\"True\",\"\"]", "k");
    CHECK("pool_avg_bwd", R.known && R.flops.value == 2.0 * 4 * 16 * 4 && R.bytes.value == 4.0 * (128 + 512));
    eval_kc("aten::adaptive_avg_pool2d", "[[2,4,8,8],[]]", "[\"float\",\"ScalarList\"]",
            "[\"\",\"[1, 1]\"]", "k");
    CHECK("pool_adaptive", R.known && R.flops.value == 2.0 * 4 * 64 && R.bytes.value == 4.0 * (512 + 8));
}

/* Attention: SDPA forms, layouts, causal masks, backward */
static void test_attention(void)
{
    /* TraceLens SDPA_fwd (Falconsai): B 4, N 197, H 12, d 64: 0.476884992 GFLOPs */
    eval_kc("aten::_scaled_dot_product_flash_attention", "[[4,12,197,64],[4,12,197,64],[4,12,197,64],[],[],[],[]]",
            "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\",\"Scalar\","
            "\"Scalar\"]", "[\"\",\"\",\"\",\"0.\",\"False\",\"False\",\"0.125\"]", "attn_fwd");
    CHECK("sdpa_flash_flops", R.known && R.flops.value == 476884992.0);
    CHECK("sdpa_flash_bytes", R.bytes.value == 2.0 * 4 * 4 * 12 * 197 * 64);
    /* the flash kernel's own op takes [B, N, H, d] */
    eval_kc("aten::_flash_attention_forward",
            "[[4,197,12,64],[4,197,12,64],[4,197,12,64],[],[],[],[],[],[],[],[],[],[],[],[]]",
            "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"\",\"\",\"Scalar\",\"Scalar\","
            "\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"\",\"\",\"\",\"\"]",
            "[\"\",\"\",\"\",\"\",\"\",\"197\",\"197\",\"0.\",\"False\",\"False\",\"0.125\",\"\","
            "\"\",\"\",\"\"]", "k");
    CHECK("sdpa_flash_fwd_bnhd", R.known && R.flops.value == 476884992.0);
    /* causal, equal lengths: half (N odd: 4·12·197²·128 exactly) */
    eval_kc("aten::_scaled_dot_product_efficient_attention",
            "[[4,12,197,64],[4,12,197,64],[4,12,197,64],[],[],[],[],[]]",
            "[\"float\",\"float\",\"float\",\"\",\"Scalar\",\"Scalar\",\"Scalar\",\"\"]",
            "[\"\",\"\",\"\",\"\",\"True\",\"0.\",\"True\",\"\"]", "k");
    CHECK("sdpa_causal_half", R.known && R.flops.value == 476884992.0 / 2);
    CHECK("sdpa_causal_params", strstr(R.params, "causal=1") != NULL);
    /* causal with fewer queries than keys (decode-like): top-left keeps Σ min(i+1, 8) over 4 rows = 10
     * pairs; bottom-right (flash-attn) keeps 5+6+7+8 = 26 */
    eval_kc("aten::_scaled_dot_product_flash_attention", "[[1,1,4,16],[1,1,8,16],[1,1,8,16],[],[],[],[]]",
            "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]",
            "[\"\",\"\",\"\",\"0.\",\"True\",\"False\",\"\"]", "k");
    CHECK("sdpa_causal_top_left", R.known && R.flops.value == 2.0 * 10 * 32);
    eval_kc("flash_attn::_flash_attn_forward", "[[1,4,1,16],[1,8,1,16],[1,8,1,16],[],[],[]]",
            "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\",\"Scalar\"]",
            "[\"\",\"\",\"\",\"0.\",\"0.25\",\"True\"]", "flash_fwd_kernel");
    CHECK("flash_attn_causal_bottom_right", R.known && R.flops.value == 2.0 * 26 * 32 && strcmp(R.tc, "1") == 0);
    /* more queries than keys: bottom-right rows see 0,0,0,0,1,2,3,4 keys, top-left 1,2,3,4,4,4,4,4 */
    CHECK("causal_pairs_more_queries", tp_flops_causal_pairs2(8, 4, 1) == 2 * 10 &&
          tp_flops_causal_pairs2(8, 4, 0) == 2 * 26 && tp_flops_causal_pairs2(5, 5, 0) == 25);
    /* GQA: 8 query heads over 2 kv heads; memory-efficient mask type 1 = causal */
    eval_kc("aten::_efficient_attention_forward",
            "[[2,64,8,32],[2,64,2,32],[2,64,2,32],[],[],[],[],[],[],[],[],[],[],[]]",
            "[\"c10::Half\",\"c10::Half\",\"c10::Half\",\"\",\"\",\"\",\"\",\"\",\"Scalar\","
            "\"Scalar\",\"Scalar\",\"\",\"\",\"\"]",
            "[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"0.\",\"1\",\"True\",\"\",\"\",\"\"]", "k");
    CHECK("sdpa_gqa_causal", R.known && R.flops.value == 2.0 * 2 * 8 * 64 * 64 * 64 / 2 &&
          R.bytes.value == 2.0 * (2 * 8 * 64 * 32 * 2 + 2 * 2 * 64 * 32 * 2));
    /* backward, flash: recomputed QKᵀ + dV, dP, dQ, dK; GQA reduction */
    eval_kc("aten::_scaled_dot_product_flash_attention_backward",
            "[[1,4,16,8],[1,4,16,8],[1,2,16,8],[1,2,16,8],[1,4,16,8],[1,4,16],[],[],[],[],[],[],[],[],[]]",
            "[\"float\",\"float\",\"float\",\"float\",\"float\",\"float\",\"\",\"\",\"Scalar\","
            "\"Scalar\",\"Scalar\",\"Scalar\",\"\",\"\",\"\"]",
            "[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"16\",\"16\",\"0.\",\"False\",\"\",\"\","
            "\"\"]", "k");
    CHECK("sdpa_flash_bwd", R.known && R.flops.value == 2.0 * 4 * 16 * 16 * 8 * 5 + 16.0 * 16 * 1);
    /* TraceLens SDPA_bwd (compare_test_ops, flash): B 512, N 176, H 16, d 64: 162.40345088 GFLOPs */
    eval_kc("aten::_scaled_dot_product_flash_attention_backward",
            "[[512,16,176,64],[512,16,176,64],[512,16,176,64],[512,16,176,64],[512,16,176,64],[512,16,176],"
            "[],[],[],[],[],[],[],[],[]]",
            "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\","
            "\"float\",\"\",\"\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"\",\"\",\"Scalar\"]",
            "[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"176\",\"176\",\"0.10000000000000001\","
            "\"False\",\"\",\"\",\"0.125\"]", "k");
    CHECK("sdpa_flash_bwd_tracelens", R.known && R.flops.value == 162403450880.0);
    /* varlen (packed [total, H, d]) and a missing is_causal: na */
    eval_kc("aten::_flash_attention_forward", "[[100,12,64],[100,12,64],[100,12,64],[5],[5],[],[],[],[],[],[]]",
            "[\"c10::Half\",\"c10::Half\",\"c10::Half\",\"int\",\"int\",\"Scalar\",\"Scalar\","
            "\"Scalar\",\"Scalar\",\"Scalar\",\"\"]",
            "[\"\",\"\",\"\",\"\",\"\",\"40\",\"40\",\"0.\",\"True\",\"False\",\"\"]", "k");
    CHECK("sdpa_varlen_na", !R.known && R.warning[0]);
    eval_k("aten::_scaled_dot_product_flash_attention", "[[4,12,197,64],[4,12,197,64],[4,12,197,64],[],[],[],[]]",
           "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]", "k");
    CHECK("sdpa_no_concrete_na", !R.known && R.warning[0]);
}

/* addmm's beta = 0 ignores C: no add, no read */
static void test_addmm_beta(void)
{
    eval_kc("aten::addmm", "[[512],[32,1024],[1024,512],[],[]]",
            "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"]", "[\"\",\"\",\"\",\"0\",\"1\"]", "k");
    CHECK("aten_addmm_beta0", R.known && R.flops.value == 2.0 * 32 * 512 * 1024);
    eval_kc("aten::baddbmm", "[[8,4,6],[8,4,5],[8,5,6],[],[]]",
            "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"]", "[\"\",\"\",\"\",\"1\",\"1\"]", "k");
    CHECK("aten_baddbmm_c", R.known && R.flops.value == 2.0 * 8 * 4 * 5 * 6 + 8 * 4 * 6);
    /* inference-library GEMMs with the weight as [N, K] (TraceLens: 6.442450944 GFLOPs) */
    eval_k("aiter::gemm_a16w16", "[[32,4096],[24576,4096],[],[],[],[],[]]",
           "[\"c10::BFloat16\",\"c10::BFloat16\",\"\",\"Scalar\",\"\",\"\",\"\"]", "k");
    CHECK("aiter_gemm_a16w16", R.known && R.flops.value == 6442450944.0 &&
          R.bytes.value == 2.0 * (32 * 4096 + 24576.0 * 4096 + 32 * 24576));
    eval_k("vllm::rocm_unquantized_gemm", "[[8,64],[32,64],[32]]", "[\"float\",\"float\",\"float\"]", "k");
    CHECK("vllm_gemm_bias", R.known && R.flops.value == 2.0 * 8 * 32 * 64 + 8 * 32);
}

/* PyProf 3.x prof.py on the real dict: 144 rows before its abort, and the
 * two QA kernels: op, params, TC, FLOPs and bytes of each row. */
static char *next_field(char **p)
{
    char *s = *p;
    if (*s == '"')
        s++;
    char *e = strstr(s, "\",\"");
    if (e) {
        *e = 0;
        *p = e + 3;
    } else {
        e = s + strlen(s);
        while (e > s && (e[-1] == '\n' || e[-1] == '"'))
            *--e = 0;
        *p = e;
    }
    return s;
}

static void fmt_num(const struct tp_pynum *n, char *buf, size_t cap)
{
    if (!n->is_float)
        snprintf(buf, cap, "%lld", (long long)n->value);
    else if (n->value == floor(n->value) && fabs(n->value) < 1e16)
        snprintf(buf, cap, "%.1f", n->value);
    else
        snprintf(buf, cap, "%.17g", n->value);
}

static void compare_3x(const char *dict, const char *golden, const char *tag)
{
    tp_store *st = tp_store_new();
    tp_error err = {0};
    FILE *g = fopen(golden, "r");
    if (!g || tp_store_load(st, dict, &err) != TP_OK || tp_store_link(st, &err) != TP_OK) {
        printf("FAIL %s_load: %s\n", tag, err.msg);
        tt_failed++;
        if (g)
            fclose(g);
        tp_store_free(st);
        return;
    }
    char line[65536];
    (void)!fgets(line, sizeof line, g);            /* header */
    size_t row = 0, bad = 0;
    struct tp_opcall c;
    while (fgets(line, sizeof line, g) && row < st->nannots) {
        const struct tp_kernel_annot *a = &st->annots[row++];
        char *p = line, *f[20];
        for (int i = 0; i < 20; i++)
            f[i] = next_field(&p);
        char kname[512];
        tp_pyprof_short_name(tp_store_str(st, st->name[a->event]), kname, sizeof kname, 1);
        struct tp_flops_result r;
        const char *op = tp_store_str(st, a->op), *params = "na=na,", *tc = "na";
        char fl[64] = "0", by[64] = "0";
        if (a->marker && tp_opcall_from_marker(tp_store_str(st, a->marker), &c) == 0) {
            const struct tp_kernel_info *ki = tp_store_kernel(st, a->event);
            tp_flops_eval_grid(&c, kname, a->bprop, a->sub, ki ? ki->grid : NULL, TP_PYPROF_3X, &r);
            op = r.op;
            params = r.params;
            tc = r.tc;
            fmt_num(&r.flops, fl, sizeof fl);
            fmt_num(&r.bytes, by, sizeof by);
        }
        if (strcmp(op, f[9]) || strcmp(kname, f[10]) || strcmp(params, f[11]) || strcmp(tc, f[13]) ||
            strcmp(fl, f[18]) || strcmp(by, f[19])) {
            if (bad++ < 5)
                printf("# %s row %zu: got %s|%s|%s|%s|%s want %s|%s|%s|%s|%s\n", tag, row, op, params, tc, fl, by,
                       f[9], f[11], f[13], f[18], f[19]);
        }
    }
    fclose(g);
    char name[64];
    snprintf(name, sizeof name, "%s_rows", tag);
    CHECK(name, row > 0 && bad == 0);
    printf("# %s: %zu rows compared\n", tag, row);
    tp_store_free(st);
}

/* The op-class table is searched with bsearch: it must be sorted, and a
 * name twice would make one of its classes unreachable. */
const char *tp_flops_route_name(size_t i);
static void test_route_table(void)
{
    int sorted = 1;
    size_t n = 0;
    for (; tp_flops_route_name(n); n++)
        if (n && strcmp(tp_flops_route_name(n - 1), tp_flops_route_name(n)) >= 0)
            sorted = 0;
    CHECK("flops.route_table_sorted_unique", sorted && n > 60);
}

int main(void)
{
    test_route_table();
    test_apex();
    test_3x();
    test_aten();
    test_conv_pool();
    test_attention();
    test_addmm_beta();
    if (access(REF "golden/17ed9e2.pp.csvall.txt", R_OK) == 0) {
        compare_3x(REF "josiahdavis_profiling-lm/17ed9e2/net.dict", REF "golden/17ed9e2.pp.csvall.txt",
                   "pyprof3x_17ed9e2");
        compare_3x(REF "golden/qa_data.dict", REF "golden/qa_data.pp.csvall.txt", "pyprof3x_qa_data");
    } else {
        SKIP("pyprof3x_golden", "../shared/reference/pyprof is absent");
    }
    TEST_EXIT();
}
