// A benchmark step that did not pass (nginx would not start, the smoke run had
// errors): runCommand prints its message as one line and exits 1.
export class BenchError extends Error {}
