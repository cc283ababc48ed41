// The command line's fetch over node:http (src/node/http-fetch.ts) does what the engine relies on
// fetch for: redirects as fetch follows them, no credentials to another origin, a streamed body
// that a Stop can cut, and a network failure that names its reason. (The engine's own behaviour
// with it: tests/unit/openai-engine.test.ts runs with both fetches.)
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeHttpFetch, nodeHttpFetch } from "../../src/node/http-fetch.ts";
import { readSse } from "../../src/engines/sse.ts";

interface Seen {
  method: string;
  url: string;
  body: string;
  authorization: string | undefined;
}

function serve(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", body, authorization: req.headers.authorization });
      handler(req, res, body);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen })),
  );
}

let main: Awaited<ReturnType<typeof serve>>;
let other: Awaited<ReturnType<typeof serve>>;
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  other = await serve((_req, res) => res.end("other origin"));
  main = await serve((req, res, body) => {
    if (req.url === "/307") return void res.writeHead(307, { location: "/echo" }).end();
    if (req.url === "/303") return void res.writeHead(303, { location: "/echo" }).end();
    if (req.url === "/away") return void res.writeHead(302, { location: `${other.url}/x` }).end();
    if (req.url === "/silent") return void hanging.push(res);
    if (req.url === "/stream") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
      hanging.push(res); // never ends on its own
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "x-twice": ["a", "b"] });
    res.end(JSON.stringify({ method: req.method, body }));
  });
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  await Promise.all([main, other].map(({ server }) => new Promise((done) => server.close(done))));
});

describe("fetch over node:http", () => {
  it("posts a body and reads status, headers and JSON", async () => {
    const res = await nodeHttpFetch(`${main.url}/echo`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: '{"a":1}',
    });
    expect(res.ok).toBe(true);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(res.headers.get("x-twice")).toBe("a, b");
    expect(res.headers.get("x-missing")).toBeNull();
    expect(await res.json()).toEqual({ method: "POST", body: '{"a":1}' });
  });

  it("follows redirects as fetch does: 307 keeps the POST, 303 turns it into a GET", async () => {
    const kept = await nodeHttpFetch(`${main.url}/307`, { method: "POST", body: "x" });
    expect(await kept.json()).toEqual({ method: "POST", body: "x" });
    expect(kept.redirected).toBe(true);
    const turned = await nodeHttpFetch(`${main.url}/303`, { method: "POST", body: "x" });
    expect(await turned.json()).toEqual({ method: "GET", body: "" });
  });

  it("does not send the API key on to another origin", async () => {
    const res = await nodeHttpFetch(`${main.url}/away`, { headers: { Authorization: "Bearer secret" } });
    expect(await res.text()).toBe("other origin");
    expect(main.seen.at(-1)?.authorization).toBe("Bearer secret");
    expect(other.seen.at(-1)?.authorization).toBeUndefined();
  });

  it("streams server-sent events, and a Stop ends a stream that never finishes", async () => {
    const controller = new AbortController();
    const res = await nodeHttpFetch(`${main.url}/stream`, { signal: controller.signal });
    const events: string[] = [];
    const reading = (async () => {
      for await (const data of readSse(res.body!, controller.signal)) {
        events.push(data);
        controller.abort();
      }
    })();
    await expect(reading).resolves.toBeUndefined();
    expect(events).toEqual(["first"]);
  });

  it("an aborted signal rejects before anything is sent", async () => {
    const before = main.seen.length;
    await expect(nodeHttpFetch(`${main.url}/echo`, { signal: AbortSignal.abort() })).rejects.toThrow();
    expect(main.seen.length).toBe(before);
  });

  it("gives up on a server that says nothing, before its reply and in the middle of one", async () => {
    const impatient = createNodeHttpFetch({ idleTimeoutMs: 150 });
    await expect(impatient(`${main.url}/silent`)).rejects.toThrow(/sent nothing/);
    const res = await impatient(`${main.url}/stream`);
    const reading = (async () => {
      for await (const _ of readSse(res.body!)) {
        // the first event, then silence
      }
    })();
    await expect(reading).rejects.toThrow();
  });

  it("a server that is not there rejects with the reason", async () => {
    await expect(nodeHttpFetch("http://127.0.0.1:9/v1/models")).rejects.toThrow(/ECONNREFUSED/);
    await expect(nodeHttpFetch("ftp://127.0.0.1/x")).rejects.toThrow(/unsupported URL scheme/);
  });
});
