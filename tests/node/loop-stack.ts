// The set-up the loop tests repeated: a scripted model server and a Node REPL, started before a
// file's tests and closed after them. Apart from helpers.ts because this registers vitest hooks.
import { afterEach } from "vitest";
import { useHooked, useHookedParts } from "../fixtures/hooked.ts";
import type { RlmSession } from "../../src/core/session.ts";
import type { ReplClient } from "../../src/repl/client.ts";
import { startScriptedServer, type ScriptedServer, type ScriptedServerOptions } from "../fixtures/scripted-server.ts";
import { startRepl } from "./helpers.ts";

export interface LoopStack {
  readonly server: ScriptedServer;
  readonly repl: ReplClient;
}

/** Not yet up (or already down): a test used the server or the REPL outside the file's tests and hooks. */
export class LoopStackNotUpError extends Error {
  constructor() {
    super("The scripted server and REPL are not up: use them inside a test or a hook registered after useLoopStack()");
  }
}

/** Registers beforeAll/afterAll that start the server (with `serverOptions`) and an "auto" REPL, and close them. */
export function useLoopStack(serverOptions: ScriptedServerOptions = { contextWindow: 8192 }): LoopStack {
  return useHookedParts(
    async () => ({ server: await startScriptedServer(serverOptions), repl: await startRepl("auto") }),
    async (parts) => {
      parts.repl.close();
      await parts.server.close();
    },
    () => new LoopStackNotUpError(),
  );
}

/** The scripted server of the session tests, and the sessions a test opened (closed after it). */
export interface SessionStack {
  readonly server: ScriptedServer;
  /** A test pushes each session it makes; after the test they are closed and the server's request log cleared. */
  readonly opened: RlmSession[];
}

export function useSessionServer(serverOptions: ScriptedServerOptions = { contextWindow: 8192 }): SessionStack {
  const server = useHooked(
    () => startScriptedServer(serverOptions),
    (s) => s.close(),
    () => new LoopStackNotUpError(),
  );
  const opened: RlmSession[] = [];
  afterEach(() => {
    for (const s of opened.splice(0)) s.close();
    server().requests.length = 0;
  });
  return {
    get server() {
      return server();
    },
    opened,
  };
}
