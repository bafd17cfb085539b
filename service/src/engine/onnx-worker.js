// ONNX Runtime on a worker thread. onnxruntime-node's `session.run` holds the calling thread for the
// whole run, so it runs here and the main thread keeps accepting, tokenizing and queueing meanwhile.
// Protocol: workerData {modelPath, options, wideOptions?}; → {type:'ready'} | {type:'error', message};
// ← {id, feeds: {name: {type, data, dims}}, wide?}; → {id, logits, dims, modelMs} | {id, error}.
// With wideOptions, a second session (over all the threads) runs the batches sent with `wide`.
import { parentPort, workerData } from 'node:worker_threads';
import ort from 'onnxruntime-node';

let session;
let wideSession;
try {
  session = await ort.InferenceSession.create(workerData.modelPath, workerData.options);
  if (workerData.wideOptions) wideSession = await ort.InferenceSession.create(workerData.modelPath, workerData.wideOptions);
  parentPort.postMessage({ type: 'ready' });
} catch (error) {
  parentPort.postMessage({ type: 'error', message: String(error?.message ?? error) });
}

parentPort.on('message', async (message) => {
  if (message.type === 'close') {
    await session?.release();
    await wideSession?.release();
    parentPort.close();
    return;
  }
  const { id, feeds, wide } = message;
  try {
    const tensors = {};
    for (const [name, f] of Object.entries(feeds)) tensors[name] = new ort.Tensor(f.type, f.data, f.dims);
    const started = performance.now();
    const out = await (wide && wideSession ? wideSession : session).run(tensors, ['logits']);
    const modelMs = performance.now() - started;
    const logits = out.logits.data;
    parentPort.postMessage({ id, logits, dims: out.logits.dims, modelMs }, [logits.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: String(error?.message ?? error) });
  }
});
