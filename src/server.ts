// Starts the service: configuration, database (migrated), sample data on first start, then listen.
import http from 'node:http';
import { createApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase } from './db/client.js';
import { formatSummary } from './ingest/run.js';
import { createLogger } from './logger.js';
import { seedSampleIfEmpty } from './sample/seed.js';

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}

async function main() {
  const started = Date.now();
  const config = configOrExit();
  const logger = createLogger(config.logLevel);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, log: (msg) => logger.info(msg) });
  logger.info({ database: db.kind, dataDir: db.kind === 'embedded' ? config.dataDir : undefined }, 'database ready');

  if (config.seedSample) {
    const end = new Date().toISOString().slice(0, 10);
    const seeded = await seedSampleIfEmpty(db.prisma, { seed: config.sampleSeed, days: config.sampleDays, end, scale: 1 }, true);
    if (seeded) logger.info({ summary: seeded }, `loaded the sample market:\n${formatSummary(seeded)}`);
  }

  const app = await createApp({ config, db, logger });
  const server = http.createServer(app.listener);
  server.listen(config.port, config.host, () => {
    logger.info({ port: config.port, host: config.host, startupMs: Date.now() - started }, `listening on http://${config.host}:${config.port}`);
  });

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    server.close(() => {
      app
        .close()
        .then(() => db.close())
        .then(
          () => process.exit(0),
          () => process.exit(1),
        );
    });
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: Error) => {
  console.error(`failed to start: ${err.message}`);
  process.exit(1);
});
