/**
 * The graph file the engine's sessions open: an optimised copy of the checkpoint's graph with its
 * weights as external data, made once per graph (and ONNX Runtime version) in a cache folder.
 *
 * Why: ONNX Runtime maps external data from the file instead of copying it, so every session of the
 * graph (each lane, the wide and the inline session) reads the same page-cache pages: one physical copy
 * of the weights per host, however many sessions. From a graph with inline weights, each session would
 * parse the protobuf (a second copy while it loads) and keep its own copy; from the bundled graphs
 * (fp16 and int8 weights), each would also fold its own fp32 copy. The copy is saved already optimised,
 * so those fp32 weights are in the file too. Linux counts a mapped page in RSS once per mapping, so RSS
 * still counts the weights once per session; PSS counts them once (docs/performance.md). An int8
 * embedding table is gathered before it is de-quantised in the copy (graph-rewrite.ts), so that no
 * session de-quantises the whole table into its arena on every run.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ort from 'onnxruntime-node';
import { gatherBeforeDequantize } from './graph-rewrite.js';

const OPTIMIZER = fileURLToPath(new URL('./optimize-graph.js', import.meta.url));

/**
 * The cached copy's path for this graph: keyed by the graph file's identity (device, inode, size, mtime:
 * a folder moved into place keeps its copy, a file written anew gets a new one) and the runtime's version.
 */
export function sessionGraphPath(modelPath: string, cacheDir: string): string {
  const stat = fs.statSync(modelPath);
  const key = createHash('sha256')
    .update(JSON.stringify([stat.dev, stat.ino, stat.size, stat.mtimeMs, ort.env.versions.common, 'extended', 'gather-before-dequantize']))
    .digest('hex')
    .slice(0, 16);
  return path.join(cacheDir, `${path.basename(modelPath, '.onnx')}-${key}`, 'model.onnx');
}

/**
 * The cached copy of `modelPath`, made first when missing (in a child process; seconds for the bundled
 * graphs, about a minute for a 1.6 GB one). Concurrent makers each write their own temporary folder and
 * the first rename wins.
 */
export async function sessionGraph(modelPath: string, cacheDir: string): Promise<string> {
  const target = sessionGraphPath(modelPath, cacheDir);
  if (fs.existsSync(target) && fs.existsSync(`${target}.data`)) return target;
  const folder = path.dirname(target);
  const tmp = `${folder}.tmp-${process.pid}-${Date.now()}`;
  fs.mkdirSync(tmp, { recursive: true });
  try {
    const copy = path.join(tmp, 'model.onnx');
    await runOptimizer(modelPath, copy);
    // int8 embedding tables: gathered before they are de-quantised, not de-quantised whole every run
    // (graph-rewrite.ts). The graph file holds no weights (they are in model.onnx.data): a small rewrite.
    const { bytes, rewritten } = gatherBeforeDequantize(fs.readFileSync(copy));
    if (rewritten.length > 0) fs.writeFileSync(copy, bytes);
    try {
      fs.renameSync(tmp, folder);
    } catch (error) {
      if (!fs.existsSync(target)) throw error; // another process made it meanwhile: use theirs
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return target;
}

function runOptimizer(input: string, output: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [OPTIMIZER, input, output], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`optimising ${input} for shared weights failed (${code}): ${stderr.trim()}`))));
  });
}
