// npm run db:migrate            apply pending migrations to the configured database
// npm run db:migration -- NAME  write a new migration from changes to prisma/schema.prisma
// node dist/db/migrate-cli.js template   (the build) pack a migrated, empty embedded database
import { loadConfig } from '../config.js';
import { openEmbedded, TEMPLATE, writeTemplate } from './embedded.js';
import { applyMigrations, createMigration, migrationsDigest } from './migrate.js';
import { configuredTurn, withTurn } from './write-turn.js';

async function main(argv: string[]): Promise<number> {
  const [command, name] = argv;
  if (command === 'create') {
    if (!name || !/^[a-z0-9_]+$/.test(name)) {
      console.error('usage: npm run db:migration -- <name in snake_case>');
      return 2;
    }
    const created = await createMigration(name);
    console.log(created ? `created prisma/migrations/${created}` : 'the schema has not changed: no migration written');
    return 0;
  }
  if (command === 'deploy') {
    const config = loadConfig();
    const applied = await withTurn(config, configuredTurn(config, 'migration', console.error), async () => {
      const embedded = config.databaseUrl
        ? undefined
        : await openEmbedded(config.dataDir, { log: (m) => console.error(m) });
      try {
        return await applyMigrations(config.databaseUrl ?? embedded!.url);
      } finally {
        await embedded?.close();
      }
    });
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'the database is up to date');
    return 0;
  }
  if (command === 'template') {
    const applied = await writeTemplate(applyMigrations, TEMPLATE, await migrationsDigest());
    console.log(`wrote ${TEMPLATE}: a new database with ${applied.length} migrations applied`);
    return 0;
  }
  console.error('usage: migrate-cli deploy | create <name> | template');
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(err.message);
    process.exit(1);
  },
);
