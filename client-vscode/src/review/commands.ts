/**
 * The inline review's commands: CodeLenses and the zones' title buttons name their hunk; a key
 * (or the command palette) names none and acts only on what the user sees: a hunk of the
 * visible editor under review, under or below the cursor, revealed first when it is off screen
 * (ReviewSession.keyTarget). A key in another editor changes nothing.
 */

import * as vscode from "vscode";
import { type Hunk, lineRows, type Verdict } from "../hunks";
import type { ReviewSession } from "./session";

export const REVIEW_CONTEXT = "rune.reviewing";
/** The documents under review, for the keybindings' `resourcePath in rune.reviewedResources`. */
export const REVIEWED_RESOURCES = "rune.reviewedResources";
export const REVIEW_COMMANDS = {
  acceptHunk: "rune.review.acceptHunk",
  rejectHunk: "rune.review.rejectHunk",
  rejectHunkWithReason: "rune.review.rejectHunkWithReason",
  acceptLines: "rune.review.acceptLines",
  acceptAll: "rune.review.acceptAll",
  rejectAll: "rune.review.rejectAll",
  nextHunk: "rune.review.nextHunk",
  previousHunk: "rune.review.previousHunk",
  reveal: "rune.review.reveal",
} as const;

/** What the commands need of the open review (InlineReviews). */
export interface ReviewHost {
  readonly current: { readonly document: vscode.TextDocument; readonly session: ReviewSession } | undefined;
  /** The hunk index a zone's title button stands for. */
  indexOf(thread: vscode.CommentThread): number | undefined;
  /** Re-renders, and applies and answers once nothing is pending. */
  settle(): Promise<void>;
  reveal(): Promise<unknown>;
  /** The server's per-line accept (`rune/keepLines`), or undefined when it offers none. */
  readonly keepLines: ((oldText: string, newText: string, lines: readonly number[]) => Promise<string>) | undefined;
}

/** A hunk named by a lens (its index) or a zone's button (its thread); undefined for a key. */
type Named = number | vscode.CommentThread | undefined;

export function registerReviewCommands(host: ReviewHost): vscode.Disposable {
  const named = (arg: unknown): number | undefined => {
    if (typeof arg === "number") {
      return arg;
    }
    return typeof arg === "object" && arg !== null && "uri" in arg ? host.indexOf(arg as vscode.CommentThread) : undefined;
  };
  /** The hunk to act on: the one named, else the one a key may act on (keyTarget). */
  const target = (arg: Named, action: string): number | undefined => {
    const index = named(arg);
    if (index !== undefined) {
      return index;
    }
    return keyTarget(host, action);
  };
  const decide = async (arg: Named, verdict: Verdict, action: string) => {
    const index = target(arg, action);
    if (index !== undefined && host.current?.session.decide(index, verdict) === true) {
      await host.settle();
    }
  };
  return vscode.Disposable.from(
    vscode.commands.registerCommand(REVIEW_COMMANDS.acceptHunk, (arg?: Named) => decide(arg, { kind: "accepted" }, "accept")),
    vscode.commands.registerCommand(REVIEW_COMMANDS.rejectHunk, (arg?: Named) => decide(arg, { kind: "rejected" }, "reject")),
    vscode.commands.registerCommand(REVIEW_COMMANDS.rejectHunkWithReason, async (arg?: Named) => {
      const index = target(arg, "reject");
      if (index === undefined) {
        return;
      }
      const reason = await vscode.window.showInputBox({
        title: `Rune: reject hunk ${index + 1}`,
        prompt: "Why? The model is told, and may propose again.",
        placeHolder: "e.g. keep the old name",
        ignoreFocusOut: true,
      });
      if (reason !== undefined) {
        await decide(index, reason.trim() === "" ? { kind: "rejected" } : { kind: "rejected", reason: reason.trim() }, "reject");
      }
    }),
    vscode.commands.registerCommand(REVIEW_COMMANDS.acceptLines, async (arg?: Named) => {
      const index = target(arg, "accept lines of");
      const hunk = index === undefined ? undefined : host.current?.session.hunks[index];
      if (index === undefined || hunk === undefined) {
        return;
      }
      const verdict = await pickLines(host, hunk, index);
      if (verdict !== undefined) {
        await decide(index, verdict, "accept");
      }
    }),
    vscode.commands.registerCommand(REVIEW_COMMANDS.acceptAll, () => decideAll(host, { kind: "accepted" })),
    vscode.commands.registerCommand(REVIEW_COMMANDS.rejectAll, () => decideAll(host, { kind: "rejected" })),
    vscode.commands.registerCommand(REVIEW_COMMANDS.nextHunk, () => {
      move(host, 1);
    }),
    vscode.commands.registerCommand(REVIEW_COMMANDS.previousHunk, () => {
      move(host, -1);
    }),
    vscode.commands.registerCommand(REVIEW_COMMANDS.reveal, () => host.reveal()),
  );
}

