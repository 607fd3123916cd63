// Run first by src/main.ts: the process started gets its V8 flags (cluster/flags.ts) before the service
// is loaded, so that starting again in its place costs a Node start, not a second load of everything.
// A worker is forked with its flags, and a configuration that does not parse is left to server.ts to report.
import cluster from 'node:cluster';
import { memoryPlanOf } from '../memory.js';
import { ownFlags, restartWith, startInputs } from './flags.js';

if (cluster.isPrimary) {
  const inputs = await startInputs();
  if (inputs) restartWith(ownFlags(inputs, memoryPlanOf(inputs), process.execArgv));
}
