/**
 * The proposed hunks of one inline review, without `vscode`: where each one is while the user
 * types around it, what the user decided, the text that lands for a per-line accept, and the
 * answer to the server's `workspace/applyEdit`.
 *
 * A hunk replaces whole lines: the server's ranges start at a line start and end at the start of
 * the line after the hunk (or at the end of a text without a final newline).
 */

export interface Span {
  readonly startLine: number;
  /** Where the replaced text ends: `endLine` is `startLine + lines` unless the text ends there. */
  readonly endLine: number;
  readonly endCharacter: number;
}

export type Verdict =
  | { readonly kind: "pending" }
  /**
   * `lines`: a per-line accept, numbered as the server numbers a hunk's changed lines (1-based,
   * its removed lines first, then its added ones: `lineRows`); `text` is what the server said
   * those lines make of the hunk (`rune/keepLines`), which is what lands.
   */
  | { readonly kind: "accepted"; readonly lines?: readonly number[]; readonly text?: string }
  | { readonly kind: "rejected"; readonly reason?: string }
  /** The user edited inside the hunk: it can no longer land as proposed. */
  | { readonly kind: "stale" };

export interface Hunk {
  readonly span: Span;
  /** The replaced lines, each with its line ending (the last may have none). */
  readonly oldLines: readonly string[];
  readonly newLines: readonly string[];
  readonly verdict: Verdict;
}

/** A text change as VS Code reports it: the replaced range and the number of lines inserted. */
export interface LineChange {
  readonly startLine: number;
  readonly startCharacter: number;
  readonly endLine: number;
  readonly endCharacter: number;
  readonly text: string;
}

export function splitLines(text: string): string[] {
  const lines = text.match(/[^\n]*\n|[^\n]+$/gu);
  return lines === null ? [] : [...lines];
}

export function makeHunk(span: Span, oldText: string, newText: string): Hunk {
  return { span, oldLines: splitLines(oldText), newLines: splitLines(newText), verdict: { kind: "pending" } };
}

/** One changed line of a hunk as a per-line accept lists it. */
export interface LineRow {
  /** 1-based, in the server's order (review/hunks.py LINE_NUMBERING): removed, then added. */
  readonly number: number;
  readonly sign: "-" | "+";
  readonly text: string;
}

/**
 * The hunk's changed lines numbered as the server numbers them for `lines` (mode B's
 * `rune.acceptHunk` and `rune/keepLines`): its removed lines first, then its added lines. The
 * client only lists them; what a choice of them makes of the hunk is the server's to say.
 */
export function lineRows(hunk: Hunk): LineRow[] {
  const rows = [
    ...hunk.oldLines.map((text) => ({ sign: "-" as const, text })),
    ...hunk.newLines.map((text) => ({ sign: "+" as const, text })),
  ];
  return rows.map((row, index) => ({ number: index + 1, ...row }));
}

/** What replaces the hunk's old lines when it is accepted: the proposal, or the server's text for a per-line accept. */
export function replacement(hunk: Hunk): string {
  if (hunk.verdict.kind === "accepted" && hunk.verdict.text !== undefined) {
    return hunk.verdict.text;
  }
  return hunk.newLines.join("");
}

/**
 * The hunk after a change of the document: moved down or up by the lines a change above it
 * added or removed, unchanged by one below it, `stale` when the change touches its lines. The
 * server finds the hunk where this puts it (review/reconcile.py, `rebase_hunks(adjacent=True)`):
 * a change of the lines right above or below a hunk moves it, one that shares a line with it
 * does not.
 */
export function afterChange(hunk: Hunk, change: LineChange): Hunk {
  if (hunk.verdict.kind === "stale") {
    return hunk;
  }
  const { span } = hunk;
  // Ending at the start of the hunk's first line: whole lines above it were replaced (the
  // replacement ends a line) or deleted; anything else joins a line onto the hunk's first.
  const wholeLinesAbove = change.text.endsWith("\n") || (change.text === "" && change.startCharacter === 0);
  const above =
    change.endLine < span.startLine || (change.endLine === span.startLine && change.endCharacter === 0 && wholeLinesAbove);
  if (above) {
    const added = (change.text.match(/\n/gu)?.length ?? 0) - (change.endLine - change.startLine);
    return {
      ...hunk,
      span: { startLine: span.startLine + added, endLine: span.endLine + added, endCharacter: span.endCharacter },
    };
  }
  const lastLine = span.endCharacter === 0 && span.endLine > span.startLine ? span.endLine - 1 : span.endLine;
  const below = change.startLine > lastLine || (span.endLine === span.startLine && change.startLine > span.startLine);
  if (below) {
    return hunk;
  }
  return { ...hunk, verdict: { kind: "stale" } };
}

export function isDecided(hunk: Hunk): boolean {
  return hunk.verdict.kind !== "pending";
}

export interface Answer {
  readonly applied: boolean;
  readonly failureReason?: string;
}

/**
 * The applyEdit answer once every hunk is decided: `applied` when anything landed, with the
 * user's reasons for the hunks they rejected (the server passes them on to the model).
 */
export function answerFor(hunks: readonly Hunk[], landed: boolean): Answer {
  const reasons = hunks.flatMap((hunk, index) =>
    hunk.verdict.kind === "rejected" && hunk.verdict.reason !== undefined && hunk.verdict.reason !== ""
      ? [`hunk ${index + 1}: ${hunk.verdict.reason}`]
      : [],
  );
  const stale = hunks.flatMap((hunk, index) => (hunk.verdict.kind === "stale" ? [index + 1] : []));
  // Which lines of a hunk landed the server reads from the text itself; what it cannot read is why.
  const notes = [...reasons];
  if (stale.length > 0) {
    notes.push(`the user edited inside hunk ${stale.join(", ")} during the review, so it was not applied`);
  }
  const said = notes.join("; ");
  if (landed) {
    return said === "" ? { applied: true } : { applied: true, failureReason: said };
  }
  // Nothing the user rejected, only hunks they typed into: that is `stale`, not a rejection
  // (issue 27 point 7; the server reads this reason, /work/notes/vscode-protocol.md H).
  if (stale.length > 0 && hunks.every((hunk) => hunk.verdict.kind === "stale" || hunk.verdict.kind === "accepted")) {
    return { applied: false, failureReason: said };
  }
  // Always with a reason: a bare `applied: false` is VS Code refusing an edit for an older
  // version of the document, which the server reports as stale once the user typed.
  return { applied: false, failureReason: said === "" ? "the user rejected it" : `the user rejected it: ${said}` };
}
