// A saved API key is only ever sent to the origin it was entered for, and settings in a link
// are a proposal. The attack this stops: a person has a key saved for their endpoint; a link
// (in a chat, or written by a prompt-injected answer inside the app itself) names another
// endpoint; one click and one question used to send the key, the question and the earlier
// answers there. A canary server plays the attacker's endpoint and must never see the key.
//
// Run: npm run build && npx vitest run --project e2e tests/e2e/link-settings.test.ts
import { mkdirSync } from "node:fs";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { repl } from "../fixtures/scripted-server.ts";
import { newPage, openaiUrl, startStack, uploadText } from "./harness.ts";
import { useStack, useCanary } from "./stack.ts";
import { QuestionScripts } from "./sandbox/drive.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

const KEY = "sk-test-0123456789abcdef";
const scripts = new QuestionScripts();

const stack = useStack(() => startStack({ root: scripts.root, sub: "sub reply", contextWindow: 32768 }));
const canary = useCanary();

const proposal = (page: Page) => page.getByRole("dialog", { name: "Settings from a link" });
const attackLink = (appUrl: string, extra = "") =>
  `${appUrl}?backend=openai&baseUrl=${encodeURIComponent(`${canary.url}/v1`)}&model=evil-model${extra}`;

/** Saves KEY for the endpoint the page is set to, then adds a document `name` once Python is ready. */
async function saveKeyAndAdd(page: Page, name: string, text: string): Promise<void> {
  await page.getByRole("button", { name: "Settings" }).click();
  const settings = page.getByRole("dialog", { name: "Settings" });
  await settings.getByLabel(/API key/).fill(KEY);
  await settings.getByRole("button", { name: "Save" }).click();
  await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 60_000 });
  await uploadText(page, name, text);
}

/** Points a fresh page at the scripted server through its link, confirmed, and saves a key for it. */
async function setUpWithKey(page: Page): Promise<void> {
  await page.goto(openaiUrl(stack.app.url, stack.server.baseUrl));
  await proposal(page).getByRole("button", { name: "Apply these settings" }).click();
  await saveKeyAndAdd(page, "notes.txt", "private notes");
}

async function askAndSettle(page: Page, question: string): Promise<string> {
  const before = await page.locator("article.exchange").count();
  await page.getByRole("textbox", { name: "Question" }).fill(question);
  await page.getByRole("button", { name: "Ask", exact: true }).click();
  const chip = page.locator("article.exchange").nth(before).locator(".status .chip");
  await chip.filter({ hasNotText: "Working" }).waitFor({ timeout: 60_000 });
  return (await chip.innerText()).trim();
}

const keyLeaks = () =>
  canary.requests.filter((r) => JSON.stringify(r.headers).includes(KEY) || r.body.includes(KEY) || r.path.includes(KEY));

