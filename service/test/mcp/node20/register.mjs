// Loaded with `node --import` before the MCP conformance suite (@modelcontextprotocol/conformance
// 0.1.16), only on Node older than 22: the suite's one bundle imports fs.globSync (Node 22) at load
// time, for its `tier-check` command alone, so on Node 20 it would not start at all. The hook gives its
// bundle an fs with globSync added (fs.mjs); the `server` command that npm test runs never calls it.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
