# The CPU target (included by runtime/CMakeLists.txt for Targets.def's cpu
# line): the engine chain and its kernels, in every build; oneDNN's where
# the build has it (KILN_WITH_ONEDNN, x86-64). Eigen is header only: its
# include folder, not its target, so that nothing of it reaches the
# installed library's link interface.
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
target_include_directories(kiln_runtime_objects SYSTEM PRIVATE
  $<TARGET_PROPERTY:Eigen3::Eigen,INTERFACE_INCLUDE_DIRECTORIES>)
target_sources(kiln_runtime_objects PRIVATE
  src/cpu/eigen/EigenKernels.cpp
  src/cpu/CpuTarget.cpp
  src/cpu/CpuExecutor.cpp
  src/cpu/SegmentRelease.cpp
  src/cpu/MemoryPlanner.cpp
  src/cpu/OperatorFusion.cpp
  src/cpu/WeightArena.cpp
  src/cpu/WeightWidening.cpp
  src/cpu/xnnpack/XnnpackAllocator.cpp
  src/cpu/xnnpack/XnnpackInt8Kernels.cpp
  src/cpu/xnnpack/XnnpackKernels.cpp
  src/cpu/reference/CastKernels.cpp
  src/cpu/reference/ConvKernels.cpp
  src/cpu/reference/ImageKernels.cpp
  src/cpu/reference/BoxNmsKernel.cpp
  src/cpu/reference/LstmKernel.cpp
  src/cpu/reference/GruKernel.cpp
  src/cpu/reference/DataMovementKernels.cpp
  src/cpu/reference/ElementwiseKernels.cpp
  src/cpu/reference/Int8Kernels.cpp
  src/cpu/reference/NormKernels.cpp
  src/cpu/reference/PoolKernels.cpp
  src/cpu/reference/ReduceKernels.cpp
  src/cpu/reference/ResizeKernel.cpp
  src/cpu/reference/ReferenceKernel.cpp)
if(KILN_WITH_ONEDNN)
  target_sources(kiln_runtime_objects PRIVATE src/cpu/onednn/OnednnKernels.cpp
                                              src/cpu/onednn/OnednnLstm.cpp
                                              src/cpu/onednn/OnednnGru.cpp
                                              src/cpu/onednn/OnednnPanelConv.cpp
                                              src/cpu/onednn/OnednnWinograd.cpp
                                              src/cpu/onednn/WinogradWeights.cpp
                                              src/cpu/panel/PanelConv.cpp)
  target_link_libraries(kiln_runtime_objects PRIVATE kiln_onednn)
  list(APPEND kiln_runtime_libs kiln_onednn)
else()
  target_sources(kiln_runtime_objects PRIVATE src/cpu/onednn/NoOnednn.cpp)
endif()
