// What the worker tells the host on the private port (see src/repl/pulse.ts).
import type { PulseToHost } from "../../src/repl/messages.ts";

export interface Pulse {
  cellStarted(id: number): void;
  cellFinished(id: number, result: string): void;
}

/**
 * The worker's end of the private port: heartbeats, and each cell's start and result. The
 * port's postMessage is taken now, before any Python runs, so a cell that patches
 * MessagePort.prototype cannot silence or fake it. A heartbeat's answer first goes twice round a
 * private channel and a timer turn, so work a cell left queued runs before it: a worker that
 * such work wedges stays silent instead of answering just ahead of it.
 */
export function privatePulse(port: MessagePort): Pulse {
  const send = port.postMessage.bind(port);
  const later = setTimeout.bind(globalThis);
  const loop = new MessageChannel();
  const bounce = loop.port2.postMessage.bind(loop.port2);
  loop.port1.onmessage = (event: MessageEvent) => {
    const [nonce, rounds] = event.data as [unknown, number];
    if (rounds > 0) bounce([nonce, rounds - 1]);
    else later(() => send(nonce), 0);
  };
  port.onmessage = (event: MessageEvent) => bounce([event.data, 1]);
  return {
    cellStarted: (id) => send({ started: id } satisfies PulseToHost),
    cellFinished: (id, result) => send({ id, result } satisfies PulseToHost),
  };
}
