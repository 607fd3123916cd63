// The documentation points only at what a clone holds or the service serves: a link to a file outside the
// repository, or to a heading that was renamed, is a dead end for the reader.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const markdown = execFileSync('git', ['ls-files', '*.md'], { encoding: 'utf8' }).split('\n').filter(Boolean);

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
const anchors = (file: string) =>
  new Set([...readFileSync(file, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!.replace(/`/g, ''))));

describe('documentation links', () => {
  it('finds the markdown files', () => {
    expect(markdown).toContain('README.md');
  });

  it.each(markdown)('%s links only to files and headings of the repository', (file) => {
    const text = readFileSync(file, 'utf8');
    const dead: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue; // an absolute URL
      const [where, anchor] = target!.split('#') as [string, string | undefined];
      const resolved = where ? path.normalize(path.join(path.dirname(file), where)) : file;
      if (resolved.startsWith('..') || !existsSync(resolved)) dead.push(`${target} (no file ${resolved})`);
      else if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor))
        dead.push(`${target} (no heading)`);
    }
    // Paths named in code spans count too: `../shared/…` is not in a clone.
    for (const [, named] of text.matchAll(/`(\.\.\/[^`]+)`/g)) dead.push(`${named} (outside the repository)`);
    expect(dead).toEqual([]);
  });
});
