// The spans an OTLP receiver wrote (test/support/otlp-receiver prints the
// collector's own decoding of what the API exported, one JSON object a
// line), read, ordered as a waterfall and annotated: one reading for
// scripts/trace-waterfall.ts's picture and the trace table docs/operations.md
// renders (scripts/render-performance.ts).
import fs from 'node:fs';
import type { ReceivedSpan as FullSpan } from '../../test/support/otlp-receiver.ts';

/** What the waterfall reads of a received span (test/support/otlp-receiver.ts has all of it). */
export type ReceivedSpan = Pick<FullSpan, 'traceId' | 'spanId' | 'parentSpanId' | 'name' | 'startUnixNano' | 'endUnixNano' | 'attributes'>;

/** Spans in depth-first order under their parents, each with its depth. */
export function ordered(spans: ReceivedSpan[]): { span: ReceivedSpan; depth: number }[] {
  const ids = new Set(spans.map((span) => span.spanId));
  const children = new Map<string, ReceivedSpan[]>();
  for (const span of spans) {
    const parent = ids.has(span.parentSpanId) ? span.parentSpanId : '';
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const out: { span: ReceivedSpan; depth: number }[] = [];
  const visit = (parent: string, depth: number) => {
    for (const span of (children.get(parent) ?? []).sort((a, b) => a.startUnixNano - b.startUnixNano)) {
      out.push({ span, depth });
      visit(span.spanId, depth + 1);
    }
  };
  visit('', 0);
  return out;
}

/** A short note of the attributes a reader looks for on each kind of span. */
export function note(span: ReceivedSpan): string {
  const a = span.attributes;
  const parts = [
    a['http.response.status_code'] !== undefined ? `status ${a['http.response.status_code']}` : '',
    a['catalogue.cache.outcome'] !== undefined ? String(a['catalogue.cache.outcome']) : '',
    a['catalogue.dataloader.batch_size'] !== undefined ? `${a['catalogue.dataloader.batch_size']} key(s)` : '',
    a['db.response.returned_rows'] !== undefined ? `${a['db.response.returned_rows']} row(s)` : '',
  ];
  return parts.filter(Boolean).join(', ');
}


/** The spans of a receiver's output (.jsonl, a span a line) or of a saved trace (.json: `{ "spans": [...] }`). */
export function readSpans(file: string): ReceivedSpan[] {
  const text = fs.readFileSync(file, 'utf8');
  if (file.endsWith('.json')) return (JSON.parse(text) as { spans: ReceivedSpan[] }).spans;
  return text.split('\n').filter((line) => line.startsWith('{"traceId"')).map((line) => JSON.parse(line) as ReceivedSpan);
}
