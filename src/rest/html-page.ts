// The service's server-rendered pages (the API reference, the calculation guide): one shape, and the
// Content-Security-Policy that lets their own <style> apply — by its hash — and nothing else inline.
import { createHash } from 'node:crypto';
import { policyWithStyles } from '../http/security.js';
import { FAVICON_SVG_PATH } from '../http/graphiql.js';

export interface HtmlPage {
  html: string;
  /** The page's Content-Security-Policy. */
  csp: string;
}

export const escapeHtml = (text: unknown) =>
  String(text ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const BASE_STYLE =
  `body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;padding:1rem 2rem;color:#1d232a}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #d8dde3;padding:.25rem ` +
  `.5rem;text-align:left;vertical-align:top}
th{background:#f2f4f7}code{background:#f2f4f7;padding:0 ` +
  `.2rem;border-radius:3px}pre{background:#f2f4f7;padding:.5rem;overflow:auto}
a{color:#0b5cad}`;

export function htmlPage({ title, style = '', body }: { title: string; style?: string; body: string }): HtmlPage {
  const css = `${BASE_STYLE}\n${style}`;
  const hash = createHash('sha256').update(css).digest('base64');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/svg+xml" href="${FAVICON_SVG_PATH}">
<style>${css}</style></head><body>
${body}
</body></html>`;
  return { html, csp: policyWithStyles(hash) };
}

/** A page as an answer. */
export const pageResponse = (page: HtmlPage) =>
  new Response(page.html, {
    headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': page.csp },
  });
