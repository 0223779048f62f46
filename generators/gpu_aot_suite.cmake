# GPU ahead-of-time libraries: one small case per operator of the op registry (more
# for the families with layouts or transposes), for each scheduler of
# TESSERA_GPU_SCHEDULERS:
# - OpenCL (`host-opencl`) libraries, run on PoCL by tests/gpu/opencl_pocl_test.cpp
#   through the generated registry gpu_aot_registry.h;
# - CUDA objects for cuda_capability_75 and _86 (when ptxas is found), whose embedded
#   PTX tests/gpu/ptxas_test.cpp assembles; listed in gpu_cuda_manifest.tsv.
# Every generator call also writes the lowered statement (.stmt): the tests read from
# it which stages run as GPU kernels and what each launch asks for.

# The scheduler whose schedules are asserted, and the ones shown beside it.
list(PREPEND TESSERA_GPU_SCHEDULERS ${TESSERA_GPU_SCHEDULER})
list(REMOVE_DUPLICATES TESSERA_GPU_SCHEDULERS)

# NAME FAMILY "op line": the cases. Small shapes, awkward sizes, both layouts.
set(tessera_gpu_cases
  "matmul_bias|matmul|matmul M=37 N=53 K=29 bias=1"
  "matmul_trans_a|matmul|matmul M=17 N=16 K=64 trans_a=1"
  "matmul_packed|matmul|matmul M=17 N=40 K=23 packed=1 block=16"
  "batch_matmul|matmul|batch_matmul B=3 M=17 N=19 K=23"
  "batch_matmul_trans_b|matmul|batch_matmul B=2 M=13 N=9 K=21 trans_b=1"
  "conv2d_nchw|conv|conv2d n=1 c=3 h=17 w=13 oc=5 kh=3 kw=3 pad=1"
  "conv2d_nhwc|conv|conv2d n=1 c=5 h=12 w=12 oc=7 kh=3 kw=3 pad=1 dilation=2 layout=nhwc"
  "conv2d_groups|conv|conv2d n=1 c=6 h=9 w=7 oc=4 kh=3 kw=3 stride=2 pad=1 groups=2"
  "conv2d_packed|conv|conv2d n=1 c=3 h=9 w=9 oc=12 kh=3 kw=3 pad=1 packed=1 block=8"
  "conv2d_nchwc|conv|conv2d n=1 c=16 h=9 w=7 oc=16 kh=3 kw=3 pad=1 layout=nchwc block=8"
  "depthwise_conv2d|conv|depthwise_conv2d n=1 c=7 h=15 w=15 kh=5 kw=5 stride=2 pad=2"
  "avg_pool2d|pool|avg_pool2d n=1 c=3 h=13 w=11 kh=3 kw=3 stride=2 pad=1"
  "max_pool2d_nhwc|pool|max_pool2d n=2 c=5 h=8 w=8 kh=2 kw=2 stride=2 layout=nhwc"
  "global_avg_pool|pool|global_avg_pool n=2 c=5 h=7 w=3"
  "reduce_sum|reduce|reduce_sum shape=13x7 axes=0"
  "reduce_mean|reduce|reduce_mean shape=4x6x31 axes=-1"
  "reduce_max|reduce|reduce_max shape=13x7 axes=0"
  "reduce_min|reduce|reduce_min shape=3x5x7 axes=1,2"
  "reduce_prod|reduce|reduce_prod shape=6x5 axes=1"
  "reduce_l1|reduce|reduce_l1 shape=4x6x31 axes=1"
  "reduce_l2|reduce|reduce_l2 shape=13x7 axes=0"
  "reduce_log_sum|reduce|reduce_log_sum shape=3x5x7 axes=0,2"
  "reduce_log_sum_exp|reduce|reduce_log_sum_exp shape=4x37 axes=-1"
  "reduce_sum_square|reduce|reduce_sum_square shape=7x3x5 axes=0"
  "relu|elementwise|relu shape=7x131"
  "gelu|elementwise|gelu shape=3x5x7"
  "gelu_erf|elementwise|gelu_erf shape=5x67"
  "sigmoid|elementwise|sigmoid shape=257"
  "tanh|elementwise|tanh shape=257"
  "exp|elementwise|exp shape=2x3x17"
  "sqrt|elementwise|sqrt shape=129"
  "erf|elementwise|erf shape=3x41"
  "neg|elementwise|neg shape=2x9"
  "reciprocal|elementwise|reciprocal shape=33"
  "clip|elementwise|clip shape=4x37 min=0 max=6"
  "hard_sigmoid|elementwise|hard_sigmoid shape=5x67"
  "hard_swish|elementwise|hard_swish shape=3x41"
  "leaky_relu|elementwise|leaky_relu shape=5x67 alpha=0.2"
  "abs|elementwise|abs shape=3x37"
  "log|elementwise|log shape=129"
  "softsign|elementwise|softsign shape=5x33"
  "mish|elementwise|mish shape=2x3x17"
  "sin|elementwise|sin shape=61"
  "cos|elementwise|cos shape=61"
  "floor|elementwise|floor shape=4x29"
  "ceil|elementwise|ceil shape=4x29"
  "round|elementwise|round shape=4x29"
  "sign|elementwise|sign shape=4x29"
  "tan|elementwise|tan shape=61"
  "asin|elementwise|asin shape=3x19"
  "acos|elementwise|acos shape=3x19"
  "atan|elementwise|atan shape=61"
  "sinh|elementwise|sinh shape=2x31"
  "cosh|elementwise|cosh shape=2x31"
  "asinh|elementwise|asinh shape=61"
  "acosh|elementwise|acosh shape=3x19"
  "atanh|elementwise|atanh shape=3x19"
  "thresholded_relu|elementwise|thresholded_relu shape=5x33 alpha=0.7"
  "shrink|elementwise|shrink shape=5x33 lambd=1.5 bias=0.5"
  "celu|elementwise|celu shape=2x3x17 alpha=2"
  "elu|elementwise|elu shape=3x41"
  "selu|elementwise|selu shape=2x3x17"
  "softplus|elementwise|softplus shape=257"
  "add|elementwise|add shape_a=2x3x17 shape_b=17"
  "sub|elementwise|sub shape_a=2x3x17 shape_b=3x1"
  "mul|elementwise|mul shape_a=13x1 shape_b=1x11"
  "div|elementwise|div shape_a=6x19 shape_b=19"
  "pow|elementwise|pow shape_a=5x11 shape_b=1"
  "max|elementwise|max shape_a=7x1 shape_b=1x9"
  "min|elementwise|min shape_a=31 shape_b=31"
  "prelu|elementwise|prelu shape_a=2x8x5x5 shape_b=8x1x1"
  "bias_add|elementwise|bias_add shape=2x5x7x3 axis=1"
  "softmax|softmax|softmax shape=5x37 axis=-1"
  "log_softmax|softmax|log_softmax shape=7x3x5 axis=0"
  "layer_norm|norm|layer_norm shape=9x65"
  "batch_norm|norm|batch_norm shape=2x3x5x7 axis=1"
  "transpose|layout|transpose shape=17x31 perm=1,0"
  "pad|layout|pad shape=3x5x7 pads=0,1,2,1,0,3 value=-1.5"
  "pack_panels|layout|pack_panels shape=37x21 axis=1 block=16 front=1"
  "unpack_panels|layout|unpack_panels shape=2x20x5x7 axis=1 block=8"
  "attention|chain|attention B=2 M=13 N=11 K=7 L=19 mask=1"
  "gemm_chain|chain|gemm_chain B=2 M=17 N=9 K=23 L=37 between=relu"
  "conv_chain|chain|conv_chain c=3 h=13 w=11 oc1=5 oc2=7 kh1=3 kw1=3 kh2=1 kw2=1 pad1=1")

