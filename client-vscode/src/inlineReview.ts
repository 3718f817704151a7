/**
 * Inline review: the server's annotated `workspace/applyEdit` (one pending edit) shown in the
 * document itself, the removed lines marked and the proposed lines beside them, with Accept /
 * Reject per hunk and per edit as CodeLenses and keyboard shortcuts. Nothing changes in the
 * document until every hunk is decided; then exactly the accepted hunks (or lines) are applied
 * and the request is answered, so the server's reconciliation reports what landed. A cancelled
 * request (the run ended) withdraws the review: nothing lands.
 */

import * as vscode from "vscode";
import type { ApplyWorkspaceEditParams, CancellationToken, TextDocumentEdit } from "vscode-languageclient/node";
import {
  afterChange,
  type Answer,
  answerFor,
  changedLines,
  type Hunk,
  isDecided,
  makeHunk,
  replacement,
  type Verdict,
} from "./hunks";

export const REVIEW_CONTEXT = "rune.reviewing";
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

interface Session {
  readonly document: vscode.TextDocument;
  readonly label: string;
  hunks: Hunk[];
  readonly finish: (answer: Answer) => void;
  readonly listeners: { dispose(): unknown }[];
}

export class InlineReviews implements vscode.CodeLensProvider, vscode.Disposable {
  private session: Session | undefined;
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private readonly activeChanged = new vscode.EventEmitter<boolean>();
  /** Fires when a review opens (true) or ends (false): the status bar follows it. */
  readonly onDidChangeActive = this.activeChanged.event;
  private readonly removed = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("diffEditor.removedLineBackground"),
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.deletedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly proposed = vscode.window.createTextEditorDecorationType({});
  private readonly undone = new vscode.EventEmitter<string>();
  /** Fires with the edit's label when the user undid an accepted edit (Ctrl+Z). */
  readonly onDidUndo = this.undone.event;
  private undoWatch: vscode.Disposable | undefined;
  private readonly registrations: vscode.Disposable[];

  constructor(private readonly output: vscode.LogOutputChannel) {
    this.registrations = [
      vscode.languages.registerCodeLensProvider({ scheme: "file" }, this),
      vscode.commands.registerCommand(REVIEW_COMMANDS.acceptHunk, (index?: number) => this.decide(index, { kind: "accepted" })),
      vscode.commands.registerCommand(REVIEW_COMMANDS.rejectHunk, (index?: number) => this.decide(index, { kind: "rejected" })),
      vscode.commands.registerCommand(REVIEW_COMMANDS.rejectHunkWithReason, (index?: number) => this.rejectWithReason(index)),
      vscode.commands.registerCommand(REVIEW_COMMANDS.acceptLines, (index?: number) => this.acceptLines(index)),
      vscode.commands.registerCommand(REVIEW_COMMANDS.acceptAll, () => this.decideAll({ kind: "accepted" })),
      vscode.commands.registerCommand(REVIEW_COMMANDS.rejectAll, () => this.rejectAll()),
      vscode.commands.registerCommand(REVIEW_COMMANDS.nextHunk, () => this.move(1)),
      vscode.commands.registerCommand(REVIEW_COMMANDS.previousHunk, () => this.move(-1)),
      vscode.commands.registerCommand(REVIEW_COMMANDS.reveal, () => this.reveal()),
    ];
  }

  get active(): boolean {
    return this.session !== undefined;
  }

