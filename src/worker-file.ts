// Worker threads of the service's own code (the embedded database's, the application's): under tsx or
// vitest their modules are TypeScript, which a worker loads only through tsx's loader; built, they are
// tsc's or the bundle's JavaScript beside the module that starts them.
import { Worker } from 'node:worker_threads';

/** The module at `relative` (no extension) from the caller's `base` (its import.meta.url), as the caller is written. */
export const siblingModule = (base: string, relative: string): URL =>
  new URL(`${relative}${base.endsWith('.ts') ? '.ts' : '.js'}`, base);

/** A worker thread running `module` with `workerData`. */
export function startWorker(module: URL, workerData: unknown): Worker {
  return module.pathname.endsWith('.ts')
    ? new Worker(
        `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(module.href)}); })`,
        { eval: true, workerData },
      )
    : new Worker(module, { workerData });
}
