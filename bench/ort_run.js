// Runs an ONNX model once in ONNX Runtime (npm onnxruntime-node) on one
// float32 input read from a raw little-endian file, and writes the first
// output as raw float32 (used by bench/onnx_export_vs_ort.py):
//   node ort_run.js ORT_MODULE_DIR MODEL.onnx INPUT_NAME SHAPE IN.bin OUT.bin
// Graph optimizations are off, so QuantizeLinear/DequantizeLinear run as
// written (no QLinear rewrites that round differently).
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
  const session = await ort.InferenceSession.create(
      model, {graphOptimizationLevel: 'disabled', intraOpNumThreads: 1});
  const out = await session.run(
      {[inputName]: new ort.Tensor('float32', data, shape)});
  const first = out[session.outputNames[0]];
  fs.writeFileSync(outPath, Buffer.from(first.data.buffer,
                                        first.data.byteOffset,
                                        first.data.byteLength));
})().catch((e) => {
  console.error(String(e));
  process.exit(1);
});
