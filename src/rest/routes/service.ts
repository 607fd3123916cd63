// The service's own routes: operational metrics and the description of the API (machine- and
// human-readable). None of them runs a GraphQL operation.
import { CACHE_CONTROL } from '../../http/layer.js';
import { CALCULATION_PATH } from '../calculation-page.js';
import { pageResponse, type HtmlPage } from '../html-page.js';
import { DATA, json, type RestRoute } from '../route.js';

export interface ServiceInfo {
  openApi(): string;
  docs(): HtmlPage;
  calculation(): HtmlPage;
}

export function serviceRoutes(info: ServiceInfo): RestRoute[] {
  return [
    {
      path: '/api/metrics',
      exemptFromRateLimit: true,
      operationId: 'getMetrics',
      tag: 'Service',
      summary: 'Operational metrics',
      description:
        'Not part of the published specification: memory of the process and the size, limits and hit counts of ' +
        'its caches (finished answers, calculations). Never cached.',
      params: [],
      cache: { control: CACHE_CONTROL.none, reuse: 'never' },
      body: { metrics: true },
      readsDatabase: false,
      handle: async ({ context }) =>
        json(await (await context()).services.figures(), { headers: { 'cache-control': CACHE_CONTROL.none } }),
    },
    {
      path: '/api/openapi.json',
      operationId: 'getOpenApi',
      tag: 'Service',
      summary: 'This description (OpenAPI 3.1)',
      description: 'The machine-readable description of the API.',
      params: [],
      cache: DATA,
      body: { openapi: true },
      readsDatabase: false,
      handle: () => new Response(info.openApi(), { headers: { 'content-type': 'application/json; charset=utf-8' } }),
    },
    {
      path: '/api/docs',
      operationId: 'getApiReference',
      tag: 'Service',
      summary: 'Human-readable reference',
      description: 'This API reference, rendered from the OpenAPI document.',
      params: [],
      cache: DATA,
      body: { html: 'the API reference' },
      readsDatabase: false,
      handle: () => pageResponse(info.docs()),
    },
    {
      path: CALCULATION_PATH,
      operationId: 'getCalculationGuide',
      tag: 'Service',
      summary: 'How an offer is calculated',
      description:
        'The calculation (contract §2) explained in plain words, with worked examples to redo with a calculator.',
      params: [],
      cache: DATA,
      body: { html: 'the calculation guide' },
      readsDatabase: false,
      handle: () => pageResponse(info.calculation()),
    },
  ];
}
