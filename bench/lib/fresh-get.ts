// A GET on a connection of its own, closed after the answer: for probes that
// must not leave a kept-alive connection behind (which would tie later probes
// to one cluster worker, or look like a proxy's idle upstream connection).
import http from 'node:http';

export function freshGet(url: string, headers: Readonly<Record<string, string>> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    // agent: false: a private agent without keep-alive, so `Connection: close`.
    const request = http.get(url, { agent: false, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { body += chunk; });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
  });
}