# The generator arguments that select SCHEDULER (none: Halide's default, all on the host).
function(tessera_gpu_scheduling out scheduler)
  if (scheduler STREQUAL "none")
    set(${out} "" PARENT_SCOPE)
  elseif (scheduler STREQUAL "Tessera")
    set(${out} AUTOSCHEDULER Tessera::Tessera PARAMS machine_params=${TESSERA_MACHINE_PARAMS} PARENT_SCOPE)
  else ()
    set(${out} AUTOSCHEDULER Halide::${scheduler} PARAMS machine_params=${TESSERA_MACHINE_PARAMS} PARENT_SCOPE)
  endif ()
endfunction()

# The plugin file of SCHEDULER (Tessera's own, or one of Halide's), for generator calls.
function(tessera_gpu_plugin out scheduler)
  if (scheduler STREQUAL "Tessera")
    set(${out} $<TARGET_FILE:Tessera::Tessera> PARENT_SCOPE)
  else ()
    set(${out} $<TARGET_FILE:Halide::${scheduler}> PARENT_SCOPE)
  endif ()
endfunction()

function(tessera_case_fields entry name_out family_out config_out params_out)
  string(REPLACE "|" ";" fields "${entry}")
  list(GET fields 0 name)
  list(GET fields 1 family)
  list(GET fields 2 config)
  string(REPLACE " " ";" words "${config}")
  list(POP_FRONT words op)
  set(${name_out} ${name} PARENT_SCOPE)
  set(${family_out} ${family} PARENT_SCOPE)
  set(${config_out} "${config}" PARENT_SCOPE)
  set(${params_out} op=${op} ${words} PARENT_SCOPE)
endfunction()

