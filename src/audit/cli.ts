// npm run verify -- URL [--samples N] [--seed S]
// Checks a running service from the outside (docs/ledger.md): the ledger's chain, every data version's
// state against its hash, and N past rankings recomputed from those states with this calculation and
// compared with the service's asOf answers. Prints what disagrees.
//
// Exit codes: 0 everything agrees · 1 something disagrees (listed) · 2 usage · 3 the service could not be read
import { pathToFileURL } from 'node:url';
import { verify } from './verify.js';

export async function main(argv: string[], out = console.log, err = console.error): Promise<number> {
  let base: string | undefined;
  let samples = 200;
  let seed = 1;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--samples' || arg === '--seed') {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < 0) {
        err(`${arg} takes a whole number`);
        return 2;
      }
      if (arg === '--samples') samples = value;
      else seed = value;
    } else if (!base && /^https?:\/\//.test(arg)) base = arg;
    else {
      err('usage: npm run verify -- URL [--samples N] [--seed S]   (URL e.g. http://127.0.0.1:3000)');
      return 2;
    }
  }
  if (!base) {
    err('usage: npm run verify -- URL [--samples N] [--seed S]   (URL e.g. http://127.0.0.1:3000)');
    return 2;
  }
  const started = performance.now();
  try {
    const report = await verify({ base, samples, seed, log: out });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    for (const f of report.findings)
      out(`DISAGREES${f.version === undefined ? '' : ` at version ${f.version}`}: ${f.detail}`);
    out(
      report.findings.length === 0
        ? `verified in ${seconds} s: ${report.versions} versions chained, ${report.states} states hashed, ` +
            `${report.rankings} rankings recomputed; everything agrees`
        : `${report.findings.length} disagreement${report.findings.length === 1 ? '' : 's'} (${seconds} s)`,
    );
    return report.findings.length === 0 ? 0 : 1;
  } catch (e) {
    err(`could not read the service at ${base}: ${e instanceof Error ? e.message : String(e)}`);
    return 3;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
