// A code block's language label sits above its first line, not over it (issue 34 #8): the label
// is placed in the block's top-right corner, and a long first line ran under it.
import { describe, expect, it } from "vitest";
import { askQuestion, newPage, openaiUrl, settledAnswer, startStack, uploadText } from "./harness.ts";
import { useStack } from "./stack.ts";

const CODE = `for ship in ships: print(ship.name, ship.port, ship.tonnage, ship.captain, ship.crew, ship.cargo, ship.flag)`;
const stack = useStack(() => startStack({ contextWindow: 8192, root: "The loop:\n\n```python\n" + CODE + "\nprint('done')\n```\n" }));

describe("a code block in an answer", () => {
  for (const width of [1280, 390]) {
    it(`shows its language label clear of the first line (${width} px)`, async () => {
      const { context, page, errors } = await newPage(stack.browser, { viewport: { width, height: 860 } });
      await page.goto(openaiUrl(stack.app.url, stack.server.baseUrl, { mode: "auto" }));
      await uploadText(page, "ships.txt", "Ship list.\n".repeat(20));
      await askQuestion(page, "Show the loop");
      const exchange = await settledAnswer(page, 90_000);
      const block = exchange.locator("section.answer pre.code").first();
      await block.locator(".code-lang").waitFor();
      const boxes = await block.evaluate((pre) => ({
        label: pre.querySelector(".code-lang")!.getBoundingClientRect().bottom,
        code: pre.querySelector("code")!.getBoundingClientRect().top,
      }));
      expect(boxes.label).toBeLessThanOrEqual(boxes.code + 1);
      expect(errors).toEqual([]);
      await context.close();
    }, 180_000);
  }
});
