// The layers of docs/architecture.md hold in src/: every file imports only its
// own folder and the layers below it (type imports and import() included),
// never another folder of its own layer, and no file imports itself back
// through others. The table in the doc is the definition; this test reads it.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');

interface Layer {
  rank: number;
  /** Paths relative to src/: a folder ends in '/', `*` stands for one folder name. */
  patterns: string[];
}

/** The rows between the doc's layers markers: rank, what, then the paths as `code`. */
function layersOf(markdown: string): Layer[] {
  const table = /<!-- layers: top to bottom -->\n([\s\S]*?)<!-- \/layers -->/.exec(markdown);
  if (!table) throw new Error('docs/architecture.md has no layers table');
  return table[1]!.split('\n')
    .filter((line) => /^\| \d+ \|/.test(line))
    .map((line) => {
      const cells = line.split('|').map((cell) => cell.trim());
      return { rank: Number(cells[1]), patterns: [...cells[3]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!) };
    });
}

function matches(pattern: string, file: string): boolean {
  if (pattern.endsWith('/')) return file.startsWith(pattern);
  const expression = new RegExp(`^${pattern.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]+')}$`);
  return expression.test(file);
}

/** The layer of a file (relative to src/) and its unit: the folder (or root file) peers are told apart by. */
function placeOf(layers: Layer[], file: string): { rank: number; unit: string; entry: boolean } | undefined {
  // A file pattern (an entry point such as */cli.ts) wins over its folder's row.
  const byFile = layers.find((layer) => layer.patterns.some((pattern) => !pattern.endsWith('/') && matches(pattern, file)));
  const layer = byFile ?? layers.find((layer) => layer.patterns.some((pattern) => matches(pattern, file)));
  if (!layer) return undefined;
  return { rank: layer.rank, unit: file.includes('/') ? file.slice(0, file.indexOf('/')) : file, entry: layer.rank === 1 };
}

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [path.relative(SRC, full)] : [];
  });
}

/** Every file of src/ another file of src/ imports: static, type-only, re-exports and import(). */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(path.join(SRC, file), 'utf8'), true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => path.relative(SRC, path.resolve(SRC, path.dirname(file), name)))
    .filter((target) => !target.startsWith('..'));
}

function violations(layers: Layer[], graph: Map<string, string[]>): string[] {
  const problems: string[] = [];
  for (const [file, targets] of graph) {
    const from = placeOf(layers, file);
    if (!from) {
      problems.push(`${file}: in no layer of docs/architecture.md`);
      continue;
    }
    for (const target of targets) {
      const to = placeOf(layers, target);
      if (!to) continue; // reported as its own file
      if (to.rank < from.rank) problems.push(`${file} imports ${target}: layer ${from.rank} imports layer ${to.rank} above it`);
      else if (to.rank === from.rank && to.unit !== from.unit && !from.entry) problems.push(`${file} imports ${target}: ${from.unit} and ${to.unit} are peers in layer ${from.rank}`);
    }
  }
  return problems;
}

/** Each import cycle once, as the files around it (Tarjan's strongly connected components of more than one file, or a file importing itself). */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (file: string) => {
    indices.set(file, index);
    low.set(file, index);
    index += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!indices.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, indices.get(target)!));
    }
    if (low.get(file) === indices.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!indices.has(file)) connect(file);
  return found;
}

const layers = layersOf(fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8'));
const graph = new Map(sourceFiles(SRC).filter((file) => !file.startsWith('generated/')).map((file) => [file, importsOf(file)]));

describe('src/ and the layers of docs/architecture.md', () => {
  it('reads a table of layers from the doc', () => {
    expect(layers.map((layer) => layer.rank)).toEqual(layers.map((_, i) => i + 1));
    expect(layers.every((layer) => layer.patterns.length > 0)).toBe(true);
    expect(graph.size).toBeGreaterThan(100);
  });

  it('no file imports a layer above its own, or a peer of its layer', () => {
    expect(violations(layers, graph)).toEqual([]);
  });

  it('no import cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('the checks can fail: an upward import, a peer import, an unplaced file and a cycle are found', () => {
    const broken = new Map<string, string[]>([
      ['db/pool/pool.ts', ['catalog/reads/queries.ts']],
      ['graphql/schema.ts', ['rest/routes.ts']],
      ['nowhere/x.ts', []],
      ['etl/load/cli.ts', ['commands/run.ts']],
      ['rest/a.ts', ['rest/b.ts']],
      ['rest/b.ts', ['rest/a.ts']],
      ['catalog/reads/queries.ts', []],
      ['rest/routes.ts', []],
      ['commands/run.ts', []],
    ]);
    expect(violations(layers, broken)).toEqual([
      'db/pool/pool.ts imports catalog/reads/queries.ts: layer 14 imports layer 11 above it',
      'graphql/schema.ts imports rest/routes.ts: graphql and rest are peers in layer 4',
      'nowhere/x.ts: in no layer of docs/architecture.md',
    ]);
    expect(cycles(broken)).toEqual([['rest/a.ts', 'rest/b.ts']]);
  });
});
