// ONNX Runtime side of bench/compare.py (onnxruntime-node):
//   node ort_bench.js ORT_MODULE_DIR MODEL.onnx INPUT_NAME SHAPE RUNS SESSIONS [DTYPE]
// Creates the session SESSIONS times (1 intra-op thread, all graph
// optimizations) and times each creation, then runs RUNS times on a fixed
// ramp input (DTYPE float32, the default, or int64: token ids 1..999) and
// prints one JSON line: session creation times, first run, run times, and
// the first output's first values.
const path = require('path');
const [ortDir, model, inputName, shapeArg, runsArg, sessionsArg, dtypeArg] =
    process.argv.slice(2);
const ort = require(path.join(ortDir, 'node_modules', 'onnxruntime-node'));

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const options = {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
};

(async () => {
  const shape = shapeArg.split('x').map(Number);
  const n = shape.reduce((a, b) => a * b, 1);
  let feeds;
  if (dtypeArg === 'int64') {
    const ids = new BigInt64Array(n);
    for (let i = 0; i < n; ++i) ids[i] = BigInt(1 + (i * 37) % 999);
    feeds = {[inputName]: new ort.Tensor('int64', ids, shape)};
  } else {
    const data = new Float32Array(n);
    for (let i = 0; i < n; ++i) data[i] = (i % 17) / 16 - 0.5;
    feeds = {[inputName]: new ort.Tensor('float32', data, shape)};
  }

  const sessionMs = [];
  let session;
  for (let s = 0; s < Number(sessionsArg); ++s) {
    const t0 = process.hrtime.bigint();
    session = await ort.InferenceSession.create(model, options);
    sessionMs.push(ms(t0));
  }
  let t0 = process.hrtime.bigint();
  let out = await session.run(feeds);
  const firstMs = ms(t0);
  const runMs = [];
  for (let r = 0; r < Number(runsArg); ++r) {
    t0 = process.hrtime.bigint();
    out = await session.run(feeds);
    runMs.push(ms(t0));
  }
  const first = out[session.outputNames[0]].data;
  console.log(JSON.stringify({
    session_ms: sessionMs,
    first_run_ms: firstMs,
    run_ms: runMs,
    output_head: Array.from(first.slice(0, 10)),
  }));
})();
