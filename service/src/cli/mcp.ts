/**
 * `structqa mcp [--url URL]`: an MCP server on stdio that forwards every tool call to a running
 * structqa service (mcp/bridge.ts), for desktop assistants that start MCP servers as child processes.
 * The service root: --url, else SERVICE_BASE_URL; the key: SERVICE_API_KEY (both as the clients read
 * them). Bad input: one line on stderr, exit status 2. stdout carries only the protocol.
 */
import type { Command } from 'commander';
import type { Config } from '../config.js';

/** `--name` as a positive integer, or a one-line error. */
function positive(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new BadInput(`${flag} must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

class BadInput extends Error {}

export function registerMcpCommand(program: Command, config: Config): void {
  program
    .command('mcp')
    .description('Serve the MCP tools (system_one, list_models, usage) on stdio, forwarding to a running service (docs/mcp.md).')
    .option('--url <url>', 'the service root, e.g. https://structqa.example.com (default: SERVICE_BASE_URL)')
    .option('--timeout-ms <ms>', 'timeout of one HTTP attempt (default 10000)')
    .option('--max-retries <n>', 'retries of a call after 429/529/5xx/connection errors (default 2)')
    .option('--deadline-ms <ms>', 'overall budget of one tool call, retries included (default: none)')
    .action(async (flags: { url?: string; timeoutMs?: string; maxRetries?: string; deadlineMs?: string }) => {
      // Loaded here: the other commands (serve above all) need none of the client library.
      const { runBridge } = await import('../mcp/bridge.js');
      const { StructqaError } = await import('../../../clients/typescript/src/index.js');
      try {
        if (flags.url !== undefined && !/^https?:\/\/[^/]/.test(flags.url)) throw new BadInput(`--url must be an http(s) URL, got ${JSON.stringify(flags.url)}`);
        const maxRetries = flags.maxRetries === undefined ? undefined : Number(flags.maxRetries);
        if (maxRetries !== undefined && !(Number.isSafeInteger(maxRetries) && maxRetries >= 0)) {
          throw new BadInput(`--max-retries must be a non-negative integer, got ${JSON.stringify(flags.maxRetries)}`);
        }
        await runBridge({
          baseURL: flags.url,
          timeoutMs: positive('--timeout-ms', flags.timeoutMs),
          maxRetries,
          deadlineMs: positive('--deadline-ms', flags.deadlineMs),
          maxQuestions: config.engine.maxQuestions,
          log: (line) => process.stderr.write(line + '\n'),
        });
      } catch (error) {
        // A missing URL or key is the client library's StructqaError, thrown before anything is served.
        if (!(error instanceof BadInput || error instanceof StructqaError)) throw error;
        process.stderr.write(`structqa mcp: ${error.message}\n`);
        process.exitCode = 2;
      }
    });
}
