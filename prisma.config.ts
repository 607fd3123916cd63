import path from 'node:path';
import { defineConfig } from 'prisma/config';

// Must be set before the CLI checks for its engine: it then skips the download (there is no internet
// on our machines). Users who have the native engine can point this variable at it themselves.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.resolve('scripts/no-schema-engine.sh');

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/savings' },
});
