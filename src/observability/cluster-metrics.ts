// With WORKERS > 1 every worker serves /metrics, and whichever one a scrape
// reaches answers for the whole cluster: the worker asks the primary over IPC,
// the primary gathers every worker's registry (prom-client's
// AggregatorRegistry: counters and histograms added up, default metrics
// combined by their own rules) and sends the text back.
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

const REQUEST = 'catalogue:metrics-request';
const RESPONSE = 'catalogue:metrics-response';
/** prom-client's primary gives up on a silent worker after 5 s; a worker waits a little longer for the primary. */
const TIMEOUT_MS = 6_000;

interface MetricsRequest {
  type: typeof REQUEST;
  id: number;
}
interface MetricsResponse {
  type: typeof RESPONSE;
  id: number;
  text?: string;
  error?: string;
}

const isType = <T extends { type: string }>(message: unknown, type: T['type']): message is T =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;

/** In the primary: answers workers' requests for the cluster's metrics. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isType<MetricsRequest>(message, REQUEST)) return;
    const reply = (response: Omit<MetricsResponse, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: RESPONSE, id: message.id, ...response });
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (error: unknown) => reply({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

/** In a worker: offers `registry` to the primary's aggregation, and asks the primary for the cluster's metrics. */
export class ClusterMetrics {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(text: string): void; reject(error: Error): void; timer: NodeJS.Timeout }>();
  private readonly onMessage = (message: unknown) => {
    if (!isType<MetricsResponse>(message, RESPONSE)) return;
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    clearTimeout(waiting.timer);
    if (message.error !== undefined) waiting.reject(new Error(message.error));
    else waiting.resolve(message.text ?? '');
  };

  constructor(registry: Registry) {
    AggregatorRegistry.setRegistries([registry]);
    // Constructing one installs prom-client's listener that answers the primary's collection requests.
    new AggregatorRegistry();
    process.on('message', this.onMessage);
  }

  /** The Prometheus text for every worker together. */
  text(): Promise<string> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the cluster primary sent no metrics within ${TIMEOUT_MS} ms`));
      }, TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      process.send?.({ type: REQUEST, id } satisfies MetricsRequest);
    });
  }

  close(): void {
    process.off('message', this.onMessage);
    for (const waiting of this.pending.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(new Error('server closing'));
    }
    this.pending.clear();
  }
}
