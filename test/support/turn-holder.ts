// A writer that takes its turn (DATABASE_URL, or the embedded database in DATA_DIR), says "holding" and
// keeps it until killed: for tests of what a writer killed with its turn leaves behind.
import { loadConfig } from '../../src/config.js';
import { configuredTurn, takeTurn } from '../../src/db/write-turn.js';

const config = loadConfig();
await takeTurn(
  config,
  configuredTurn(config, 'ingest', (line) => process.stderr.write(`${line}\n`)),
);
process.stderr.write('holding\n');
setInterval(() => {}, 60_000);
