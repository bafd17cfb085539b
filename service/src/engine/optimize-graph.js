// Child process of session-graph.ts: `node optimize-graph.js IN OUT`. Opens IN once with ONNX Runtime at
// the `extended` level (fusions and constant folding; nothing tied to this CPU, unlike `all`'s layout
// passes) and saves the optimised graph as OUT with every initializer over 1 KiB in OUT.data, where
// ONNX Runtime maps it from at load. Run in its own process so that this one-off session's memory (the
// whole graph, twice while protobuf is parsed) never counts in the server's peak.
import path from 'node:path';
import ort from 'onnxruntime-node';

const [input, output] = process.argv.slice(2);
await ort.InferenceSession.create(input, {
  executionProviders: ['cpu'],
  graphOptimizationLevel: 'extended',
  intraOpNumThreads: 1,
  optimizedModelFilePath: output,
  extra: {
    session: {
      disable_prepacking: '1',
      optimized_model_external_initializers_file_name: `${path.basename(output)}.data`,
      optimized_model_external_initializers_min_size_in_bytes: '1024',
    },
  },
});
