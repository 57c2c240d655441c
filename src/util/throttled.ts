// At most one warning per interval: an outage (Redis down) must not flood the
// logs; the next warning says how many were held back.
export function throttled(log: (message: string, error: unknown) => void, intervalMs = 10_000) {
  let last = 0;
  let suppressed = 0;
  return (message: string, error: unknown) => {
    const now = Date.now();
    if (now - last < intervalMs) {
      suppressed++;
      return;
    }
    log(suppressed > 0 ? `${message} (and ${suppressed} more since the last warning)` : message, error);
    last = now;
    suppressed = 0;
  };
}
