// HTTP methods by what they do: reads are safe, anything else needs an API key.
export const READ_METHODS = ['GET', 'HEAD'] as const;
/** The methods the REST routes write with (CORS allows exactly these besides the reads). */
export const WRITE_METHODS = ['POST', 'PUT', 'DELETE'] as const;

/** Any method that is not a read (or a CORS preflight) counts as a write, known or not. */
export function isWriteMethod(method: string): boolean {
  const upper = method.toUpperCase();
  return upper !== 'OPTIONS' && !(READ_METHODS as readonly string[]).includes(upper);
}
