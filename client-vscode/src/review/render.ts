/**
 * How an inline review looks: the lines a hunk removes marked red in the document (they are
 * real lines, so they keep their syntax colours), and under them the proposed lines as real
 * lines in a comment-thread zone (`vscode.comments`, as the GitHub Pull Requests extension shows
 * a diff inline): whole lines on the theme's inserted-line green (review/proposed.ts),
 * indentation kept, syntax-coloured in the document's language,
 * between the lines around the hunk, without a character of them written into the document
 * before the user accepts. Above each hunk, CodeLenses; in each zone's title, Accept / Reject.
 */

import * as vscode from "vscode";
import { type Hunk, isDecided } from "../hunks";
import { fenced, proposedBlock } from "./proposed";
import { ReviewSession } from "./session";

export const COMMENT_CONTROLLER_ID = "rune.review";
/** When the lenses are asked for again after a review is drawn (see `show`). */
const LENS_REFRESH_MS = [500, 2_000, 5_000];

/** The commands a lens or a zone's title button runs with the hunk's index (review/commands.ts). */
export interface LensCommands {
  readonly acceptHunk: string;
  readonly rejectHunk: string;
  readonly rejectHunkWithReason: string;
  readonly acceptLines: string;
  readonly acceptAll: string;
  readonly rejectAll: string;
  readonly reveal: string;
}

interface Shown {
  readonly document: vscode.TextDocument;
  readonly session: ReviewSession;
  /** Whether per-line accept is offered (the server decides what lines make of a hunk). */
  readonly perLine: boolean;
}

export class ReviewRenderer implements vscode.CodeLensProvider, vscode.Disposable {
  private shown: Shown | undefined;
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private readonly removed = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("diffEditor.removedLineBackground"),
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.deletedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  /** The line a pure insertion goes under: a green edge, the zone below it holds the lines. */
  private readonly insertAt = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    borderColor: new vscode.ThemeColor("editorGutter.addedBackground"),
    borderStyle: "solid",
    borderWidth: "0 0 2px 0",
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.addedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly comments = vscode.comments.createCommentController(COMMENT_CONTROLLER_ID, "Rune: proposed lines");
  /** One zone per hunk index, reused while the review lasts (re-creating 50 zones per keystroke is slow). */
  private readonly zones = new Map<number, { thread: vscode.CommentThread; key: string }>();
  private readonly registration: vscode.Disposable;

  constructor(private readonly commands: LensCommands) {
    this.registration = vscode.languages.registerCodeLensProvider({ scheme: "file" }, this);
  }

  /** Draws `session` (again); returns the milliseconds it took. */
  show(document: vscode.TextDocument, session: ReviewSession, perLine: boolean): number {
    this.shown = { document, session, perLine };
    const ms = this.render();
    // Asked again once the editor settled: in code-server a change event that arrives while
    // the editor's first lens request is in flight was seen to leave the lenses out, and on a
    // loaded machine (51 zones to lay out) the editor settles later than half a second.
    for (const delay of LENS_REFRESH_MS) {
      setTimeout(() => {
        if (this.shown?.session === session) {
          this.lensesChanged.fire();
        }
      }, delay);
    }
    return ms;
  }

  /** The hunk index a zone's title button was pressed on. */
  indexOf(thread: vscode.CommentThread): number | undefined {
    for (const [index, zone] of this.zones) {
      if (zone.thread === thread) {
        return index;
      }
    }
    return undefined;
  }

