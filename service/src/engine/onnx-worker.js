// ONNX Runtime on a worker thread. onnxruntime-node's `session.run` holds the calling thread for the
// whole run, so it runs here and the main thread keeps accepting, tokenizing and queueing meanwhile.
// Protocol: workerData {modelPath, options}; → {type:'ready'} | {type:'error', message};
// ← {id, feeds: {name: {type, data, dims}}}; → {id, logits, dims, modelMs} | {id, error}.
import { parentPort, workerData } from 'node:worker_threads';
import ort from 'onnxruntime-node';

let session;
try {
  session = await ort.InferenceSession.create(workerData.modelPath, workerData.options);
  parentPort.postMessage({ type: 'ready' });
} catch (error) {
  parentPort.postMessage({ type: 'error', message: String(error?.message ?? error) });
}

parentPort.on('message', async (message) => {
  if (message.type === 'close') {
    await session?.release();
    parentPort.close();
    return;
  }
  const { id, feeds } = message;
  try {
    const tensors = {};
    for (const [name, f] of Object.entries(feeds)) tensors[name] = new ort.Tensor(f.type, f.data, f.dims);
    const started = performance.now();
    const out = await session.run(tensors, ['logits']);
    const modelMs = performance.now() - started;
    const logits = out.logits.data;
    parentPort.postMessage({ id, logits, dims: out.logits.dims, modelMs }, [logits.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: String(error?.message ?? error) });
  }
});
