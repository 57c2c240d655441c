// JSON with object keys sorted, so {a, b} and {b, a} give the same text: for
// keys and fingerprints built from client-supplied objects. A value that
// JSON.stringify would leave out (undefined, a function) is written `null`.
//
// Iterative: the values come from clients, JSON.parse takes any depth, and a
// recursive walk overflows the stack a few thousand levels down (a GraphQL
// variable nested that deep would be a 500).

/** What is left to write: a value, or text between its parts. */
type Step = { value: unknown } | string;

export function canonicalJson(value: unknown): string {
  let out = '';
  const steps: Step[] = [{ value }];
  while (steps.length > 0) {
    const step = steps.pop() as Step;
    if (typeof step === 'string') {
      out += step;
      continue;
    }
    const current = step.value;
    if (Array.isArray(current)) {
      out += '[';
      steps.push(']');
      for (let i = current.length - 1; i >= 0; i--) {
        steps.push({ value: current[i] });
        if (i > 0) steps.push(',');
      }
    } else if (current && typeof current === 'object') {
      out += '{';
      steps.push('}');
      const keys = Object.keys(current).sort();
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        steps.push({ value: (current as Record<string, unknown>)[key] });
        steps.push(`${i > 0 ? ',' : ''}${JSON.stringify(key)}:`);
      }
    } else {
      out += JSON.stringify(current) ?? 'null';
    }
  }
  return out;
}
