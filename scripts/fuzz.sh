#!/usr/bin/env bash
# The fuzz campaigns (not part of CI: each runs for minutes). Builds the
# `fuzz` preset's libFuzzer binaries (clang-14, everything instrumented with
# coverage, ASan and UBSan) and runs each target for at least SECONDS
# (default 600) and at least 10^6 executions, whichever is longer, seeded
# with the repo's models and malformed files. A crash (or leak, timeout,
# memory blow-up) is written to test/fuzz/regressions-KIND/ (the loader's to
# test/fuzz/regressions/), which ctest replays from then on; the summary
# gives executions, edges covered and time per target.
#   scripts/fuzz.sh [SECONDS] [TARGET...]   TARGET: onnx npy image manifest pass-record kcal
#                                           torchscript-zip loader
# Two campaigns run at a time (FUZZ_JOBS to change).
set -uo pipefail
cd "$(dirname "$0")/.."
Seconds=${1:-600}
shift || true
Targets=("$@")
[ ${#Targets[@]} -gt 0 ] || Targets=(onnx npy image torchscript-zip manifest pass-record kcal loader)
Jobs=${FUZZ_JOBS:-2}
MinRuns=1000000

seedsOf() {
  case $1 in
  onnx) echo test/onnx-malformed test/onnx-models examples/models ;;
  npy) echo test/npy-malformed examples/models ;;
  image) echo test/quant-images ;;
  torchscript-zip) echo test/torchscript-malformed test/torchscript-models ;;
  manifest) echo test/build-malformed ;;
  pass-record) echo test/pass-record-malformed ;;
  kcal) echo test/kcal-malformed ;;
  loader) echo build/release/test/cpu/mutants ;;
  esac
}
artifactsOf() {
  if [ "$1" = loader ]; then echo test/fuzz/regressions; else echo "test/fuzz/regressions-$1"; fi
}

scripts/install-deps.sh >/dev/null
apt_missing=()
command -v clang++-14 >/dev/null || apt_missing+=(clang-14)
dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "ok installed" ||
  apt_missing+=(libclang-rt-14-dev)
if [ ${#apt_missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get install -y -qq --no-install-recommends "${apt_missing[@]}"
fi
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j2 --target $(printf 'kiln-%s-fuzzer ' "${Targets[@]}") || exit 1

Out=build/fuzz/campaigns
mkdir -p "$Out"
# campaign TARGET: the libFuzzer runs, then one summary line.
campaign() {
  local T=$1 Bin=build/fuzz/test/fuzz/kiln-$1-fuzzer Corpus=build/fuzz/corpus-$1
  local Log=$Out/$1.log Art Start=$SECONDS Runs=0 Edges=0 Rc=0
  Art=$(artifactsOf "$T")/
  mkdir -p "$Corpus" "$Art"
  : >"$Log"
  local Flags=(-rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=20
               -print_final_stats=1 -artifact_prefix="$Art")
  "$Bin" "${Flags[@]}" -max_total_time="$Seconds" "$Corpus" $(seedsOf "$T") \
    >>"$Log" 2>&1 || Rc=$?
  Runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$Log" | awk '{s+=$2} END {print s+0}')
  # Short of 10^6 executions at the time limit: on until there.
  if [ $Rc -eq 0 ] && [ "$Runs" -lt $MinRuns ]; then
    "$Bin" "${Flags[@]}" -runs=$((MinRuns - Runs)) "$Corpus" >>"$Log" 2>&1 || Rc=$?
    Runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$Log" | awk '{s+=$2} END {print s+0}')
  fi
  Edges=$(grep -o 'cov: [0-9]*' "$Log" | tail -1 | awk '{print $2}')
  local Verdict="0 crashes"
  [ $Rc -eq 0 ] || Verdict="FOUND A BUG (exit $Rc): $(grep -m1 -o 'Test unit written to .*' "$Log")"
  echo "$T: $Runs executions, ${Edges:-0} edges, $((SECONDS - Start)) s, corpus $(ls "$Corpus" | wc -l) files; $Verdict"
}

Pids=()
for T in "${Targets[@]}"; do
  campaign "$T" >"$Out/$T.summary" &
  Pids+=($!)
  while [ "$(jobs -rp | wc -l)" -ge "$Jobs" ]; do sleep 5; done
done
wait
Failed=0
for T in "${Targets[@]}"; do
  cat "$Out/$T.summary"
  grep -q "; 0 crashes$" "$Out/$T.summary" || Failed=1
done
exit $Failed
