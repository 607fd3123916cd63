// Case- and accent-folding for search and for ordering names: "Sparkasse Münster" is found by
// "munster", "MÜNSTER" and "münster" alike. Locale-independent (toLowerCase is Unicode's default case
// mapping, unlike toLocaleLowerCase), so every server matches and sorts the same way.
export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}
