// Headers that keep browsers safe with whatever the service answers: no guessing of content types
// (nosniff), no URL (with a saver's amount in it) sent on to the sites a page links to, and, for every
// HTML page, a Content-Security-Policy that lets it load nothing but this origin's own files — no inline
// script or style, no other host, no framing. A page that needs a looser policy says so itself
// (GraphiQL: inline styles and embedded fonts of its editor) and keeps its own.
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The policy an HTML answer is served with: its own if it has one, else PAGE_CSP. */
export function pagePolicy(contentType: string | null | undefined, own: string | null | undefined): string | null {
  if (!contentType?.startsWith('text/html')) return null;
  return own ?? PAGE_CSP;
}

/** PAGE_CSP with inline styles allowed by their hashes (server-rendered pages with a <style> of their own). */
export const policyWithStyles = (...sha256: string[]) =>
  PAGE_CSP.replace("style-src 'self'", `style-src 'self' ${sha256.map((h) => `'sha256-${h}'`).join(' ')}`);
