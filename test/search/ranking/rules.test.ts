// The rules together (src/search/ranking/rules.ts, src/search/bucket-sort.ts):
// levels in the rules' order, each rule's reads real columns built by the
// SQL it names, and the levels a search reads are those its rules admit.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Parameters } from '../../../src/catalog/browse/browse-statements.ts';
import { levelsOf } from '../../../src/search/bucket-sort.ts';
import { classesOf, levelOf, RANK_LEVELS, RANKING_RULES, rankOf } from '../../../src/search/ranking/rules.ts';
import { oneWord, resolved } from './scope.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

describe('the ranking rules together', () => {
  it('number the levels as digits of the rules in order, the first rule most significant', () => {
    expect(RANK_LEVELS).toBe(RANKING_RULES.reduce((n, rule) => n * rule.classes.length, 1));
    for (let level = 0; level < RANK_LEVELS; level++) expect(levelOf(classesOf(level))).toBe(level);
    // Level 1: the first class of every rule but the last one that has two classes.
    const last = [...RANKING_RULES].reverse().find((rule) => rule.classes.length > 1)!;
    expect(classesOf(1)[last.name]).toBe(1);
    expect(rankOf(0)).toBe(1);
    expect(new Set(RANKING_RULES.map((r) => r.name)).size).toBe(RANKING_RULES.length);
  });

  it('each read a column of product_browse that the SQL they name builds', () => {
    const schema = fs.readFileSync(path.join(ROOT, 'prisma/schema.prisma'), 'utf8');
    const browse = /model ProductBrowse \{([\s\S]*?)\n\}/.exec(schema)![1]!;
    for (const rule of RANKING_RULES) {
      for (const read of rule.reads) {
        expect(browse, `${rule.name} reads ${read.column}`).toMatch(new RegExp(`\\b${read.column}\\b`));
        expect(fs.readFileSync(path.join(ROOT, read.builtBy), 'utf8'), `${rule.name}: ${read.builtBy}`).toMatch(new RegExp(rule.name === 'proximity' ? 'pair' : `\\b${read.column}\\b`));
      }
    }
  });

  it('read the levels their rules admit, in order, and from a cursor on', () => {
    const one = levelsOf(oneWord(), new Parameters(), []).map((l) => l.classes);
    // "forest" typed: the whole name, then the name and each wider tier as typed (one word: always adjacent),
    // each split by the tie-break's classes, if it has more than one.
    const split = RANKING_RULES.at(-1)!.classes.length;
    expect(one.filter((c) => c['tie-break'] === 0).map((c) => [c.attribute, c.exactness])).toEqual([[0, 0], [0, 1], [1, 1], [2, 1], [3, 1]]);
    expect(one).toHaveLength(5 * split);
    const two = levelsOf(resolved(), new Parameters(), []).map((l) => l.level);
    expect(two).toEqual([...two].sort((a, b) => a - b));
    expect(levelsOf(resolved(), new Parameters(), [], two[2]).map((l) => l.level)).toEqual(two.slice(2));
    const wholeName = levelsOf(oneWord(), new Parameters(), [])[0]!;
    expect(wholeName.wholeName).toBe('b.name_key = $2::text');
  });
});
