// What a person can take away from the open session: an answer as Markdown, trajectories as the
// official visualizer's JSONL, answered runs as a fine-tuning dataset.
import { fineTuneJsonl, runMetadata, trajectoryJsonl } from "../core/trajectory.ts";
import type { SessionView } from "./controller.svelte.ts";
import type { EngineManager } from "./engines.svelte.ts";
import { answerMarkdown, safeFileName } from "./exports.ts";
import type { Notices } from "./notices.svelte.ts";
import { stepsOf, type Exchange } from "./run-view.ts";
import { toRlmConfig, type Settings } from "./settings.ts";

type Download = (name: string, content: string, type: string) => void;
/** Reads an exchange's steps from storage if they were not read yet (a reopened session). */
type LoadSteps = (exchange: Exchange) => Promise<void>;

/** Plain data for export: Svelte's reactive proxies must not reach JSON.stringify. */
const plain = <T>(value: T): T => structuredClone($state.snapshot(value) as T);

export class Exporter {
  constructor(
    private readonly view: SessionView,
    private readonly engines: EngineManager,
    private readonly settings: () => Settings,
    private readonly notices: Notices,
    private readonly download: Download,
    private readonly loadSteps: LoadSteps,
  ) {}

  answer(exchange: Exchange): void {
    const docs = this.view.record?.documents.map((d) => d.path) ?? [];
    this.download(safeFileName(exchange.question, "md"), answerMarkdown(plain(exchange), docs), "text/markdown");
  }

  async trajectory(exchange?: Exchange): Promise<void> {
    const list = exchange ? [exchange] : this.view.exchanges.filter((e) => stepsOf(e).iterations > 0);
    await Promise.all(list.map(this.loadSteps));
    const name = safeFileName(exchange?.question ?? this.view.record?.title ?? "session", "jsonl");
    const { root, sub } = this.engines.describe();
    const metadata = runMetadata(root, sub, toRlmConfig(this.settings()));
    this.download(name, trajectoryJsonl(metadata, plain(list)), "application/jsonl");
  }

  async dataset(): Promise<void> {
    await Promise.all(this.view.exchanges.filter((e) => e.status === "answered").map(this.loadSteps));
    const content = fineTuneJsonl(plain(this.view.exchanges));
    if (!content) {
      this.notices.notify("info", "There is no answered question in this session to export yet.");
      return;
    }
    this.download(safeFileName(`${this.view.record?.title ?? "session"}-sft`, "jsonl"), content, "application/jsonl");
  }
}
