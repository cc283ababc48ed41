// A catalog download server on 127.0.0.1 (never the internet) that serves the tiny test model, for
// the files that watch the page download it; each file says how a request is answered (cut off,
// slow, resumed). Registers vitest hooks: start before the file's tests, close after them.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tinyQwenGguf } from "../fixtures/gguf/index.ts";
import { useHookedParts } from "../fixtures/hooked.ts";

/** How one GET is answered: `headers` are the cross-origin ones every answer needs. */
export type ModelResponder = (model: Buffer, req: IncomingMessage, res: ServerResponse, headers: OutgoingHttpHeaders) => void;

export class ModelServerNotUpError extends Error {
  constructor() {
    super("The model server is not up: use it inside a test or a hook registered after useModelServer()");
  }
}

/** Returns the URL a catalog entry's file name is appended to (`…/models/`), once the server is up. */
export function useModelServer(respond: ModelResponder): { readonly base: string } {
  return useHookedParts(
    async () => {
      const model = readFileSync(await tinyQwenGguf());
      const server = createServer((req, res) => {
        // Another origin, as Hugging Face is: the page may read it (CORS, with Range) and embed it (CORP).
        const headers = {
          "Access-Control-Allow-Origin": "*",
          "Access-Control-Allow-Headers": "Range",
          "Cross-Origin-Resource-Policy": "cross-origin",
        };
        if (req.method === "OPTIONS") return void res.writeHead(204, headers).end();
        respond(model, req, res, headers);
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/models/` };
    },
    ({ server }: { server: Server }) => new Promise<void>((resolve) => server.close(() => resolve())),
    () => new ModelServerNotUpError(),
    120_000,
  );
}
