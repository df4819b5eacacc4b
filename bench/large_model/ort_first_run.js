// ONNX Runtime (npm onnxruntime-node) on a large model: session creation
// plus one run, timed, on one float32 input from an .npy-free raw file:
//   node ort_first_run.js ORT_MODULE_DIR MODEL.onnx INPUT_NAME SHAPE IN.bin OUT.bin
// Prints "create_ms run_ms". All cores, default optimizations, as a user
// would run it.
const fs = require('fs');
const path = require('path');
const [ortDir, model, inputName, shapeArg, inPath, outPath] =
    process.argv.slice(2);
const ort = require(path.join(ortDir, 'node_modules', 'onnxruntime-node'));

(async () => {
  const shape = shapeArg.split('x').map(Number);
  const bytes = fs.readFileSync(inPath);
  const data = new Float32Array(bytes.buffer, bytes.byteOffset,
                                bytes.byteLength / 4);
  const t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model);
  const t1 = process.hrtime.bigint();
  const out = await session.run(
      {[inputName]: new ort.Tensor('float32', data, shape)});
  const t2 = process.hrtime.bigint();
  const first = out[session.outputNames[0]].data;
  fs.writeFileSync(outPath, Buffer.from(first.buffer, first.byteOffset,
                                        first.byteLength));
  console.log(Number(t1 - t0) / 1e6, Number(t2 - t1) / 1e6);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