/** Accept all / Reject all: from a key only in the editor under review (a lens is in it). */
async function decideAll(host: ReviewHost, verdict: Verdict): Promise<void> {
  const current = host.current;
  if (current === undefined || reviewedEditor(host) === undefined) {
    tellNotHere(host);
    return;
  }
  current.session.decideRest(verdict);
  await host.settle();
}

/** The active editor when it shows the document under review, else undefined. */
function reviewedEditor(host: ReviewHost): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  return editor !== undefined && editor.document === host.current?.document ? editor : undefined;
}

function tellNotHere(host: ReviewHost): void {
  const current = host.current;
  const where = current === undefined ? "" : ` The review is in ${vscode.workspace.asRelativePath(current.document.uri)}.`;
  vscode.window.setStatusBarMessage(`Rune: keys act only on the editor under review; nothing was decided.${where}`, 5_000);
}

/** The hunk a key decides now, or undefined (another editor, nothing below, or revealed first). */
function keyTarget(host: ReviewHost, action: string): number | undefined {
  const current = host.current;
  const editor = reviewedEditor(host);
  if (current === undefined || editor === undefined) {
    tellNotHere(host);
    return undefined;
  }
  const visible = editor.visibleRanges.map((range) => ({ startLine: range.start.line, endLine: range.end.line }));
  const found = current.session.keyTarget(editor.selection.active.line, visible);
  switch (found.kind) {
    case "none":
      vscode.window.setStatusBarMessage(`Rune: ${found.why}; nothing was decided.`, 5_000);
      return undefined;
    case "reveal": {
      const hunk = current.session.hunks[found.index];
      if (hunk !== undefined) {
        select(editor, hunk.span.startLine);
      }
      vscode.window.setStatusBarMessage(`Rune: hunk ${found.index + 1} is shown now; press again to ${action} it.`, 5_000);
      return undefined;
    }
    case "decide":
      return found.index;
  }
}

function move(host: ReviewHost, direction: 1 | -1): void {
  const current = host.current;
  const editor = reviewedEditor(host);
  if (current === undefined || editor === undefined) {
    return;
  }
  const line = current.session.neighbour(editor.selection.active.line, direction);
  if (line !== undefined) {
    select(editor, line);
  }
}

export function select(editor: vscode.TextEditor, line: number): void {
  const position = new vscode.Position(line, 0);
  editor.selection = new vscode.Selection(position, position);
  editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

/**
 * Accept lines…: the hunk's changed lines, numbered as the server numbers them (removed, then
 * added), all ticked; what the ticked ones make of the hunk is the server's answer
 * (`rune/keepLines`), so VS Code and mode B mean the same thing by a line.
 */
async function pickLines(host: ReviewHost, hunk: Hunk, index: number): Promise<Verdict | undefined> {
  const keepLines = host.keepLines;
  if (keepLines === undefined) {
    void vscode.window.showInformationMessage("Rune: this server does not offer per-line accept; accept or reject the hunk.");
    return undefined;
  }
  const show = (line: string) => line.replace(/\r?\n$/u, "") || "(empty line)";
  const items = lineRows(hunk).map((row) => ({
    label: `${row.number}: ${row.sign} ${show(row.text)}`,
    description: row.sign === "-" ? "ticked: removed" : "ticked: added",
    picked: true,
    number: row.number,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: `Rune: the lines of hunk ${index + 1} to take (a ticked - line is removed, a ticked + line is added)`,
    canPickMany: true,
    ignoreFocusOut: true,
  });
  if (picked === undefined) {
    return undefined;
  }
  const lines = picked.map((item) => item.number);
  if (lines.length === 0) {
    return { kind: "rejected" };
  }
  if (lines.length === items.length) {
    return { kind: "accepted" };
  }
  try {
    const text = await keepLines(hunk.oldLines.join(""), hunk.newLines.join(""), lines);
    return { kind: "accepted", lines, text };
  } catch (error) {
    void vscode.window.showErrorMessage(`Rune: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}
