// npm run schema: writes schema.graphql, the printed schema (a test fails when it drifts from the code).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { schema } from './schema/index.js';

export const SCHEMA_FILE = fileURLToPath(new URL('../../schema.graphql', import.meta.url));

export function printedSchema(): string {
  return `${printSchema(schema)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMA_FILE, printedSchema());
  console.log(`wrote ${SCHEMA_FILE}`);
}
