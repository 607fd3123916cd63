// `npm start`: the build check and the service in one process (a prestart script would cost a second
// Node start, and npm's shell around it, on every restart), then the service as bundled by the build
// (scripts/bundle.mjs).
import { buildIfStale } from './build-if-stale.mjs';

buildIfStale();
await import('../dist/bundle/main.js');