  /** Draws the session into every visible editor of its document; returns the milliseconds it took. */
  render(): number {
    const started = performance.now();
    const shown = this.shown;
    if (shown === undefined) {
      return 0;
    }
    const { document, session } = shown;
    const removed: vscode.DecorationOptions[] = [];
    const insertAt: vscode.DecorationOptions[] = [];
    const live = new Set<number>();
    const total = session.hunks.length;
    for (const [index, hunk] of session.hunks.entries()) {
      if (hunk.verdict.kind === "rejected" || hunk.verdict.kind === "stale") {
        continue;
      }
      const hover = hoverFor(hunk, index, total);
      for (let line = 0; line < hunk.oldLines.length; line++) {
        const at = hunk.span.startLine + line;
        removed.push({ range: new vscode.Range(at, 0, at, 0), hoverMessage: hover });
      }
      const anchor = anchorLine(hunk);
      if (hunk.oldLines.length === 0 && anchor >= 0) {
        insertAt.push({ range: new vscode.Range(anchor, 0, anchor, 0), hoverMessage: hover });
      }
      live.add(index);
      this.zone(index, hunk, total, document.languageId);
    }
    for (const [index, zone] of this.zones) {
      if (!live.has(index)) {
        zone.thread.dispose();
        this.zones.delete(index);
      }
    }
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document === document) {
        editor.setDecorations(this.removed, removed);
        editor.setDecorations(this.insertAt, insertAt);
      }
    }
    this.lensesChanged.fire();
    return performance.now() - started;
  }

  /** Creates or updates hunk `index`'s zone of proposed lines (only what changed is touched). */
  private zone(index: number, hunk: Hunk, total: number, languageId: string): void {
    const shown = this.shown;
    if (shown === undefined) {
      return;
    }
    const anchor = Math.max(anchorLine(hunk), 0);
    const label = zoneLabel(hunk, index, total);
    const key = `${anchor}\u0000${label}`;
    const existing = this.zones.get(index);
    if (existing?.key === key) {
      return;
    }
    const range = new vscode.Range(anchor, 0, anchor, 0);
    if (existing !== undefined) {
      existing.thread.range = range;
      existing.thread.label = label;
      existing.thread.contextValue = contextOf(hunk, shown.perLine);
      this.zones.set(index, { thread: existing.thread, key });
      return;
    }
    const comment: vscode.Comment = {
      body: proposedMarkdown(hunk, languageId),
      mode: vscode.CommentMode.Preview,
      author: { name: hunk.newLines.length === 0 ? "removes the red lines" : "proposed" },
    };
    const thread = this.comments.createCommentThread(shown.document.uri, range, [comment]);
    thread.canReply = false;
    thread.label = label;
    thread.contextValue = contextOf(hunk, shown.perLine);
    thread.collapsibleState = vscode.CommentThreadCollapsibleState.Expanded;
    this.zones.set(index, { thread, key });
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const shown = this.shown;
    if (shown?.document !== document) {
      return [];
    }
    const { session } = shown;
    const c = this.commands;
    const lenses: vscode.CodeLens[] = [];
    session.hunks.forEach((hunk, index) => {
      // Above the hunk's lines; for an insertion above the line its zone hangs from.
      const line = hunk.oldLines.length === 0 ? Math.max(anchorLine(hunk), 0) : hunk.span.startLine;
      const at = new vscode.Range(line, 0, line, 0);
      const lens = (title: string, command: string, tooltip: string) =>
        lenses.push(new vscode.CodeLens(at, { title, command, arguments: [index], tooltip }));
      if (index === 0) {
        lens(`Rune: ${session.label.replace(/^rune: /u, "")}`, c.reveal, "the proposed edit");
        lens("Accept all", c.acceptAll, "accept every hunk of this edit (Ctrl+Alt+Shift+Y)");
        lens("Reject all", c.rejectAll, "reject this edit (Ctrl+Alt+Shift+N)");
      }
      const name = `hunk ${index + 1}/${session.hunks.length}`;
      switch (hunk.verdict.kind) {
        case "pending":
          lens(`Accept ${name}`, c.acceptHunk, "Ctrl+Alt+Y");
          lens("Reject", c.rejectHunk, "Ctrl+Alt+N");
          lens("Reject with reason…", c.rejectHunkWithReason, "the model is told why");
          if (shown.perLine && hunk.oldLines.length + hunk.newLines.length > 1) {
            lens("Accept lines…", c.acceptLines, "accept only some of this hunk's lines");
          }
          break;
        case "accepted":
          lens(`✓ ${name} accepted${hunk.verdict.lines ? ` (lines ${hunk.verdict.lines.join(", ")})` : ""}`, c.reveal, "applies once every hunk is decided");
          break;
        case "rejected":
          lens(`✗ ${name} rejected${hunk.verdict.reason ? `: ${hunk.verdict.reason}` : ""}`, c.reveal, "");
          break;
        case "stale":
          lens(`${name}: you edited it, it will not be applied`, c.reveal, "");
          break;
      }
    });
    return lenses;
  }

  clear(): void {
    const shown = this.shown;
    this.shown = undefined;
    for (const zone of this.zones.values()) {
      zone.thread.dispose();
    }
    this.zones.clear();
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document === shown?.document) {
        editor.setDecorations(this.removed, []);
        editor.setDecorations(this.insertAt, []);
      }
    }
    this.lensesChanged.fire();
  }

  dispose(): void {
    this.clear();
    this.registration.dispose();
    this.comments.dispose();
    this.removed.dispose();
    this.insertAt.dispose();
    this.lensesChanged.dispose();
  }
}

/** The zone goes under the last removed line, or under the line above a pure insertion (-1: at the top). */
function anchorLine(hunk: Hunk): number {
  return hunk.oldLines.length === 0 ? hunk.span.startLine - 1 : ReviewSession.lastLine(hunk);
}

function zoneLabel(hunk: Hunk, index: number, total: number): string {
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  const what =
    hunk.oldLines.length === 0
      ? `${count(hunk.newLines.length, "line")} to insert here`
      : hunk.newLines.length === 0
        ? `removes the ${count(hunk.oldLines.length, "red line")} above`
        : `${count(hunk.newLines.length, "proposed line")} for the ${count(hunk.oldLines.length, "red line")} above`;
  const state = hunk.verdict.kind === "accepted" ? " · ✓ accepted" : "";
  return `Rune · hunk ${index + 1}/${total}: ${what}${state}`;
}

/** `rune.hunk.pending` (with `.lines` when per-line accept is offered): the zone's title buttons follow it. */
function contextOf(hunk: Hunk, perLine: boolean): string {
  if (isDecided(hunk)) {
    return "rune.hunk.decided";
  }
  return perLine && hunk.oldLines.length + hunk.newLines.length > 1 ? "rune.hunk.pending.lines" : "rune.hunk.pending";
}

/** The proposed lines as an added block (review/proposed.ts), HTML allowed only for its green span. */
function proposedMarkdown(hunk: Hunk, languageId: string): vscode.MarkdownString {
  const markdown = new vscode.MarkdownString(proposedBlock(hunk.newLines, languageId));
  markdown.supportHtml = hunk.newLines.length > 0;
  return markdown;
}

function hoverFor(hunk: Hunk, index: number, total: number): vscode.MarkdownString {
  const minus = hunk.oldLines.map((line) => `-${line.replace(/\r?\n$/u, "")}`);
  const plus = hunk.newLines.map((line) => `+${line.replace(/\r?\n$/u, "")}`);
  return new vscode.MarkdownString(`**Rune: proposed hunk ${index + 1}/${total}**\n\n${fenced([...minus, ...plus].join("\n"), "diff")}`);
}
