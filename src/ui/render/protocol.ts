// The render worker's protocol: one request shape in, one of two reply shapes out.
import type { RenderChunk } from "./markdown-html.ts";

export interface RenderRequest {
  type: "render";
  id: number;
  text: string;
}

export type RenderReply = { type: "rendered"; id: number; chunks: RenderChunk[] } | { type: "failed"; id: number; message: string };
