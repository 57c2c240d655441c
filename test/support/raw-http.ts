// Raw HTTP for tests: paths and bytes reach the server exactly as written (fetch and
// node:http would normalise, encode or refuse them).
import http from 'node:http';
import net from 'node:net';

/** A GET through node:http, so paths like /a/../b reach the server unnormalised (fetch would resolve them). */
export function rawGet(baseUrl: string, rawPath: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request({ hostname, port, path: rawPath, method: 'GET' }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

/** A request as written on the wire: the target exactly as given, headers in order. */
export interface RawRequest {
  method: string;
  target: string;
  headers?: [string, string][];
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * One request written byte for byte on a fresh TCP connection (`Connection:
 * close` is added), so the fuzz tests can send what no HTTP client would:
 * unencoded or invalid bytes in the path, odd methods and headers, bodies
 * that are not UTF-8. The answer is parsed by hand for the same reason.
 */
export function rawRequest(baseUrl: string, request: RawRequest, timeoutMs = 10_000): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const body = request.body ?? Buffer.alloc(0);
  const headers: [string, string][] = [['host', `${hostname}:${port}`], ...(request.headers ?? []), ['connection', 'close']];
  const head = `${request.method} ${request.target} HTTP/1.1\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no complete answer within ${timeoutMs} ms to ${request.method} ${request.target}`)));
    const answer = () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (error) {
        reject(new Error(`${(error as Error).message}, for ${JSON.stringify(head.slice(0, 500))}`));
      }
    };
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A server that refuses a request early (a 431 for a huge URL) closes while
    // the rest is still being sent: the reset comes after its answer.
    socket.on('error', (error) => (chunks.length > 0 ? answer() : reject(error)));
    socket.on('end', answer);
    // Written, not ended: a half-closed connection makes Node's server abort
    // the request it is still answering. `Connection: close` ends it after the answer.
    socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  });
}

function parseResponse(raw: Buffer): RawResponse {
  // Skip interim answers (`100 Continue` to `Expect: 100-continue`).
  while (/^HTTP\/1\.[01] 1\d\d /.test(raw.subarray(0, 13).toString('latin1'))) raw = raw.subarray(raw.indexOf('\r\n\r\n') + 4);
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`the server closed the connection without a complete answer (${raw.length} bytes: ${JSON.stringify(raw.toString('latin1').slice(0, 200))})`);
  const [statusLine = '', ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!status) throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = raw.subarray(end + 4);
  const length = headers['content-length'];
  // A malformed request can be read as two: only the first answer counts.
  const body = headers['transfer-encoding'] === 'chunked' ? dechunk(rest) : length === undefined ? rest : rest.subarray(0, Number(length));
  return { status: Number(status[1]), headers, body };
}

/** The body of a `Transfer-Encoding: chunked` answer. */
function dechunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    const size = Number.parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
    if (lineEnd < 0 || Number.isNaN(size)) throw new Error('malformed chunked answer');
    if (size === 0) return Buffer.concat(parts);
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