  /** Shows the edit inline and resolves with the answer once the user decided, or withdrawn. */
  async review(target: InlineTarget, token: CancellationToken): Promise<Answer> {
    if (this.session !== undefined) {
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
    return new Promise<Answer>((resolve) => {
      const session: Session = { document, label: target.label, hunks, finish: resolve, listeners: [] };
      session.listeners.push(
        token.onCancellationRequested(() => {
          if (this.session === session) {
            this.withdraw("its run ended");
          }
        }),
        vscode.workspace.onDidChangeTextDocument((event) => {
          if (event.document === document && this.session === session) {
            this.follow(event.contentChanges);
          }
        }),
        vscode.window.onDidChangeVisibleTextEditors(() => {
          this.render();
        }),
      );
      this.session = session;
      void vscode.commands.executeCommand("setContext", REVIEW_CONTEXT, true);
      this.activeChanged.fire(true);
      this.output.info(`inline review of ${target.label}: ${hunks.length} hunk(s)`);
      void this.reveal();
    });
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const session = this.session;
    if (session?.document !== document) {
      return [];
    }
    const lenses: vscode.CodeLens[] = [];
    session.hunks.forEach((hunk, index) => {
      const at = new vscode.Range(hunk.span.startLine, 0, hunk.span.startLine, 0);
      const lens = (title: string, command: string, tooltip: string) =>
        lenses.push(new vscode.CodeLens(at, { title, command, arguments: [index], tooltip }));
      if (index === 0) {
        lens(`Rune: ${session.label.replace(/^rune: /u, "")}`, REVIEW_COMMANDS.reveal, "the proposed edit");
        lens("Accept all", REVIEW_COMMANDS.acceptAll, "accept every hunk of this edit (Ctrl+Alt+Shift+Y)");
        lens("Reject all", REVIEW_COMMANDS.rejectAll, "reject this edit (Ctrl+Alt+Shift+N)");
      }
      const name = `hunk ${index + 1}/${session.hunks.length}`;
      switch (hunk.verdict.kind) {
        case "pending":
          lens(`Accept ${name}`, REVIEW_COMMANDS.acceptHunk, "Ctrl+Alt+Y");
          lens("Reject", REVIEW_COMMANDS.rejectHunk, "Ctrl+Alt+N");
          lens("Reject with reason…", REVIEW_COMMANDS.rejectHunkWithReason, "the model is told why");
          if (changedLines(hunk) > 1) {
            lens("Accept lines…", REVIEW_COMMANDS.acceptLines, "accept only some of this hunk's lines");
          }
          break;
        case "accepted":
          lens(`✓ ${name} accepted${hunk.verdict.lines ? ` (lines ${hunk.verdict.lines.map((l) => l + 1).join(", ")})` : ""}`, REVIEW_COMMANDS.reveal, "applies once every hunk is decided");
          break;
        case "rejected":
          lens(`✗ ${name} rejected${hunk.verdict.reason ? `: ${hunk.verdict.reason}` : ""}`, REVIEW_COMMANDS.reveal, "");
          break;
        case "stale":
          lens(`${name}: you edited it, it will not be applied`, REVIEW_COMMANDS.reveal, "");
          break;
      }
    });
    return lenses;
  }

  private currentIndex(index: number | undefined): number | undefined {
    const session = this.session;
    if (session === undefined) {
      return undefined;
    }
    if (typeof index === "number") {
      return index;
    }
    const editor = vscode.window.activeTextEditor;
    const line = editor?.document === session.document ? editor.selection.active.line : -1;
    const pending = session.hunks.map((hunk, i) => ({ hunk, i })).filter(({ hunk }) => !isDecided(hunk));
    const under = pending.find(({ hunk }) => line >= hunk.span.startLine && line <= Math.max(hunk.span.startLine, hunk.span.endLine - 1));
    return (under ?? pending.find(({ hunk }) => hunk.span.startLine >= line) ?? pending[0])?.i;
  }

  private async decide(index: number | undefined, verdict: Verdict): Promise<void> {
    const session = this.session;
    const at = this.currentIndex(index);
    if (session === undefined || at === undefined) {
      void vscode.window.showInformationMessage("Rune: no proposed hunk to review here.");
      return;
    }
    const hunk = session.hunks[at];
    if (hunk === undefined || hunk.verdict.kind === "stale") {
      return;
    }
    session.hunks = session.hunks.map((h, i) => (i === at ? { ...h, verdict } : h));
    await this.settle(session);
  }

  private async decideAll(verdict: Verdict): Promise<void> {
    const session = this.session;
    if (session === undefined) {
      return;
    }
    session.hunks = session.hunks.map((h) => (isDecided(h) ? h : { ...h, verdict }));
    await this.settle(session);
  }

  private async rejectAll(): Promise<void> {
    await this.decideAll({ kind: "rejected" });
  }

  private async rejectWithReason(index: number | undefined): Promise<void> {
    const at = this.currentIndex(index);
    if (at === undefined) {
      return;
    }
    const reason = await vscode.window.showInputBox({
      title: `Rune: reject hunk ${at + 1}`,
      prompt: "Why? The model is told, and may propose again.",
      placeHolder: "e.g. keep the old name",
      ignoreFocusOut: true,
    });
    if (reason === undefined) {
      return;
    }
    await this.decide(at, reason.trim() === "" ? { kind: "rejected" } : { kind: "rejected", reason: reason.trim() });
  }

  private async acceptLines(index: number | undefined): Promise<void> {
    const at = this.currentIndex(index);
    const hunk = at === undefined ? undefined : this.session?.hunks[at];
    if (at === undefined || hunk === undefined) {
      return;
    }
    const show = (line: string | undefined) => (line === undefined ? "(nothing)" : line.replace(/\r?\n$/u, "").trim() || "(empty line)");
    const items = Array.from({ length: changedLines(hunk) }, (_, line) => ({
      label: `${line + 1}: ${show(hunk.newLines[line])}`,
      description: `was: ${show(hunk.oldLines[line])}`,
      picked: true,
      line,
    }));
    const picked = await vscode.window.showQuickPick(items, {
      title: `Rune: the lines of hunk ${at + 1} to accept`,
      canPickMany: true,
      ignoreFocusOut: true,
    });
    if (picked === undefined) {
      return;
    }
    const lines = picked.map((item) => item.line);
    await this.decide(at, lines.length === 0 ? { kind: "rejected" } : { kind: "accepted", lines });
  }

  /** Re-renders, and once nothing is pending applies what was accepted and answers. */
  private async settle(session: Session): Promise<void> {
    if (!session.hunks.every(isDecided)) {
      this.render();
      void this.move(1);
      return;
    }
    this.end(session);
    const accepted = session.hunks.filter((hunk) => hunk.verdict.kind === "accepted");
    let landed = false;
    if (accepted.length > 0) {
      const edit = new vscode.WorkspaceEdit();
      for (const hunk of accepted) {
        const { span } = hunk;
        const lines = hunk.verdict.kind === "accepted" ? hunk.verdict.lines : undefined;
        const range = new vscode.Range(span.startLine, 0, span.endLine, span.endCharacter);
        edit.replace(session.document.uri, range, replacement(hunk, lines));
      }
      const before = session.document.getText();
      landed = await vscode.workspace.applyEdit(edit);
      if (!landed) {
        this.output.warn(`the accepted hunks of ${session.label} could not be applied`);
      } else {
        this.watchUndo(session.document, before, session.label);
      }
    }
    session.finish(answerFor(session.hunks, landed));
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

  private follow(changes: readonly vscode.TextDocumentContentChangeEvent[]): void {
    const session = this.session;
    if (session === undefined) {
      return;
    }
    // VS Code reports the changes of one event against the text before it, last first.
    for (const change of changes) {
      const { start, end } = change.range;
      session.hunks = session.hunks.map((hunk) =>
        afterChange(hunk, {
          startLine: start.line,
          startCharacter: start.character,
          endLine: end.line,
          endCharacter: end.character,
          text: change.text,
        }),
      );
    }
    this.render();
    this.lensesChanged.fire();
    if (session.hunks.every(isDecided)) {
      void this.settle(session);
    }
  }

  /** The run ended (or a newer proposal replaced this one): nothing lands. */
  withdraw(why: string): void {
    const session = this.session;
    if (session === undefined) {
      return;
    }
    this.end(session);
    session.finish({ applied: false, failureReason: `withdrawn: ${why}` });
    void vscode.window.showInformationMessage(`Rune: the proposed edit (${session.label}) was withdrawn: ${why}. Nothing was applied.`);
  }

  private end(session: Session): void {
    for (const listener of session.listeners) {
      listener.dispose();
    }
    this.session = undefined;
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document === session.document) {
        editor.setDecorations(this.removed, []);
        editor.setDecorations(this.proposed, []);
      }
    }
    this.lensesChanged.fire();
    void vscode.commands.executeCommand("setContext", REVIEW_CONTEXT, false);
    this.activeChanged.fire(false);
  }

