// The documentation holds: every relative link in README.md and docs/ points
// at a file (and, with #anchor, a heading) that exists, and every `npm run`
// command it names is a script in package.json; and it reads as a reference,
// not a diary: no dated "passes", no "(2026-11-25)" dates, no "this morning".
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const SCRIPTS = new Set(Object.keys((JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

function headings(file: string): Set<string> {
  const text = fs.readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchor(match[1]!)));
}

/** Lines of a journal: a numbered pass, a date in brackets or a time of day. Timestamps inside code blocks are data. */
function journalLines(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '');
  return prose.split('\n').filter((line) =>
    /\b(first|second|third|fourth|fifth|sixth|seventh|eighth) pass\b|\((19|20)\d\d-\d\d-\d\d|\b(19|20)\d\d-\d\d-\d\d\b(?!T)|\b(this|that) (morning|afternoon|evening)\b|\b(on|last) (Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b|\blater the same day\b/i.test(line),
  );
}

describe.each(DOCS)('%s', (doc) => {
  const file = path.join(ROOT, doc);
  const text = fs.readFileSync(file, 'utf8');
  const prose = text.replace(/```[\s\S]*?```/g, (block) => block.replace(/\]\(/g, '] ('));

  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue;
      const [relative, hash] = target!.split('#') as [string, string | undefined];
      const resolved = relative === '' ? file : path.resolve(path.dirname(file), relative);
      if (!fs.existsSync(resolved)) broken.push(`${target}: no such file`);
      else if (hash && resolved.endsWith('.md') && !headings(resolved).has(hash)) broken.push(`${target}: no such heading`);
    }
    expect(broken).toEqual([]);
  });

  it('says what is true now, without dated passes or days', () => {
    expect(journalLines(text)).toEqual([]);
  });

  it('names only npm scripts that package.json has', () => {
    const named = [...text.matchAll(/npm run(?: -s)? ([\w:-]*[\w-])/g)].map((match) => match[1]!);
    expect(named.filter((script) => !SCRIPTS.has(script))).toEqual([]);
  });
});

it('a broken link or an unknown script is caught (the checks above can fail)', () => {
  expect(fs.existsSync(path.resolve(ROOT, 'docs/no-such-page.md'))).toBe(false);
  expect(SCRIPTS.has('no-such-script')).toBe(false);
  expect(anchor('HTTP caching: browsers and CDNs')).toBe('http-caching-browsers-and-cdns');
  expect(journalLines('Sixth pass (2026-11-25): faster.\nMeasured this evening.\n```\n"at": "2026-11-24T02:00:00Z"\n```\nNow: 2x.')).toEqual([
    'Sixth pass (2026-11-25): faster.',
    'Measured this evening.',
  ]);
});
