/**
 * Inline review: the server's annotated `workspace/applyEdit` (one pending edit) reviewed in the
 * document itself. This module holds a review's lifetime: it opens one (review/session.ts holds
 * its state), follows the user's typing, and once every hunk is decided applies exactly the
 * accepted hunks (or lines) and answers the request, so the server's reconciliation reports what
 * landed; a cancelled request (the run ended) withdraws it and nothing lands. How it looks is
 * review/render.ts; its commands and keys are review/commands.ts.
 */

import * as vscode from "vscode";
import type { ApplyWorkspaceEditParams, CancellationToken, TextDocumentEdit } from "vscode-languageclient/node";
import { type Answer, makeHunk } from "./hunks";
import { REVIEW_COMMANDS, REVIEW_CONTEXT, REVIEWED_RESOURCES, type ReviewHost, registerReviewCommands, select } from "./review/commands";
import { ReviewRenderer } from "./review/render";
import { ReviewSession } from "./review/session";

export { REVIEW_COMMANDS } from "./review/commands";

/** The server's per-line accept (`rune/keepLines`): the text the chosen lines make of a hunk. */
export type KeepLines = (oldText: string, newText: string, lines: readonly number[]) => Promise<string>;

/** What an inline review needs from the applyEdit: one existing file's annotated hunks. */
export interface InlineTarget {
  readonly uri: string;
  readonly version: number | null;
  readonly label: string;
  readonly edits: readonly { readonly range: TextDocumentEdit["edits"][number]["range"]; readonly newText: string }[];
}

/**
 * The edit as an inline review, or undefined for what only the Refactor Preview shows (a new
 * file, several documents, an edit without change annotations, a hunk not on line starts).
 */
export function inlineTarget(params: ApplyWorkspaceEditParams): InlineTarget | undefined {
  const changes = params.edit.documentChanges;
  if (changes?.length !== 1) {
    return undefined;
  }
  const [change] = changes;
  if (change === undefined || !("textDocument" in change) || !("edits" in change)) {
    return undefined;
  }
  const edits = change.edits.flatMap((edit) =>
    "annotationId" in edit && "newText" in edit && edit.range.start.character === 0
      ? [{ range: edit.range, newText: edit.newText }]
      : [],
  );
  if (edits.length === 0 || edits.length !== change.edits.length || !change.textDocument.uri.startsWith("file:")) {
    return undefined;
  }
  return { uri: change.textDocument.uri, version: change.textDocument.version, label: params.label ?? "Rune", edits };
}

interface Open {
  readonly document: vscode.TextDocument;
  readonly session: ReviewSession;
  readonly finish: (answer: Answer) => void;
  readonly listeners: { dispose(): unknown }[];
}

export class InlineReviews implements ReviewHost, vscode.Disposable {
  private open: Open | undefined;
  private readonly activeChanged = new vscode.EventEmitter<boolean>();
  /** Fires when a review opens (true) or ends (false): the status bar follows it. */
  readonly onDidChangeActive = this.activeChanged.event;
  private readonly undone = new vscode.EventEmitter<string>();
  /** Fires with the edit's label when the user undid an accepted edit (Ctrl+Z). */
  readonly onDidUndo = this.undone.event;
  private undoWatch: vscode.Disposable | undefined;
  private readonly renderer = new ReviewRenderer(REVIEW_COMMANDS);
  private readonly registrations: vscode.Disposable;
  /** Set by the server controller while its server offers `rune/keepLines`. */
  keepLines: KeepLines | undefined;

  constructor(private readonly output: vscode.LogOutputChannel) {
    this.registrations = registerReviewCommands(this);
  }

  get active(): boolean {
    return this.open !== undefined;
  }

  get current(): { readonly document: vscode.TextDocument; readonly session: ReviewSession } | undefined {
    return this.open;
  }

  indexOf(thread: vscode.CommentThread): number | undefined {
    return this.renderer.indexOf(thread);
  }

