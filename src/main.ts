// The service's entry point. graphql-js checks every type with a slow cross-realm instanceof unless
// NODE_ENV is production when it is first loaded, so that is settled before anything else is imported.
// A process that lacks its V8 flags starts again with them before loading the service (cluster/flags.ts).
process.env.NODE_ENV ??= 'production';
await import('./cluster/start-flags.js');
// A first start seeds the sample and starts again in place before the service is loaded (first-start.ts).
await (await import('./first-start.js')).seedFirst();
await import('./server.js');
