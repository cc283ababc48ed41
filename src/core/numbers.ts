// Numbers in messages and prompts, written the way toLocaleString("en-US") writes them.

/**
 * 10536787 → "10,536,787". The first toLocaleString call in a Node process loads ICU's number
 * formatting: ~26 ms of CPU on the `rlm` main thread (measured, issue 17) for a comma. Integers are
 * grouped here; anything else still goes through toLocaleString.
 */
export function groupDigits(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ",");
  return n < 0 || Object.is(n, -0) ? `-${digits}` : digits;
}
