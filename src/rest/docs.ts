// GET /api/docs: the API reference as one HTML page, rendered on the server from the OpenAPI document.
// No scripts and no assets from elsewhere: it works behind any firewall and prints well.
import { ERRORS } from '../request/errors.js';
import { escapeHtml, htmlPage, type HtmlPage } from './html-page.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- it walks an OpenAPI document, JSON of any shape.
type Json = Record<string, any>;

function typeOf(schema: Json | undefined): string {
  if (!schema) return '';
  if (schema.$ref) return String(schema.$ref).split('/').pop()!;
  if (schema.oneOf) return (schema.oneOf as Json[]).map(typeOf).join(' | ');
  if (schema.allOf) return (schema.allOf as Json[]).map(typeOf).join(' & ');
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : schema.type;
  if (type === 'array') return `${typeOf(schema.items)}[] (comma-separated)`;
  return String(type ?? 'any');
}

function constraints(schema: Json): string {
  const s = schema.type === 'array' ? { ...schema.items, maxItems: schema.maxItems } : schema;
  const parts: string[] = [];
  if (s.enum) parts.push(`one of ${(s.enum as unknown[]).map((v) => `<code>${escapeHtml(v)}</code>`).join(', ')}`);
  if (s.minimum !== undefined) parts.push(`≥ ${s.minimum}`);
  if (s.exclusiveMinimum !== undefined) parts.push(`> ${s.exclusiveMinimum}`);
  if (s.maximum !== undefined) parts.push(`≤ ${s.maximum}`);
  if (s.maxLength !== undefined) parts.push(`at most ${s.maxLength} characters`);
  if (s.maxItems !== undefined) parts.push(`at most ${s.maxItems} values`);
  return parts.join(', ');
}

/** A response or a reference to a shared one. */
const resolve = (document: Json, r: Json): Json =>
  r.$ref ? document.components.responses[String(r.$ref).split('/').pop()!] : r;

function operation(document: Json, path: string, op: Json): string {
  const params = (op.parameters as Json[]) ?? [];
  const rows = params
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(p.name)}</code>${p.in === 'path' ? ' (path)' : ''}</td><td>` +
        `${escapeHtml(typeOf(p.schema))}</td>
        <td>${p.schema.default === undefined ? '' : `<code>${escapeHtml(p.schema.default)}</code>`}` +
        `</td><td>${constraints(p.schema)}</td><td>${escapeHtml(p.description)}</td></tr>`,
    )
    .join('\n');
  const responses = Object.entries(op.responses as Json)
    .map(([status, shared]) => {
      const r = resolve(document, shared as Json);
      const content = r.content
        ? Object.entries(r.content as Json)
            .map(([type, c]) => `${escapeHtml(type)} ${escapeHtml(typeOf((c as Json).schema))}`)
            .join(', ')
        : '';
      return `<li><b>${status}</b> ${escapeHtml(r.description)}${content ? ` — ${content}` : ''}</li>`;
    })
    .join('\n');
  const head =
    '<thead><tr><th>Parameter</th><th>Type</th><th>Default</th><th>Allowed</th><th>Meaning</th></tr></thead>';
  return `<section id="${escapeHtml(op.operationId)}">
  <h2><span class="method">GET</span> ${escapeHtml(path)}</h2>
  <p><b>${escapeHtml(op.summary)}.</b> ${escapeHtml(op.description)}</p>
  ${rows ? `<table>${head}<tbody>${rows}</tbody></table>` : '<p>No parameters.</p>'}
  <ul class="responses">${responses}</ul>
</section>`;
}

function schemaSection(name: string, schema: Json): string {
  const properties = Object.entries((schema.properties as Json) ?? {})
    .map(
      ([field, s]) =>
        `<tr><td><code>${escapeHtml(field)}</code></td><td>${escapeHtml(typeOf(s as Json))}` +
        `${(s as Json).enum ? ` (${constraints(s as Json)})` : ''}</td><td>` +
        `${escapeHtml((s as Json).description)}</td></tr>`,
    )
    .join('\n');
  return (
    `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>` +
    `${schema.description ? `<p>${escapeHtml(schema.description)}</p>` : ''}
  <table><thead><tr><th>Field</th><th>Type</th><th>Meaning</th></tr></thead><tbody>${properties}` +
    `</tbody></table></section>`
  );
}

export function renderDocs(document: Json): HtmlPage {
  const paths = Object.entries(document.paths as Json);
  const toc = paths
    .map(
      ([path, item]) =>
        `<li><a href="#${escapeHtml(item.get.operationId)}">GET ${escapeHtml(path)}</a> — ` +
        `${escapeHtml(item.get.summary)}</li>`,
    )
    .join('\n');
  const problems = Object.values(ERRORS)
    .map(
      (e) =>
        `<li id="problem-${e.slug}"><b>${e.status} ${escapeHtml(e.title)}</b> <code>/api/docs#problem-${e.slug}` +
        `</code></li>`,
    )
    .join('\n');
  const schemas = Object.entries(document.components.schemas as Json)
    .filter(([, s]) => (s as Json).properties)
    .map(([name, s]) => schemaSection(name, s as Json))
    .join('\n');
  return htmlPage({
    title: `${document.info.title} ${document.info.version}`,
    style:
      'body{max-width:1100px}h1{margin-bottom:0}h2{border-top:1px solid ' +
      '#d8dde3;padding-top:1rem}.method{background:#1f6f43;color:#fff;border-radius:4px;padding:0 ' +
      '.4rem;font-size:.8em}table{width:100%}.responses{margin-top:.25rem}',
    body:
      `<h1>${escapeHtml(document.info.title)}</h1><p>Version ${escapeHtml(document.info.version)} · <a ` +
      `href="/api/openapi.json">OpenAPI 3.1 document</a> · <a href="/graphql">GraphQL (GraphiQL)</a></p>
<p>${escapeHtml(document.info.description)}</p>
<h2>Endpoints</h2><ul>${toc}</ul>
${paths.map(([path, item]) => operation(document, path, item.get)).join('\n')}
<h2 id="terms">Terms of use</h2>
<p>${escapeHtml(document.info.license.name)}</p>
<h2 id="problems">Errors</h2>
<p>Errors are RFC 9457 <code>application/problem+json</code>: <code>{ type, title, status, detail, ` +
      `errors? }</code>, with <code>errors: [{ parameter, message }]</code> listing every bad parameter at ` +
      `once. Repeated parameters are rejected, empty ones count as absent, unknown ones are ignored.</p>
<ul>${problems}</ul>
<h2 id="schemas">Response types</h2>
${schemas}`,
  });
}
