#!/usr/bin/env bash
# What `scripts/test.sh aarch64` needs beyond scripts/install-deps.sh:
#  - host packages: the cross compiler and qemu-user (installed when missing);
#  - an arm64 sysroot, build/aarch64-sysroot, made of Debian's arm64 .debs of
#    the runtime's libraries (XNNPACK, pthreadpool, cpuinfo) and of what the
#    runtime's unit tests link (the .kiln writer's LLVM Support, spdlog/fmt,
#    libzip, stb; Catch2 and FlatBuffers headers), with the shared libraries
#    those need in turn. They are fetched with `apt-get download` into
#    build/aarch64-debs (kept, so a rerun downloads nothing) and unpacked
#    with `dpkg-deb -x`.
# No :arm64 package is ever installed: a multiarch install of
# libxnnpack-dev:arm64 replaces the amd64 one (and removes libtorch-dev).
# Enabling the arm64 architecture (dpkg --add-architecture + apt-get update)
# only adds package lists.
set -euo pipefail
cd "$(dirname "$0")/.."

HOST_PACKAGES=(g++-aarch64-linux-gnu qemu-user)

SYSROOT_PACKAGES=(
  libxnnpack-dev libxnnpack0 libpthreadpool-dev libpthreadpool0 libcpuinfo0
  llvm-14-dev                          # libLLVMSupport.a and its headers
  zlib1g-dev zlib1g libncurses-dev libtinfo6
  libspdlog-dev libspdlog1.10 libfmt-dev libfmt9
  libzip-dev libzip4 libbz2-1.0 libssl3
  libstb-dev libstb0
  libflatbuffers-dev libflatbuffers2 catch2
  libxxhash-dev                        # header only (XXH_INLINE_ALL)
  libmbedtls-dev                       # static libmbedcrypto: kernel SHA-256
)
# Architecture-independent packages ("all": no :arm64 version to ask for).
SYSROOT_ALL_PACKAGES=(
  libeigen3-dev                        # header only: the runtime's Eigen kernels
)
DEBS=build/aarch64-debs
SYSROOT=build/aarch64-sysroot

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps-aarch64: need root or sudo for apt-get" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive

missing=()
for p in "${HOST_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps-aarch64: installing ${missing[*]}"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The arm64 package lists (no package is installed from them).
arm64=("${SYSROOT_PACKAGES[@]/%/:arm64}" "${SYSROOT_ALL_PACKAGES[@]}")
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "install-deps-aarch64: enabling the arm64 package lists"
  $SUDO dpkg --add-architecture arm64
  $SUDO apt-get update -qq
fi

# The .debs of the current candidate versions: "'URI' FILE SIZE HASH" each
# (the lists are fetched again where they lack a package).
if ! uris=$(apt-get download --print-uris "${arm64[@]}" 2>/dev/null); then
  $SUDO apt-get update -qq
  uris=$(apt-get download --print-uris "${arm64[@]}")
fi
want=()
while read -r line; do
  read -r _ file _ <<<"$line"
  want+=("$file")
done <<<"$uris"
mkdir -p "$DEBS"
fetch=()
for f in "${want[@]}"; do # NAME_VERSION_arm64.deb, or NAME_VERSION_all.deb
  if [ ! -s "$DEBS/$f" ]; then
    case "$f" in
      *_all.deb) fetch+=("${f%%_*}") ;;
      *) fetch+=("${f%%_*}:arm64") ;;
    esac
  fi
done
if [ ${#fetch[@]} -gt 0 ]; then
  echo "install-deps-aarch64: downloading ${#fetch[@]} arm64 .debs into $DEBS"
  # apt-get download writes to the current folder, as the _apt user where it
  # can (it drops privileges), so the folder must be writable by it.
  (cd "$DEBS" && chmod a+rwx . && apt-get download -q=2 "${fetch[@]}")
fi
# Old versions of a package (after a Debian point release) go.
for f in "$DEBS"/*.deb; do
  keep=0
  for w in "${want[@]}"; do [ "$f" = "$DEBS/$w" ] && keep=1; done
  [ $keep = 1 ] || rm -f "$f"
done

# The sysroot, unpacked afresh whenever the set of .debs changed.
stamp=$(printf '%s\n' "${want[@]}" | sort)
if [ -f "$SYSROOT/.debs" ] && [ "$(cat "$SYSROOT/.debs")" = "$stamp" ]; then
  echo "install-deps-aarch64: $SYSROOT is up to date (${#want[@]} packages)"
  exit 0
fi
echo "install-deps-aarch64: unpacking ${#want[@]} .debs into $SYSROOT"
rm -rf "$SYSROOT"
mkdir -p "$SYSROOT"
for f in "${want[@]}"; do
  dpkg-deb -x "$DEBS/$f" "$SYSROOT"
done
# Absolute symlinks (libfoo.so -> /lib/aarch64-linux-gnu/libfoo.so.N) would
# point into the host: make them relative, within the sysroot.
root=$(cd "$SYSROOT" && pwd)
find "$SYSROOT" -type l -lname '/*' | while read -r link; do
  target=$(readlink "$link")
  ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$root$target")" "$link"
done
echo "$stamp" >"$SYSROOT/.debs"
du -sh "$DEBS" "$SYSROOT" | sed 's/^/install-deps-aarch64: /'
