// The service's entry point. graphql-js checks every type with a slow cross-realm instanceof unless
// NODE_ENV is production when it is first loaded, so that is settled before anything else is imported.
process.env.NODE_ENV ??= 'production';
await import('./server.js');
