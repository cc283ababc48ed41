import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// A browser test once failed when the Settings dialog was still open: getByLabel("Document")
// matched the picker and the dialog's "When the model cannot drive a document…" select (issue
// 38). eslint.config.js forbids reaching the picker that way in tests/e2e; these show the rule a
// crossing it must stop and a neighbour it must let through.
const message = "An unscoped document locator in a browser test";

const lint = async (file: string, code: string) => {
  const [result] = await new ESLint().lintText(code, { filePath: file });
  expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
  return result!.messages.map((m) => m.message);
};

describe("the browser tests' document locator (eslint.config.js)", () => {
  it.each([
    ["tests/e2e/app.test.ts", `export const f = (page: any) => page.getByLabel("Document").setInputFiles([]);`],
    ["tests/e2e/sandbox/drive.ts", `export const f = (page: any) => page.getByLabel("Document", { exact: true });`],
    ["tests/e2e/reach.test.ts", `export const f = (page: any) => page.getByLabel(/document/i);`],
    ["tests/e2e/harness.ts", `export const f = (page: any, n: string) => page.getByLabel(\`\${n}\`);`],
  ])("stops %s: %s", async (file, code) => {
    expect(await lint(file, code)).toEqual([expect.stringContaining(message)]);
  });

  it.each([
    ["tests/e2e/app.test.ts", `export const f = (page: any) => documentInput(page).setInputFiles([]);`],
    ["tests/e2e/link-settings.test.ts", `export const f = (dialog: any) => dialog.getByLabel(/API key/).fill("k");`],
    ["tests/e2e/app.test.ts", `export const f = (dialog: any) => dialog.getByLabel("Max iterations").inputValue();`],
  ])("lets through %s: %s", async (file, code) => {
    expect(await lint(file, code)).toEqual([]);
  });
});
