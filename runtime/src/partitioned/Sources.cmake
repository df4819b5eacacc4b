# Partitioned files (included by runtime/CMakeLists.txt for Targets.def's
# partitioned line): the verifier and the executor that chains the parts'
# executors, in every build (a part whose target this build lacks fails at
# session creation, naming it).
target_sources(kiln_runtime_objects PRIVATE
  src/partitioned/PartitionedTarget.cpp
  src/partitioned/PartitionedPayloadVerifier.cpp
  src/partitioned/PartitionedExecutor.cpp)
