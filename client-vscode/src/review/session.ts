/**
 * One inline review's state, without `vscode`: the proposed hunks of one document, what the
 * user decided, the hunk a key acts on, and once every hunk is decided the edits that land and
 * the answer to the server's `workspace/applyEdit`. The commands (review/commands.ts) and the
 * rendering (review/render.ts) read and change it; test/unit/session.test.ts drives it on a
 * fake document.
 */

import { afterChange, type Answer, answerFor, type Hunk, isDecided, type LineChange, replacement, type Verdict } from "../hunks";

/** A line range of the editor that is on screen, inclusive (VS Code's `visibleRanges`). */
export interface Visible {
  readonly startLine: number;
  readonly endLine: number;
}

/** One accepted hunk as it lands: replace lines `startLine..endLine` (to `endCharacter`) with `text`. */
export interface Landing {
  readonly startLine: number;
  readonly endLine: number;
  readonly endCharacter: number;
  readonly text: string;
}

/** What a key press does: decide hunk `index`, show it first (it is off screen), or nothing. */
export type KeyTarget =
  | { readonly kind: "decide"; readonly index: number }
  | { readonly kind: "reveal"; readonly index: number }
  | { readonly kind: "none"; readonly why: string };

export class ReviewSession {
  private current: Hunk[];

  constructor(
    readonly label: string,
    hunks: readonly Hunk[],
  ) {
    this.current = [...hunks];
  }

  get hunks(): readonly Hunk[] {
    return this.current;
  }

  get done(): boolean {
    return this.current.every(isDecided);
  }

  /** Decides hunk `index`; false when there is no such pending hunk (stale or decided hunks stay). */
  decide(index: number, verdict: Verdict): boolean {
    const hunk = this.current[index];
    if (hunk === undefined || isDecided(hunk)) {
      return false;
    }
    this.current = this.current.map((h, i) => (i === index ? { ...h, verdict } : h));
    return true;
  }

  /** Decides every hunk still pending. */
  decideRest(verdict: Verdict): void {
    this.current = this.current.map((h) => (isDecided(h) ? h : { ...h, verdict }));
  }

  /** The document changed: VS Code reports the changes of one event against the text before it, last first. */
  follow(changes: readonly LineChange[]): void {
    for (const change of changes) {
      this.current = this.current.map((hunk) => afterChange(hunk, change));
    }
  }

  /** The last line a hunk's removed lines cover (its first line for a pure insertion). */
  static lastLine(hunk: Hunk): number {
    return Math.max(hunk.span.startLine, hunk.span.startLine + hunk.oldLines.length - 1);
  }

  /**
   * The hunk a key acts on, seen from the cursor line of the editor under review: the pending
   * hunk under the cursor, else the first pending one below it; never one above (no wrap to the
   * top). A hunk not wholly on screen is revealed, not decided: a key decides only what the
   * user sees.
   */
  keyTarget(cursorLine: number, visible: readonly Visible[]): KeyTarget {
    const pending = this.current.map((hunk, index) => ({ hunk, index })).filter(({ hunk }) => !isDecided(hunk));
    const under = pending.find(({ hunk }) => cursorLine >= hunk.span.startLine && cursorLine <= ReviewSession.lastLine(hunk));
    const found = under ?? pending.find(({ hunk }) => hunk.span.startLine >= cursorLine);
    if (found === undefined) {
      return { kind: "none", why: pending.length === 0 ? "no hunk is pending" : "no pending hunk at or below the cursor" };
    }
    const first = found.hunk.span.startLine;
    const last = ReviewSession.lastLine(found.hunk);
    const shown = visible.some((range) => range.startLine <= first && last <= range.endLine);
    return { kind: shown ? "decide" : "reveal", index: found.index };
  }

  /** The start line of the next (1) or previous (-1) pending hunk from `line`, wrapping: moving only shows. */
  neighbour(line: number, direction: 1 | -1): number | undefined {
    const starts = this.current.filter((hunk) => !isDecided(hunk)).map((hunk) => hunk.span.startLine);
    return direction === 1
      ? (starts.find((start) => start > line) ?? starts[0])
      : ([...starts].reverse().find((start) => start < line) ?? starts.at(-1));
  }

  /** The first pending hunk, else the first hunk (where the review opens). */
  firstPending(): Hunk | undefined {
    return this.current.find((hunk) => !isDecided(hunk)) ?? this.current[0];
  }

  /** The accepted hunks as they land, bottom first so each range is still right when applied in order. */
  landings(): Landing[] {
    return this.current
      .filter((hunk) => hunk.verdict.kind === "accepted")
      .map((hunk) => ({ ...hunk.span, text: replacement(hunk) }))
      .sort((a, b) => b.startLine - a.startLine);
  }

  answer(landed: boolean): Answer {
    return answerFor(this.current, landed);
  }
}
