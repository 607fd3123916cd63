// The service's entry point. graphql-js checks every type with a slow cross-realm instanceof unless
// NODE_ENV is production when it is first loaded, so that is settled before anything else is imported.
// A process that lacks its V8 flags starts again with them before loading the service (cluster/flags.ts).
import module from 'node:module';

process.env.NODE_ENV ??= 'production';
// Node keeps the code it compiles for each module (in the system's temporary folder): a restart loads
// the service without compiling it again.
module.enableCompileCache?.();
await import('./cluster/start-flags.js');
// The embedded database starts on its own thread while the service loads (open-early.ts).
await (await import('./open-early.js')).openEarly();
// A first start seeds the sample and starts again in place before the service is loaded (first-start.ts).
await (await import('./first-start.js')).seedFirst();
await import('./server.js');
