// Driving the built app the way a person does (upload, type, Ask) against the scripted model
// server, and reading back what the REPL printed from the requests that server received.
import type { Browser, Page } from "playwright-core";
import type { ScriptedRequest, ScriptedServer, ScriptStep } from "../../fixtures/scripted-server.ts";
import { documentInput, newPage, openaiUrl } from "../harness.ts";
import { waitUntil } from "../waits.ts";

/** Root-model scripts keyed by a tag that appears in the question. */
export class QuestionScripts {
  private readonly scripts = new Map<string, ScriptStep[]>();

  set(tag: string, steps: ScriptStep[]): void {
    this.scripts.set(tag, steps);
  }

  /** The scripted server's root script: step i answers turn i of the question being asked. */
  readonly root = (req: ScriptedRequest): string => {
    const tag = tagOf(req, [...this.scripts.keys()]);
    const steps = tag ? this.scripts.get(tag) : undefined;
    if (!steps) return 'No script for this question.\n```repl\nFINAL("unscripted")\n```';
    const step = steps[Math.min(req.turn, steps.length - 1)]!;
    const value = typeof step === "function" ? step(req) : step;
    return typeof value === "string" ? value : value.text;
  };
}

/** The question's tag; the first line of a root prompt is "Question: ...", and later lines
 * may quote earlier questions, so only the first line counts. */
function tagOf(req: ScriptedRequest, tags: string[]): string | undefined {
  const firstLine = req.firstUser.split("\n")[0] ?? "";
  return tags.find((t) => firstLine.includes(t));
}

/** REPL output of each turn of one question: index t holds what turn t's code printed, as
 * the root model read it in the next request. */
export function turnOutputs(server: ScriptedServer, tag: string): string[] {
  const byTurn = new Map<number, string>();
  for (const req of server.requests) {
    if (req.isRoot && tagOf(req, [tag]) === tag) byTurn.set(req.turn, req.lastUser);
  }
  const outputs: string[] = [];
  for (let t = 0; byTurn.has(t + 1); t++) outputs.push(byTurn.get(t + 1)!);
  return outputs;
}

export interface AppPage {
  page: Page;
  errors: string[];
  close(): Promise<void>;
}

/** Opens the app pointed at the scripted model server. `serviceWorkers: "block"` keeps the
 * app's service worker out, for runs whose point is the headers a server sends. */
export async function openApp(
  browser: Browser,
  appUrl: string,
  model: ScriptedServer,
  params: Record<string, string>,
  options: { serviceWorkers?: "allow" | "block" } = {},
): Promise<AppPage> {
  const { context, page, errors } = await newPage(browser, options);
  await page.goto(openaiUrl(appUrl, model.baseUrl, params));
  return { page, errors, close: () => context.close() };
}

export async function uploadText(page: Page, name: string, text: string): Promise<void> {
  await documentInput(page).setInputFiles({ name, mimeType: "text/plain", buffer: Buffer.from(text) });
  await page.getByRole("button", { name: `Remove ${name}` }).waitFor({ timeout: 60_000 });
}

/** Asks a question and waits for the newest Answer region to contain `answer`. */
export async function ask(page: Page, question: string, answer: string, timeoutMs: number): Promise<void> {
  const before = await page.getByRole("region", { name: "Answer", exact: true }).count();
  await page.getByRole("textbox", { name: "Question" }).fill(question);
  await page.getByRole("button", { name: "Ask", exact: true }).click();
  const region = page.getByRole("region", { name: "Answer", exact: true }).nth(before);
  await region.waitFor({ timeout: 30_000 });
  let shown = "";
  await waitUntil(
    async () => {
      shown = await region.innerText();
      return (await region.getAttribute("aria-busy")) === "false" && shown.includes(answer);
    },
    { timeout: timeoutMs, interval: 250, what: `the answer "${answer}"` },
  ).catch(() => {
    throw new Error(`The answer "${answer}" did not appear within ${timeoutMs / 1000} s; the Answer region shows: ${shown.slice(0, 500)}`);
  });
}

/** The status chip text of the newest exchange ("Answered", "Failed", ...). */
export async function lastStatus(page: Page): Promise<string> {
  return (await page.locator("article.exchange").last().locator(".status .chip").first().innerText()).trim();
}