  private render(): void {
    const session = this.session;
    if (session === undefined) {
      return;
    }
    const removed: vscode.DecorationOptions[] = [];
    const proposed: vscode.DecorationOptions[] = [];
    for (const [index, hunk] of session.hunks.entries()) {
      if (hunk.verdict.kind === "rejected" || hunk.verdict.kind === "stale") {
        continue;
      }
      const accepted = hunk.verdict.kind === "accepted";
      const hover = hoverFor(hunk, index);
      const first = hunk.span.startLine;
      const oldCount = hunk.oldLines.length;
      const taken = hunk.verdict.kind === "accepted" && hunk.verdict.lines ? new Set(hunk.verdict.lines) : undefined;
      for (let line = 0; line < oldCount; line++) {
        if (!accepted || taken === undefined || taken.has(line)) {
          removed.push({ range: new vscode.Range(first + line, 0, first + line, 0), hoverMessage: hover });
        }
      }
      // Each proposed line beside the line it replaces; extra ones beside the last line.
      const shown = (text: string | undefined) => (text ?? "").replace(/\r?\n$/u, "");
      const beside = (line: number, text: string) => {
        proposed.push({
          range: new vscode.Range(line, Number.MAX_SAFE_INTEGER, line, Number.MAX_SAFE_INTEGER),
          hoverMessage: hover,
          renderOptions: {
            after: {
              contentText: `${accepted ? "✓" : "→"} ${text}`,
              margin: "0 0 0 2em",
              fontStyle: "normal",
              color: new vscode.ThemeColor("editor.foreground"),
              backgroundColor: new vscode.ThemeColor("diffEditor.insertedLineBackground"),
            },
          },
        });
      };
      const newLines = hunk.newLines.map(shown);
      if (oldCount === 0) {
        beside(Math.max(first - 1, 0), `+ ${newLines.join(" ⏎ ")}`);
        continue;
      }
      for (let line = 0; line < oldCount; line++) {
        const last = line === oldCount - 1;
        const text = last ? newLines.slice(line).join(" ⏎ ") : (newLines[line] ?? "");
        beside(first + line, text === "" ? "(removed)" : text);
      }
    }
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document === session.document) {
        editor.setDecorations(this.removed, removed);
        editor.setDecorations(this.proposed, proposed);
      }
    }
    this.lensesChanged.fire();
  }

  /** Moves the cursor to the next (1) or previous (-1) undecided hunk. */
  private async move(direction: 1 | -1): Promise<void> {
    const session = this.session;
    const editor = vscode.window.activeTextEditor;
    if (session === undefined || editor?.document !== session.document) {
      return;
    }
    const line = editor.selection.active.line;
    const starts = session.hunks.filter((hunk) => !isDecided(hunk)).map((hunk) => hunk.span.startLine);
    const target =
      direction === 1
        ? (starts.find((start) => start > line) ?? starts[0])
        : ([...starts].reverse().find((start) => start < line) ?? starts.at(-1));
    if (target !== undefined) {
      select(editor, target);
    }
    await Promise.resolve();
  }

  /** Opens the document under review at its first undecided hunk (the status bar's click). */
  async reveal(): Promise<void> {
    const session = this.session;
    if (session === undefined) {
      return;
    }
    const editor = await vscode.window.showTextDocument(session.document, { preview: false });
    const first = session.hunks.find((hunk) => !isDecided(hunk)) ?? session.hunks[0];
    if (first !== undefined) {
      select(editor, first.span.startLine);
    }
    this.render();
  }

  dispose(): void {
    this.withdraw("the extension stopped");
    for (const registration of this.registrations) {
      registration.dispose();
    }
    this.removed.dispose();
    this.proposed.dispose();
    this.lensesChanged.dispose();
    this.activeChanged.dispose();
    this.undone.dispose();
    this.undoWatch?.dispose();
  }
}

function select(editor: vscode.TextEditor, line: number): void {
  const position = new vscode.Position(line, 0);
  editor.selection = new vscode.Selection(position, position);
  editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

function hoverFor(hunk: Hunk, index: number): vscode.MarkdownString {
  const minus = hunk.oldLines.map((line) => `-${line.replace(/\r?\n$/u, "")}`);
  const plus = hunk.newLines.map((line) => `+${line.replace(/\r?\n$/u, "")}`);
  const markdown = new vscode.MarkdownString(`**Rune: proposed hunk ${index + 1}**\n\n\`\`\`diff\n${[...minus, ...plus].join("\n")}\n\`\`\``);
  return markdown;
}
