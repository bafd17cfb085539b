/**
 * `structqa serve`: the embedded default in one process — SQLite (or PostgreSQL with DATABASE_URL),
 * in-process limits (or Redis with REDIS_URL), the checkpoints — with JSON logs and a graceful stop.
 */
import pino from 'pino';
import { createGate } from '../accounts/gate.js';
import type { Config } from '../config.js';
import { loggerOptions } from '../http/redact.js';
import { adminRoutes } from '../http/routes/admin.js';
import { usageRoutes } from '../http/routes/usage.js';
import { startService } from '../server.js';
import { firstCallHint, localUrl } from './first-call.js';

export async function serve(config: Config): Promise<void> {
  const log = pino(loggerOptions(config.logLevel));
  const gate = await createGate(config, log);
  const service = await startService(config, {
    gate,
    loggerInstance: log,
    plugins: [
      (app) => usageRoutes(app, { gate }),
      (app) => adminRoutes(app, { gate, adminToken: config.accounts.adminToken }),
    ],
  });
  log.info({ url: service.url, dataDir: config.dataDir }, 'listening; loading checkpoints');
  const url = localUrl(config.host, Number(new URL(service.url).port));
  process.stderr.write(firstCallHint(url, config.accounts.firstKeyFile, config.accounts.defaultAccountName));

  const shutdown = (signal: string) => {
    log.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down: finishing in-flight calls');
    const force = setTimeout(() => {
      log.error('in-flight calls did not finish within the grace period; exiting');
      process.exit(1);
    }, config.shutdownGraceMs);
    force.unref();
    service.stop().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
