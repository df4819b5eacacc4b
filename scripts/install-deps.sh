#!/usr/bin/env bash
# Installs the Debian packages kiln needs, skipping those already present so a
# second run costs seconds. Runs apt-get as root (or via sudo when available).
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config
  llvm-14-dev llvm-14-tools          # Support/ADT, FileCheck, lit
  libonnx-dev libprotobuf-dev protobuf-compiler
  libcli11-dev libspdlog-dev catch2
  libflatbuffers-dev flatbuffers-compiler
  libeigen3-dev
  libzip-dev                         # .npz archives
  libstb-dev                         # JPEG/PNG calibration images
  zlib1g-dev                         # PNG: the inflate bound before stb_image
  libtorch-dev                       # TorchScript frontend
  libxnnpack-dev libpthreadpool-dev  # CPU runtime kernels
  libdnnl-dev                        # x86 runtime: oneDNN convolutions
  python3 python3-numpy python3-onnx # test-data generators
  xxhash                             # tests: xxhsum checks the source hash
  libxxhash-dev                      # runtime: verify_weight_hashes (header only)
  libmbedtls-dev                     # runtime: SHA-256 of GPU kernels (static libmbedcrypto)
  python3-torch python3-torchvision
  graphviz                           # kiln inspect --format svg
  libvulkan-dev glslc spirv-tools    # Vulkan target: loader, GLSL -> SPIR-V at build time
  libspirv-cross-c-shared-dev        # Metal target: MSL from SPIR-V
  mesa-vulkan-drivers                # tests: lavapipe, a Vulkan device on the CPU
  vulkan-validationlayers            # tests: VK_LAYER_KHRONOS_validation
  libtomlplusplus-dev                # kiln build: the manifest
  chromium                           # tests: kiln build's HTML report, headless
  python3-distributed                # kiln build's Dask recipe (tested on a local cluster)
  pybind11-dev python3-dev           # the Python package (python/)
  python3-pytest                     # tests: the Python package
  python3-venv python3-pip python3-setuptools  # tests: pip install of the package
  default-jdk-headless               # the Java API (android/): javac, JNI headers
  junit4                             # tests: the Java API (JUnit 4, Hamcrest)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo for apt-get" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
