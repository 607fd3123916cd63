// Case- and accent-insensitive text matching for `zoek` and `brand`: "Sparkasse Münster" is found by
// "munster", "MÜNSTER" and "münster" alike. Locale-independent, so every server matches the same way.
export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}
