// Module resolution hook (see register.mjs): 'fs' imported from the conformance suite → fs.mjs.
const fsWithGlobSync = new URL('./fs.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
    return { url: fsWithGlobSync, shortCircuit: true };
  }
  return next(specifier, context);
}
