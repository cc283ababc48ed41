// Short messages to the person (a toast stack): what went wrong and what to do. Errors stay until
// dismissed; information goes away by itself.

export interface Notice {
  id: number;
  kind: "info" | "warning" | "error";
  text: string;
}

const INFO_MS = 8000;

export class Notices {
  list = $state<Notice[]>([]);
  private seq = 0;

  notify(kind: Notice["kind"], text: string): void {
    const id = ++this.seq;
    this.list.push({ id, kind, text });
    if (kind === "info") setTimeout(() => this.dismiss(id), INFO_MS);
  }

  dismiss(id: number): void {
    this.list = this.list.filter((n) => n.id !== id);
  }

  /** Runs `work`; a failure becomes an error notice instead of an unhandled rejection. */
  async guard<T>(work: () => Promise<T>): Promise<T | undefined> {
    try {
      return await work();
    } catch (err) {
      this.notify("error", err instanceof Error ? err.message : String(err));
      return undefined;
    }
  }
}
