import ort from 'onnxruntime-node';
try { await ort.InferenceSession.create(process.argv[2], { executionProviders: ['cpu'] }); console.log('loads'); } catch (e) { console.log('fails', String(e).slice(0, 300)); }
