// Migrations through Prisma's own schema engine, compiled to WASM: the native engine cannot be
// downloaded on our machines. It reads prisma/migrations and writes _prisma_migrations exactly as
// `prisma migrate deploy` does, so users with the native CLI can keep using it on the same database.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { openInMemory } from './embedded.js';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
export const SCHEMA_PATH = path.join(projectRoot, 'prisma', 'schema.prisma');
export const MIGRATIONS_DIR = path.join(projectRoot, 'prisma', 'migrations');

type Engine = Awaited<ReturnType<typeof import('@prisma/schema-engine-wasm/schema_engine_bg').SchemaEngine.new>>;
type EngineModule = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');

let engineModule: Promise<EngineModule> | undefined;
let lastPanic: string | undefined;

/** The package's entry imports the .wasm as a module (bundler style); Node needs it instantiated by hand. */
function loadEngineModule(): Promise<EngineModule> {
  engineModule ??= (async () => {
    (globalThis as Record<string, unknown>).PRISMA_WASM_PANIC_REGISTRY = {
      set_message(message: string) {
        lastPanic = message;
      },
    };
    const bgUrl = import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const bg = await import('@prisma/schema-engine-wasm/schema_engine_bg');
    const bytes = await readFile(new URL('./schema_engine_bg.wasm', bgUrl));
    const { instance } = await WebAssembly.instantiate(bytes, {
      './schema_engine_bg.js': bg as unknown as WebAssembly.ModuleImports,
    });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bg;
  })();
  return engineModule;
}

// The engine reads pg_catalog columns of type "char" (OID 18), which adapter-pg does not map; it
// expects Prisma's Character column type (6) for them.
const CHAR_OID = 18;
const TEXT_OID = 25;
const CHARACTER_COLUMN = 6;
const charColumns = new WeakMap<object, number[]>();

interface Queryable {
  performIO(query: unknown): Promise<{ fields: { dataTypeID: number }[]; rows: object }>;
  queryRaw(query: unknown): Promise<{ columnTypes: number[]; rows: object }>;
  startTransaction?(...args: unknown[]): Promise<Queryable>;
}

function mapCharColumns<T>(adapter: T): T {
  const q = adapter as unknown as Queryable;
  const performIO = q.performIO.bind(q);
  q.performIO = async (query) => {
    const result = await performIO(query);
    const indices: number[] = [];
    result.fields.forEach((field, i) => {
      if (field.dataTypeID === CHAR_OID) {
        field.dataTypeID = TEXT_OID;
        indices.push(i);
      }
    });
    if (indices.length > 0) charColumns.set(result.rows, indices);
    return result;
  };
  const queryRaw = q.queryRaw.bind(q);
  q.queryRaw = async (query) => {
    const result = await queryRaw(query);
    for (const i of charColumns.get(result.rows) ?? []) result.columnTypes[i] = CHARACTER_COLUMN;
    return result;
  };
  if (q.startTransaction) {
    const start = q.startTransaction.bind(q);
    q.startTransaction = async (...args) => mapCharColumns(await start(...args));
  }
  return adapter;
}

// The engine never closes the connections it opens; left open, they keep holding its session-level
// advisory lock, and the next migration on PostgreSQL waits ten seconds for it. We close them.
function adapterFactory(
  url: string,
  opened: { dispose(): Promise<void> }[],
  shadowUrl?: () => Promise<{ url: string; close(): Promise<void> }>,
) {
  const factory = new PrismaPg({ connectionString: url, max: 2 });
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = mapCharColumns(await connect());
    opened.push(adapter);
    return adapter;
  };
  factory.connectToShadowDb = async () => {
    if (!shadowUrl) throw new Error('no shadow database for this operation');
    const shadow = await shadowUrl();
    const adapter = mapCharColumns(await new PrismaPg({ connectionString: shadow.url, max: 2 }).connect());
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      await dispose();
      await shadow.close();
    };
    return adapter;
  };
  return bindMigrationAwareSqlAdapterFactory(factory);
}

