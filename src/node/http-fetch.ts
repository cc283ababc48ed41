// The part of fetch the OpenAI-compatible engine uses, over node:http and node:https, for the
// command line. Node's own fetch is undici, which loads on first use: ~70 ms of wall time and
// ~80 ms of CPU on the `rlm` main thread (measured, issue 17) against ~17 ms for node:http. The
// page keeps the browser's fetch; the engine takes either (OpenAIEngineOptions.fetch).
//
// What it covers: GET and POST with a string body, headers, an AbortSignal, redirects (as fetch
// follows them), and a response with ok/status/statusText, headers.get, json(), text() and a
// streamed body (a web ReadableStream, for server-sent events). Network failures reject, as
// fetch does, with the system's reason ("connect ECONNREFUSED 127.0.0.1:9").
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";

const MAX_REDIRECTS = 20; // fetch's own limit

/** A response as the engine reads it. */
class NodeHttpResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly url: string;
  readonly redirected: boolean;
  readonly headers: { get(name: string): string | null; has(name: string): boolean };
  #message: IncomingMessage;
  #body: ReadableStream<Uint8Array> | null = null;

  constructor(message: IncomingMessage, url: string, redirected: boolean) {
    this.#message = message;
    this.status = message.statusCode ?? 0;
    this.ok = this.status >= 200 && this.status < 300;
    this.statusText = message.statusMessage ?? "";
    this.url = url;
    this.redirected = redirected;
    const raw = message.headers;
    const get = (name: string) => {
      const value = raw[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
    };
    this.headers = { get, has: (name) => get(name) !== null };
  }

  get body(): ReadableStream<Uint8Array> {
    this.#body ??= Readable.toWeb(this.#message) as ReadableStream<Uint8Array>;
    return this.#body;
  }

  get bodyUsed(): boolean {
    return this.#message.readableEnded || this.#body !== null;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.#message) chunks.push(chunk as Buffer);
    const all = Buffer.concat(chunks);
    return all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.arrayBuffer());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}

function headerRecord(headers: HeadersInit | undefined): Record<string, string> {
  if (!headers) return {};
  if (Array.isArray(headers)) return Object.fromEntries(headers);
  if (typeof (headers as Headers).forEach === "function") {
    const out: Record<string, string> = {};
    (headers as Headers).forEach((value, key) => (out[key] = value));
    return out;
  }
  return { ...(headers as Record<string, string>) };
}

interface Sending {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal | undefined;
  idleTimeoutMs: number;
}

function send({ url, method, headers, body, signal, idleTimeoutMs }: Sending): Promise<IncomingMessage> {
  const request = url.protocol === "https:" ? httpsRequest : url.protocol === "http:" ? httpRequest : null;
  if (!request) return Promise.reject(new TypeError(`unsupported URL scheme ${url.protocol}`));
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      headers: body === undefined ? headers : { ...headers, "Content-Length": String(Buffer.byteLength(body)) },
      ...(signal ? { signal } : {}),
    });
    // A server that accepts the connection and then says nothing, before or during its reply.
    req.setTimeout(idleTimeoutMs, () => req.destroy(new Error(`the server sent nothing for ${Math.round(idleTimeoutMs / 1000)} s`)));
    req.on("response", resolve);
    req.on("error", reject);
    req.end(body);
  });
}

/** Node's fetch (undici) gives up on a silent server after 300 s, for the headers and between body chunks alike. */
const IDLE_TIMEOUT_MS = 300_000;

/** A fetch over node:http; `idleTimeoutMs`: how long a connected server may send nothing. */
export function createNodeHttpFetch({ idleTimeoutMs = IDLE_TIMEOUT_MS } = {}): typeof fetch {
  return ((input: RequestInfo | URL, init?: RequestInit) => fetchOverNodeHttp(input, init, idleTimeoutMs)) as typeof fetch;
}

/** fetch(url, init) for the engine's requests; see the file's comment for what it covers. */
export const nodeHttpFetch = createNodeHttpFetch();

async function fetchOverNodeHttp(input: RequestInfo | URL, init: RequestInit = {}, idleTimeoutMs: number): Promise<Response> {
  if (typeof input !== "string" && !(input instanceof URL)) throw new TypeError("nodeHttpFetch takes a URL, not a Request");
  if (init.body !== undefined && init.body !== null && typeof init.body !== "string") {
    throw new TypeError("nodeHttpFetch sends string bodies only");
  }
  const signal = init.signal ?? undefined;
  signal?.throwIfAborted();
  let url = new URL(input);
  let method = (init.method ?? "GET").toUpperCase();
  let body = init.body ?? undefined;
  let headers = headerRecord(init.headers);
  for (let redirects = 0; ; redirects++) {
    const message = await send({ url, method, headers, body, signal, idleTimeoutMs });
    const status = message.statusCode ?? 0;
    const location = message.headers.location;
    if (![301, 302, 303, 307, 308].includes(status) || !location || init.redirect === "manual") {
      return new NodeHttpResponse(message, url.href, redirects > 0) as unknown as Response;
    }
    message.resume(); // the redirect's own body is not read
    if (init.redirect === "error" || redirects >= MAX_REDIRECTS)
      throw new TypeError(`too many redirects, or a redirect refused (${url.href})`);
    // As fetch: 303, and 301/302 after a POST, go on as a GET without the body.
    if (status === 303 || ((status === 301 || status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([key]) => !/^content-/i.test(key)));
    }
    const next = new URL(location, url);
    // Credentials do not follow a redirect to another origin.
    if (next.origin !== url.origin)
      headers = Object.fromEntries(Object.entries(headers).filter(([key]) => key.toLowerCase() !== "authorization"));
    url = next;
  }
}
