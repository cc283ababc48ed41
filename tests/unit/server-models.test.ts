import { describe, expect, it } from "vitest";
import { EngineHttpError, EngineUnreachableError } from "../../src/engines/errors.ts";
import { listServerModels } from "../../src/engines/openai.ts";

const json = (body: unknown, status = 200) => (async () => new Response(JSON.stringify(body), { status })) as unknown as typeof fetch;

describe("listing a server's models (Test connection)", () => {
  it("lists ids with the window each server reports under its own field name", async () => {
    const models = await listServerModels(
      "http://h:8000",
      undefined,
      json({ data: [{ id: "a", max_model_len: 32768 }, { id: "b", context_length: 4096 }, { id: "c" }, { nope: 1 }] }),
    );
    expect(models).toEqual([{ id: "a", contextWindow: 32768 }, { id: "b", contextWindow: 4096 }, { id: "c" }]);
  });

  it("asks /v1/models with the key, appending /v1 to a bare host", async () => {
    let seen: [string, RequestInit | undefined] | null = null;
    const spy = (async (url: string, init?: RequestInit) => {
      seen = [url, init];
      return new Response('{"data":[]}');
    }) as unknown as typeof fetch;
    await listServerModels("http://h:8000/", "k", spy);
    expect(seen![0]).toBe("http://h:8000/v1/models");
    expect((seen![1]!.headers as Record<string, string>).Authorization).toBe("Bearer k");
  });

  it("throws what the person must fix: unreachable, refused key", async () => {
    const refused = (async () => {
      throw new TypeError("fetch failed");
    }) as unknown as typeof fetch;
    await expect(listServerModels("http://127.0.0.1:9/v1", undefined, refused)).rejects.toBeInstanceOf(EngineUnreachableError);
    await expect(listServerModels("http://h/v1", undefined, json({ error: "bad key" }, 401))).rejects.toBeInstanceOf(EngineHttpError);
  });
});
