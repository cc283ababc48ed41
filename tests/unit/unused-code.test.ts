// The unused-code rule of `npm run check` (eslint.config.js, issue 37 #5): a local, an import or a
// parameter nothing reads is an error in .ts and in .svelte files alike (tsc's noUnusedLocals
// covers only the .ts files); a parameter a signature needs is kept by naming it with "_".
// The dead-export half is knip (knip.jsonc, `npm run unused`): proven by hand in its commit.
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint();
});

const unusedFound = async (filePath: string, code: string) => {
  const [result] = await eslint.lintText(code, { filePath });
  expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
  return result!.messages.filter((m) => m.ruleId === "@typescript-eslint/no-unused-vars").map((m) => m.message);
};

describe("unused code (eslint.config.js)", () => {
  it.each([
    ["a local", "src/core/numbers.ts", `export function f(): number {\n  const never = 2;\n  return 1;\n}`],
    ["an import", "src/core/numbers.ts", `import { clipMiddle } from "./format.ts";\nexport const x = 1;`],
    ["a parameter after the last one read", "src/core/numbers.ts", `export const f = (a: number, b: number) => a;`],
    [
      "an import in a component",
      "src/ui/AskBox.svelte",
      `<script lang="ts">\n  import { formatBytes } from "./markdown.ts";\n  let n = $state(1);\n</script>\n<p>{n}</p>`,
    ],
  ])("stops %s", async (_what, file, code) => {
    expect(await unusedFound(file, code)).toHaveLength(1);
  });

  it("lets through a parameter named with a leading underscore, and a component's used import", async () => {
    expect(await unusedFound("src/core/numbers.ts", `export const f = (_a: number, b: number) => b;`)).toEqual([]);
    expect(
      await unusedFound(
        "src/ui/AskBox.svelte",
        `<script lang="ts">\n  import { formatBytes } from "./markdown.ts";\n</script>\n<p>{formatBytes(1)}</p>`,
      ),
    ).toEqual([]);
  });
});
