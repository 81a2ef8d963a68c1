/**
 * A real OTLP/HTTP trace receiver on loopback: what a collector's `otlphttp` receiver is to the
 * service. It accepts `POST /v1/traces` in the OTLP JSON encoding (the service's exporter sends it
 * with OTEL_EXPORTER_OTLP_PROTOCOL=http/json), decodes every export and keeps the spans, flattened
 * (attributes as a plain object, ids as hex), so a test can assert names, attributes and parent links.
 */
import http from 'node:http';
import type net from 'node:net';

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind number: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code?: number; message?: string };
  resource: Record<string, unknown>;
  scope: string;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

function value(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(value);
  return undefined;
}

const flat = (kvs: KeyValue[] | undefined): Record<string, unknown> => Object.fromEntries((kvs ?? []).map((kv) => [kv.key, value(kv.value)]));

/** OTLP JSON carries ids as hex; a base64 id (the protobuf JSON mapping) is turned into hex too. */
function hexId(id: string | undefined): string {
  if (!id) return '';
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every request body as received, to search for what must never leave the service. */
  readonly rawBodies: string[] = [];
  readonly contentTypes: string[] = [];
  private server!: http.Server;
  port = 0;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
        const text = Buffer.concat(chunks).toString('utf8');
        this.contentTypes.push(String(req.headers['content-type']));
        this.rawBodies.push(text);
        try {
          this.take(JSON.parse(text));
        } catch {
          return void res.writeHead(400).end();
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private take(body: { resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { scope?: { name?: string }; spans?: any[] }[] }[] }): void {
    for (const rs of body.resourceSpans ?? []) {
      const resource = flat(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            traceId: hexId(s.traceId),
            spanId: hexId(s.spanId),
            parentSpanId: hexId(s.parentSpanId),
            name: s.name,
            kind: s.kind,
            attributes: flat(s.attributes),
            events: (s.events ?? []).map((e: { name: string; attributes?: KeyValue[] }) => ({ name: e.name, attributes: flat(e.attributes) })),
            status: s.status ?? {},
            resource,
            scope: ss.scope?.name ?? '',
          });
        }
      }
    }
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
