// M01: turns with no code and no usable final. The first gets the full format reminder; a later
// one (the model acted in between) a shorter one with a one-line example, because the same
// reminder again and again changed nothing (issue 25). Two in a row, or three in one run, mean
// the model cannot drive this task, and the loop should fall back instead of spending the rest
// of its turns on reminders.

export interface NoActionVerdict {
  consecutive: number;
  /** No-action turns in the whole run: which reminder this one gets. */
  total: number;
  fallback: boolean;
}

export class NoActionCounter {
  private consecutive = 0;
  private total = 0;

  constructor(
    private readonly limit = 2,
    private readonly runLimit = 3,
  ) {}

  /**
   * `acted`: the turn ran code or gave a final that was accepted. A reply classified
   * "neither", a refused final, or only refused (shell) blocks did not act.
   */
  note(acted: boolean): NoActionVerdict {
    this.consecutive = acted ? 0 : this.consecutive + 1;
    if (!acted) this.total += 1;
    return {
      consecutive: this.consecutive,
      total: this.total,
      fallback: this.consecutive >= this.limit || (!acted && this.total >= this.runLimit),
    };
  }

  /** Whether one more turn without action would hand the run over (its reminder is then never sent). */
  get nextFallsBack(): boolean {
    return this.consecutive + 1 >= this.limit || this.total + 1 >= this.runLimit;
  }

  /** No-action turns noted so far in the run (the reminder for the next one says it differently). */
  get count(): number {
    return this.total;
  }
}
