// Lists every line over MAX characters in the project's own source files (those git tracks, generated code
// excepted) as file:line:length, and exits 1 if there is any. Part of `npm run lint`. Plain Node, no dependency.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX = 120;
const PATTERNS = ['src/*.ts', 'src/*.tsx', 'src/*.css', 'bench/*.ts', 'test/*.ts', 'scripts/*.ts'];
const GENERATED = ['src/db/generated/', 'src/web/gql/', 'test/typed-client/generated/'];
// Files with long lines that are left as they are for now. Empty it as they are fixed.
const EXCEPTIONS = [];

const files = execFileSync('git', ['ls-files', '-z', '--', ...PATTERNS], { encoding: 'utf8' })
  .split('\0')
  .filter((f) => f && !GENERATED.some((dir) => f.startsWith(dir)) && !EXCEPTIONS.includes(f));

let count = 0;
for (const file of files) {
  const lines = readFileSync(file, 'utf8').split(/\r?\n/);
  lines.forEach((line, i) => {
    // Characters, not UTF-16 units or bytes: what Prettier's printWidth counts too.
    const length = [...line].length;
    if (length > MAX) {
      console.log(`${file}:${i + 1}:${length}`);
      count++;
    }
  });
}
if (count > 0) {
  console.error(`${count} line(s) longer than ${MAX} characters`);
  process.exit(1);
}