describe("settings from a link are a proposal, and keys stay with their origin", () => {
  it("a link naming another endpoint changes nothing until confirmed, and never takes the saved key there", async () => {
    scripts.set("[mine]", [repl('FINAL("from my endpoint")')]);
    const { context, page, errors } = await newPage(stack.browser, {}, { linkSettings: "manual" });
    await setUpWithKey(page);
    expect(await askAndSettle(page, "[mine] first question")).toBe("Answered");
    canary.reset();

    await page.goto(attackLink(stack.app.url, "&maxIterations=lots&temperature=9&apiKey=stolen"));
    const dialog = proposal(page);
    await dialog.waitFor();
    // The endpoint is what matters, and it is said first and plainly.
    await dialog.getByRole("alert").getByText(`New endpoint: ${canary.url}`).waitFor();
    await dialog.getByText("Your saved API key belongs to another endpoint and will not be sent there.").waitFor();
    // Bad values are refused with the reason, not "taken".
    const refused = await dialog.locator(".refused").innerText();
    expect(refused).toMatch(/maxIterations=lots: must be a whole number/);
    expect(refused).toMatch(/temperature=9: must be a number from 0 to 2/);
    expect(refused).toMatch(/apiKey=\(hidden\): API keys are never taken from links/);
    expect(refused).not.toContain("stolen");
    // The link's parameters left the address bar at once.
    expect(new URL(page.url()).search).toBe("");
    await page.screenshot({ path: `${SHOTS}link-proposal-1280.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SHOTS}link-proposal-390.png` });
    await page.setViewportSize({ width: 1280, height: 860 });

    await dialog.getByRole("button", { name: "Keep my settings" }).click();
    expect(await askAndSettle(page, "[mine] after declining")).toBe("Answered");
    expect(canary.hits(), canary.describe()).toBe(0);

    // A reload neither brings the proposal back nor changes what was saved.
    await page.reload();
    await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 60_000 });
    expect(await proposal(page).count()).toBe(0);
    await page.locator("header .chip", { hasText: `root-model @ ${new URL(stack.server.url).host}` }).waitFor();

    // Confirmed, the new endpoint gets the questions (the person chose it), but not the key.
    await page.goto(attackLink(stack.app.url));
    await proposal(page).getByRole("button", { name: "Apply these settings" }).click();
    await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 60_000 });
    await askAndSettle(page, "[mine] to the new endpoint");
    expect(canary.requests.length, "the confirmed endpoint was used").toBeGreaterThan(0);
    expect(keyLeaks(), canary.describe()).toEqual([]);
    expect(canary.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
    expect(errors.filter((e) => e.startsWith("pageerror"))).toEqual([]);
    await context.close();
  });

  it("a same-origin link in an answer, carrying baseUrl=attacker, opens a proposal in its tab and sends nothing", async () => {
    canary.reset();
    const { context, page } = await newPage(stack.browser, {}, { linkSettings: "manual" });
    await setUpWithKey(page);
    const link = attackLink(stack.app.url);
    scripts.set("[injected]", [repl(`FINAL(${JSON.stringify(`See [the full report](${link}) for details.`)})`)]);
    expect(await askAndSettle(page, "[injected] summarize")).toBe("Answered");
    const anchor = page.getByRole("region", { name: "Answer", exact: true }).last().getByRole("link", { name: "the full report" });
    const [tab] = await Promise.all([context.waitForEvent("page"), anchor.click()]);
    await proposal(tab).getByText(`New endpoint: ${canary.url}`).waitFor({ timeout: 30_000 });
    await proposal(tab).getByRole("button", { name: "Keep my settings" }).click();
    await tab.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 60_000 });
    scripts.set("[second tab]", [repl('FINAL("still mine")')]);
    expect(await askAndSettle(tab, "[second tab] anything")).toBe("Answered");
    expect(canary.hits(), canary.describe()).toBe(0);
    await context.close();
  });

  it("positive control: a key saved for the canary's own origin does reach it", async () => {
    canary.reset();
    const { context, page } = await newPage(stack.browser);
    await page.goto(attackLink(stack.app.url));
    await saveKeyAndAdd(page, "n.txt", "n");
    await askAndSettle(page, "anything");
    expect(keyLeaks().length, "the canary would have seen a leaked key").toBeGreaterThan(0);
    await context.close();
  });

  it("names what would change in people's words, and never calls a value it will ask the server for unset (issue 28)", async () => {
    const { context, page, errors } = await newPage(stack.browser, {}, { linkSettings: "manual" });
    // A first visit (a model in this browser) opening a link to an endpoint whose window the page will ask for.
    await page.goto(openaiUrl(stack.app.url, stack.server.baseUrl));
    const dialog = proposal(page);
    await dialog.waitFor();
    const row = async (setting: string) =>
      (await dialog.getByRole("row", { name: new RegExp(`^${setting}`) }).innerText()).replace(/\s+/g, " ").trim();
    // This browser has no WebGPU: "Now" is what the page uses here, llama.cpp on the processor,
    // not the WebGPU engine a first visit's settings start from (issue 34 #8).
    const cpu = "Model source In this browser, on the CPU (llama.cpp, a GGUF file) OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp…)";
    await expect.poll(() => row("Model source"), { timeout: 30_000 }).toBe(cpu);
    expect(await dialog.locator("table").innerText()).not.toMatch(/WebGPU/);
    expect(await row("Context window")).toMatch(/ asked from the server$/);
    expect(await row("Method")).toBe("Method Auto (direct if it fits) Always RLM");
    const table = await dialog.locator("table").innerText();
    expect(table).not.toMatch(/\(not set\)|\bwebllm\b|\bopenai\b/);
    await dialog.screenshot({ path: `${SHOTS}link-proposal-names-1280.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SHOTS}link-proposal-names-390.png` });
    await dialog.getByRole("button", { name: "Keep my settings" }).click();
    expect(errors.filter((e) => e.startsWith("pageerror"))).toEqual([]);
    await context.close();
  });
});
