// Counts the tests' fixed sleeps and upper-bound time assertions (issue 48,
// item 5): `node scripts/timing-inventory.ts [--list]`.
//
// A fixed sleep: an awaited timer, inline (`await new Promise((r) =>
// setTimeout(r, 50))`, `await wait(50)`) or through a file's own helper
// (`const settle = () => new Promise((r) => setTimeout(r, 50))`, then
// `await settle()`), outside a polling loop. A timer inside a `for`/`while`
// loop whose condition is the awaited state is a poll, counted apart; a timer
// that rejects or kills is a failure bound, not counted. test/support/wait.ts
// is the one place a poll's pause belongs.
//
// An upper-bound time assertion: `expect(…).toBeLessThan[OrEqual](…)` whose
// line speaks of time (ms, took, elapsed, p50/p99, seconds, a clock).
import fs from 'node:fs';
import path from 'node:path';

const root = path.join(import.meta.dirname, '..', 'test');

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? files(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

const INLINE_SLEEP = /await\s+new Promise(<[^>]*>)?\(\s*\(?\s*(r|resolve)\s*\)?\s*=>\s*(setTimeout|clock\.setTimeout)\(\s*(r|resolve)\s*,/;
const HELPER_DEFINITION = /(?:const|let)\s+(\w+)\s*=\s*\([^)]*\)\s*(?::[^=]+)?=>\s*new Promise[^;]*setTimeout\(\s*(r|resolve)\s*,/;
const FUNCTION_DEFINITION = /function\s+(\w+)\s*\([^)]*\)[^{]*\{\s*$/;
const TIME_WORDS = /\b(ms|\w+Ms|\w+_MS|\w+After|\w+At|took|elapsed|seconds|after|p50|p95|p99)\b(?!\.y)|performance\.now|Date\.now/;
const UPPER_BOUND = /\.toBeLessThan(OrEqual)?\(/;
const LOOP = /\b(for|while)\s*\(/;

interface Hit { file: string; line: number; text: string }

const sleeps: Hit[] = [];
const polls: Hit[] = [];
const bounds: Hit[] = [];

for (const file of files(root)) {
  const relative = path.relative(path.join(root, '..'), file);
  if (relative === path.join('test', 'support', 'wait.ts')) continue;
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const helpers = new Set<string>(['wait']);
  lines.forEach((text, i) => {
    const defined = HELPER_DEFINITION.exec(text);
    if (defined) helpers.add(defined[1]!);
    const named = FUNCTION_DEFINITION.exec(text);
    if (named && /setTimeout\(\s*(r|resolve)\s*,/.test(lines[i + 1] ?? '')) helpers.add(named[1]!);
  });
  const helperCall = helpers.size > 0 ? new RegExp(`await\\s+(${[...helpers].join('|')})\\(`) : undefined;
  lines.forEach((text, i) => {
    const hit = { file: relative, line: i + 1, text: text.trim() };
    if (INLINE_SLEEP.test(text) || helperCall?.test(text)) (LOOP.test(text) || LOOP.test(lines[i - 1] ?? '') && !/[;{}]\s*$/.test(lines[i - 1]!) ? polls : sleeps).push(hit);
    // The words of the code, not of a failure message.
    const code = text.replace(/`[^`]*`|'[^']*'|"[^"]*"|\/\/.*$/g, '');
    if (UPPER_BOUND.test(code) && TIME_WORDS.test(code)) bounds.push(hit);
  });
}

const list = process.argv.includes('--list');
for (const [name, hits] of [['fixed sleeps', sleeps], ['polling loops with their own pause', polls], ['upper-bound time assertions', bounds]] as const) {
  console.log(`${name}: ${hits.length}`);
  if (list) for (const hit of hits) console.log(`  ${hit.file}:${hit.line}  ${hit.text.slice(0, 140)}`);
}