# ---- OpenCL libraries (tests/gpu/opencl_pocl_test.cpp runs them on PoCL) ----
if (OpenCL_FOUND)
  set(tessera_ocl_runtime "")
  # tessera_add_opencl_aot(LIB SCHEDULER FAMILY PARAMS...): one host-opencl library.
  function(tessera_add_opencl_aot lib scheduler family)
    tessera_gpu_scheduling(scheduling ${scheduler})
    set(runtime "")
    if (tessera_ocl_runtime)
      set(runtime USE_RUNTIME ${tessera_ocl_runtime})
    else ()
      set(tessera_ocl_runtime ${lib}.runtime PARENT_SCOPE)
    endif ()
    add_halide_library(${lib} FROM tessera_generators GENERATOR ${family}
                       TARGETS host-opencl
                       ${runtime}
                       STMT ${lib}_stmt
                       PARAMS ${ARGN}
                       ${scheduling})
  endfunction()

  set(tessera_ocl_names "")
  set(tessera_ocl_entries "")
  foreach (scheduler IN LISTS TESSERA_GPU_SCHEDULERS)
    string(TOLOWER ${scheduler} tag)
    foreach (entry IN LISTS tessera_gpu_cases)
      tessera_case_fields("${entry}" name family config params)
      set(lib gpu_ocl_${tag}_${name})
      tessera_add_opencl_aot(${lib} ${scheduler} ${family} ${params})
      list(APPEND tessera_ocl_names ${lib})
      string(APPEND tessera_ocl_entries
             "    {\"${scheduler}\", \"${lib}\", \"${config}\", ${lib}_argv, \"${CMAKE_CURRENT_BINARY_DIR}/${lib}.stmt\"},\n")
    endforeach ()
  endforeach ()
  # Unscheduled: every stage a host loop. The offload check must reject it.
  tessera_add_opencl_aot(gpu_ocl_host_only none matmul op=matmul M=37 N=53 K=29 bias=1)

  set(declarations "")
  foreach (lib IN LISTS tessera_ocl_names ITEMS gpu_ocl_host_only)
    string(APPEND declarations "extern \"C\" int ${lib}_argv(void **args);\n")
  endforeach ()
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/gpu_aot_registry.cpp
"// Generated by generators/gpu_aot_suite.cmake: the OpenCL operator libraries.
#include \"gpu_aot_registry.h\"

${declarations}
namespace tessera {
const std::vector<GpuAotKernel> &opencl_kernels() {
  static const std::vector<GpuAotKernel> kernels = {
${tessera_ocl_entries}  };
  return kernels;
}

const GpuAotKernel &opencl_host_only_kernel() {
  static const GpuAotKernel kernel = {\"none\", \"gpu_ocl_host_only\", \"matmul M=37 N=53 K=29 bias=1\",
                                      gpu_ocl_host_only_argv, \"${CMAKE_CURRENT_BINARY_DIR}/gpu_ocl_host_only.stmt\"};
  return kernel;
}
}  // namespace tessera
")
  add_library(tessera_gpu_aot STATIC ${CMAKE_CURRENT_BINARY_DIR}/gpu_aot_registry.cpp)
  target_include_directories(tessera_gpu_aot PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(tessera_gpu_aot PUBLIC ${tessera_ocl_names} gpu_ocl_host_only)
endif ()

# ---- CUDA objects (tests/gpu/ptxas_test.cpp assembles their PTX) ----
if (TESSERA_PTXAS)
  set(manifest "")
  set(objects "")
  foreach (scheduler IN LISTS TESSERA_GPU_SCHEDULERS)
    string(TOLOWER ${scheduler} tag)
    tessera_gpu_plugin(plugin ${scheduler})
    foreach (capability 75 86)
      foreach (entry IN LISTS tessera_gpu_cases)
        tessera_case_fields("${entry}" name family config params)
        set(lib gpu_cuda${capability}_${tag}_${name})
        set(dir ${CMAKE_CURRENT_BINARY_DIR}/gpu_cuda)
        add_custom_command(
          OUTPUT ${dir}/${lib}.o ${dir}/${lib}.stmt
          COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
          COMMAND tessera_generators -g ${family} -n ${lib} -e object,stmt -o ${dir}
                  -p ${plugin} -s ${scheduler} auto_schedule=true machine_params=${TESSERA_MACHINE_PARAMS}
                  target=host-cuda-cuda_capability_${capability}-no_runtime ${params}
          DEPENDS tessera_generators ${plugin}
          VERBATIM)
        list(APPEND objects ${dir}/${lib}.o)
        string(APPEND manifest "${scheduler}\t${capability}\t${name}\t${dir}/${lib}.o\t${dir}/${lib}.stmt\t${config}\n")
      endforeach ()
    endforeach ()
  endforeach ()
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/gpu_cuda_manifest.tsv "${manifest}")
  add_custom_target(tessera_gpu_cuda_objects ALL DEPENDS ${objects})
endif ()