  /** Shows the edit inline and resolves with the answer once the user decided, or withdrawn. */
  async review(target: InlineTarget, token: CancellationToken): Promise<Answer> {
    if (this.open !== undefined) {
      this.withdraw("a newer proposal arrived");
    }
    const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(target.uri));
    if (target.version !== null && target.version !== document.version) {
      return { applied: false }; // proposed for an older text: the server reports it stale
    }
    if (token.isCancellationRequested) {
      return { applied: false, failureReason: "withdrawn: the run ended" };
    }
    const hunks = target.edits.map((edit) => {
      const range = new vscode.Range(edit.range.start.line, 0, edit.range.end.line, edit.range.end.character);
      const span = { startLine: range.start.line, endLine: range.end.line, endCharacter: range.end.character };
      return makeHunk(span, document.getText(range), edit.newText);
    });
    const session = new ReviewSession(target.label, hunks);
    return new Promise<Answer>((resolve) => {
      const open: Open = { document, session, finish: resolve, listeners: [] };
      open.listeners.push(
        token.onCancellationRequested(() => {
          if (this.open === open) {
            this.withdraw("its run ended");
          }
        }),
        vscode.workspace.onDidChangeTextDocument((event) => {
          if (event.document === document && this.open === open) {
            this.follow(open, event.contentChanges);
          }
        }),
        vscode.window.onDidChangeVisibleTextEditors(() => {
          this.renderer.render();
        }),
      );
      this.open = open;
      void vscode.commands.executeCommand("setContext", REVIEW_CONTEXT, true);
      // `resourcePath`, not `resource`: in a remote workbench (code-server) the latter is a
      // vscode-remote: URI while the extension sees file:.
      void vscode.commands.executeCommand("setContext", REVIEWED_RESOURCES, [document.uri.path, document.uri.fsPath]);
      this.activeChanged.fire(true);
      void this.reveal().then((ms) => {
        // The time to draw every hunk (decorations, zones, lenses): README's measurement.
        this.output.info(`inline review of ${target.label}: ${hunks.length} hunk(s), drawn in ${ms.toFixed(1)} ms`);
      });
    });
  }

  /** Re-renders, and once nothing is pending applies what was accepted and answers. */
  async settle(): Promise<void> {
    const open = this.open;
    if (open === undefined) {
      return;
    }
    if (!open.session.done) {
      this.renderer.render();
      const editor = vscode.window.activeTextEditor;
      const next = editor?.document === open.document ? open.session.neighbour(editor.selection.active.line, 1) : undefined;
      if (editor !== undefined && next !== undefined) {
        select(editor, next);
      }
      return;
    }
    this.end(open);
    const landings = open.session.landings();
    let landed = false;
    if (landings.length > 0) {
      const edit = new vscode.WorkspaceEdit();
      for (const landing of landings) {
        edit.replace(open.document.uri, new vscode.Range(landing.startLine, 0, landing.endLine, landing.endCharacter), landing.text);
      }
      const before = open.document.getText();
      landed = await vscode.workspace.applyEdit(edit);
      if (!landed) {
        this.output.warn(`the accepted hunks of ${open.session.label} could not be applied`);
      } else {
        this.watchUndo(open.document, before, open.session.label);
      }
    }
    open.finish(open.session.answer(landed));
  }

  /**
   * Ctrl+Z right after an accepted edit takes it back out of the buffer. The server sees the
   * text return and records the undo (server/undo.py); the user is told where they look (the
   * Rune view, a notification), until the document is next edited some other way.
   */
  private watchUndo(document: vscode.TextDocument, before: string, label: string): void {
    this.undoWatch?.dispose();
    const watch = vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.document !== document || event.contentChanges.length === 0) {
        return;
      }
      if (event.reason === vscode.TextDocumentChangeReason.Undo && document.getText() === before) {
        this.undone.fire(label);
      }
      if (event.reason !== vscode.TextDocumentChangeReason.Redo) {
        watch.dispose();
      }
    });
    this.undoWatch = watch;
  }

  private follow(open: Open, changes: readonly vscode.TextDocumentContentChangeEvent[]): void {
    open.session.follow(
      changes.map((change) => ({
        startLine: change.range.start.line,
        startCharacter: change.range.start.character,
        endLine: change.range.end.line,
        endCharacter: change.range.end.character,
        text: change.text,
      })),
    );
    // Typing only redraws (the cursor stays where the user types); once typing made the last
    // pending hunk stale, the review is over and answers.
    if (open.session.done) {
      void this.settle();
    } else {
      this.renderer.render();
    }
  }

  /** The run ended (or a newer proposal replaced this one): nothing lands. */
  withdraw(why: string): void {
    const open = this.open;
    if (open === undefined) {
      return;
    }
    this.end(open);
    open.finish({ applied: false, failureReason: `withdrawn: ${why}` });
    void vscode.window.showInformationMessage(`Rune: the proposed edit (${open.session.label}) was withdrawn: ${why}. Nothing was applied.`);
  }

  private end(open: Open): void {
    for (const listener of open.listeners) {
      listener.dispose();
    }
    this.open = undefined;
    this.renderer.clear();
    void vscode.commands.executeCommand("setContext", REVIEW_CONTEXT, false);
    void vscode.commands.executeCommand("setContext", REVIEWED_RESOURCES, []);
    this.activeChanged.fire(false);
  }

  /**
   * Opens the document under review at its first undecided hunk (the status bar's click) and
   * draws the review; resolves with the milliseconds the drawing took.
   */
  async reveal(): Promise<number> {
    const open = this.open;
    if (open === undefined) {
      return 0;
    }
    const editor = await vscode.window.showTextDocument(open.document, { preview: false });
    const first = open.session.firstPending();
    if (first !== undefined) {
      select(editor, first.span.startLine);
    }
    return this.renderer.show(open.document, open.session, this.keepLines !== undefined);
  }

  dispose(): void {
    this.withdraw("the extension stopped");
    this.registrations.dispose();
    this.renderer.dispose();
    this.activeChanged.dispose();
    this.undone.dispose();
    this.undoWatch?.dispose();
  }
}