async function withEngine<T>(
  url: string,
  fn: (engine: Engine) => Promise<T>,
  shadow?: () => Promise<{ url: string; close(): Promise<void> }>,
): Promise<T> {
  const bg = await loadEngineModule();
  const schema = await readFile(SCHEMA_PATH, 'utf8');
  lastPanic = undefined;
  const opened: { dispose(): Promise<void> }[] = [];
  const engine = await bg.SchemaEngine.new(
    { datamodels: [[SCHEMA_PATH, schema]] },
    () => {},
    adapterFactory(url, opened, shadow),
  );
  try {
    return await fn(engine);
  } catch (err) {
    throw new Error(`schema engine: ${lastPanic ?? (err as Error).message}`, { cause: err });
  } finally {
    engine.free();
    await Promise.all(opened.map((a) => a.dispose().catch(() => {})));
  }
}

async function migrationsList() {
  await mkdir(MIGRATIONS_DIR, { recursive: true });
  const entries = await readdir(MIGRATIONS_DIR, { withFileTypes: true });
  const dirs = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const lockfile = await readFile(path.join(MIGRATIONS_DIR, 'migration_lock.toml'), 'utf8').catch(() => null);
  return {
    baseDir: MIGRATIONS_DIR,
    lockfile: { path: 'migration_lock.toml', content: lockfile },
    shadowDbInitScript: '',
    migrationDirectories: await Promise.all(
      dirs.map(async (dir) => {
        const file = path.join(MIGRATIONS_DIR, dir, 'migration.sql');
        const content = await readFile(file, 'utf8').then(
          (value) => ({ tag: 'ok' as const, value }),
          (err: Error) => ({ tag: 'error' as const, value: err.message }),
        );
        return { path: dir, migrationFile: { path: 'migration.sql', content } };
      }),
    ),
  };
}

const NO_FILTERS = { externalTables: [], externalEnums: [] };

/**
 * Whether every migration folder is recorded as applied: one query instead of loading the engine
 * (≈1 s), on every start of an up-to-date service.
 */
export async function isUpToDate(url: string): Promise<boolean> {
  const dirs = (await migrationsList()).migrationDirectories.map((d) => d.path);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ migration_name: string }>(
      `SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Set(rows.map((r) => r.migration_name));
    return dirs.every((d) => applied.has(d));
  } catch {
    return false; // no _prisma_migrations yet: a new database
  } finally {
    await client.end();
  }
}

/** Names the migrations there are, by their folders and contents: a template's (embedded.ts) is checked against it. */
export async function migrationsDigest(): Promise<string> {
  const list = await migrationsList();
  return createHash('sha256').update(JSON.stringify(list.migrationDirectories)).digest('hex');
}

/** `prisma migrate deploy`: applies every pending migration; returns their names. */
export async function applyMigrations(url: string): Promise<string[]> {
  const list = await migrationsList();
  return withEngine(url, async (engine) => {
    const out = await engine.applyMigrations({ migrationsList: list, filters: NO_FILTERS });
    return out.appliedMigrationNames;
  });
}

/**
 * `prisma migrate dev --create-only`: diffs the committed migrations against prisma/schema.prisma on a
 * scratch in-memory database and writes the difference as a new migration folder. Returns its name,
 * or null when the schema has not changed.
 */
export async function createMigration(name: string): Promise<string | null> {
  const scratch = await openInMemory();
  try {
    const list = await migrationsList();
    const schema = await readFile(SCHEMA_PATH, 'utf8');
    return await withEngine(
      scratch.url,
      async (engine) => {
        await engine.applyMigrations({ migrationsList: list, filters: NO_FILTERS });
        await engine.devDiagnostic({ migrationsList: list, filters: NO_FILTERS });
        const out = await engine.createMigration({
          draft: false,
          migrationName: name,
          migrationsList: list,
          schema: { files: [{ path: SCHEMA_PATH, content: schema }] },
          filters: NO_FILTERS,
        });
        if (!out.generatedMigrationName || !out.migrationScript) return null;
        const dir = path.join(MIGRATIONS_DIR, out.generatedMigrationName);
        await mkdir(dir, { recursive: true });
        await writeFile(path.join(dir, 'migration.sql'), out.migrationScript);
        await writeFile(
          path.join(MIGRATIONS_DIR, 'migration_lock.toml'),
          '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., ' +
            'Git)\nprovider = "postgresql"\n',
        );
        return out.generatedMigrationName;
      },
      openInMemory,
    );
  } finally {
    await scratch.close();
  }
}
