/**
 * The Rune view (a webview in the panel): each run's story, newest first, kept after the run
 * ended. RunTracker feeds it; story.ts renders it.
 */

import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import * as vscode from "vscode";
import { allowedInWorkspace, REVOKE_COMMAND } from "./approval";
import type { RunPrompt } from "./commandText";
import type { RunResult } from "./runResult";
import { allowedHtml, askingHtml, callsOfReceipt, escapeHtml, type RunStory, storyHtml, withResultOutputs, addStreamed } from "./story";

export const RUN_VIEW_ID = "rune.runs";
export const OPEN_RECEIPT_COMMAND = "rune.openReceipt";
/** Runs the view keeps; older ones are in their receipts. */
const KEEP = 20;
/** The streamed text kept per run while it goes (the answer replaces it); its end is what matters. */
const STREAM_KEEP = 20_000;

/** The user's reply to a finished run, posted by the view's reply box. */
export interface Reply {
  readonly story: RunStory;
  readonly text: string;
}

export class RunView implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private readonly stories: RunStory[] = [];
  private nextId = 1;
  private prompt: RunPrompt | undefined;
  private renderTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly registration: vscode.Disposable;
  private readonly replied = new vscode.EventEmitter<Reply>();
  /** Fires when the user replies to a finished run in its reply box. */
  readonly onDidReply = this.replied.event;

  constructor() {
    this.registration = vscode.Disposable.from(
      vscode.window.registerWebviewViewProvider(RUN_VIEW_ID, this, { webviewOptions: { retainContextWhenHidden: true } }),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration("rune.allowedCommands")) {
          this.render();
        }
      }),
    );
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    // Scripts only for the reply boxes: the page's one nonce'd script posts what is typed.
    view.webview.options = { enableScripts: true, enableCommandUris: [OPEN_RECEIPT_COMMAND, REVOKE_COMMAND] };
    view.webview.onDidReceiveMessage((message: unknown) => {
      this.onMessage(message);
    });
    view.onDidDispose(() => {
      if (this.view === view) {
        this.view = undefined;
      }
    });
    this.render();
  }

  private onMessage(message: unknown): void {
    if (typeof message !== "object" || message === null) {
      return;
    }
    const { type, story: id, text } = message as Record<string, unknown>;
    const story = this.stories.find((candidate) => candidate.id === id);
    if (type === "reply" && story !== undefined && typeof text === "string" && text.trim() !== "") {
      this.replied.fire({ story, text: text.trim() });
    }
  }

  start(file: string, task: string, uri?: string, followUpOf?: number): RunStory {
    const story: RunStory = { id: this.nextId++, file, task, steps: [], ...(uri === undefined ? {} : { uri }), ...(followUpOf === undefined ? {} : { followUpOf }) };
    this.stories.unshift(story);
    this.stories.splice(KEEP);
    this.render();
    return story;
  }

  step(story: RunStory, message: string): void {
    if (story.steps.at(-1) !== message) {
      story.steps.push(message);
      this.render();
    }
  }

  /** A piece of the model's visible text as it streams, from the model turn of `step`. */
  streamed(story: RunStory, text: string, step: string | undefined): void {
    addStreamed(story, text, step, STREAM_KEEP);
    // One page per 150 ms at most while text streams, not one per token.
    this.renderTimer ??= setTimeout(() => {
      this.renderTimer = undefined;
      this.render();
    }, 150);
  }

  /** A command waits for the user's answer: shown whole at the top until answered. */
  asking(prompt: RunPrompt): void {
    this.prompt = prompt;
    this.render();
  }

  asked(): void {
    this.prompt = undefined;
    this.render();
  }

  /** The user undid an accepted edit: noted on the newest run (the one that proposed it). */
  undone(label: string): void {
    const story = this.stories[0];
    if (story !== undefined) {
      story.notes = [...(story.notes ?? []), `You undid the accepted edit ${label} (Ctrl+Z); the receipt records the undo.`];
      this.render();
    }
  }

  end(story: RunStory, why: string): void {
    story.ended = why;
    this.render();
  }

  async finish(story: RunStory, result: RunResult): Promise<void> {
    story.result = result;
    if (result.receipt !== null) {
      try {
        story.calls = withResultOutputs(callsOfReceipt(JSON.parse(await readFile(result.receipt, "utf8"))), result);
      } catch {
        // no receipt on disk (yet): the result's own list of calls is shown
      }
    }
    story.answerHtml = await renderMarkdown(result.answer);
    this.render();
  }

  /** Shows the view (the final notification's button, the status bar after a run). */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${RUN_VIEW_ID}.focus`);
  }

  private render(): void {
    const view = this.view;
    if (view === undefined) {
      return;
    }
    const runs =
      this.stories.length === 0
        ? "<p>No runs yet. Select code and run <b>Rune: Fix This</b>.</p>"
        : this.stories.map((story) => storyHtml(story, receiptLink(story.result))).join("\n");
    const asking = this.prompt === undefined ? "" : askingHtml(this.prompt);
    const allowed = allowedHtml(allowedInWorkspace(), (command) => `command:${REVOKE_COMMAND}?${encodeURIComponent(JSON.stringify([command]))}`);
    view.webview.html = page(`${asking}${runs}${allowed}`, randomBytes(16).toString("base64"));
  }

  dispose(): void {
    this.registration.dispose();
    this.replied.dispose();
  }
}

function receiptLink(result: RunResult | undefined): string | undefined {
  if (result?.receipt === null || result === undefined) {
    return undefined;
  }
  return `command:${OPEN_RECEIPT_COMMAND}?${encodeURIComponent(JSON.stringify([result.receipt]))}`;
}

/** VS Code's own Markdown rendering (sanitised); escaped text when that is unavailable. */
async function renderMarkdown(markdown: string): Promise<string> {
  if (markdown.trim() === "") {
    return "";
  }
  try {
    const html = await vscode.commands.executeCommand("markdown.api.render", markdown);
    if (typeof html === "string") {
      return html;
    }
  } catch {
    // the built-in Markdown extension is disabled
  }
  return `<pre>${escapeHtml(markdown)}</pre>`;
}

function page(body: string, nonce: string): string {
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'nonce-${nonce}';">
<style>
  body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); }
  section.run { border-bottom: 1px solid var(--vscode-panel-border); padding-bottom: 0.5em; margin-bottom: 0.5em; }
  h2 { font-size: 1.1em; margin: 0.4em 0; } h3 { font-size: 1em; margin: 0.6em 0 0.2em; }
  .state { font-weight: normal; color: var(--vscode-descriptionForeground); }
  .status { padding: 0 0.4em; border-radius: 3px; background: var(--vscode-badge-background); color: var(--vscode-badge-foreground); }
  .status.applied, .status.ok { background: var(--vscode-testing-iconPassed); }
  .status.rejected, .status.failed, .status.denied, .status.stale { background: var(--vscode-testing-iconFailed); }
  pre.output, pre.streamed, pre.command { background: var(--vscode-textCodeBlock-background); padding: 0.4em; white-space: pre-wrap; overflow-wrap: anywhere; }
  pre.output { max-height: 24em; overflow: auto; }
  section.asking { border: 1px solid var(--vscode-editorWarning-foreground); padding: 0 0.6em; margin-bottom: 0.6em; }
  form.reply { display: flex; gap: 0.4em; margin-top: 0.4em; }
  form.reply textarea { flex: 1; font-family: var(--vscode-font-family); color: var(--vscode-input-foreground); background: var(--vscode-input-background); border: 1px solid var(--vscode-input-border, transparent); }
  form.reply button { color: var(--vscode-button-foreground); background: var(--vscode-button-background); border: none; padding: 0.2em 0.8em; cursor: pointer; }
  .detail { color: var(--vscode-descriptionForeground); }
  .error { color: var(--vscode-errorForeground); }
  .note { color: var(--vscode-editorWarning-foreground); }
  .reason { font-style: italic; }
  code { font-family: var(--vscode-editor-font-family); }
  ul, ol { margin: 0.2em 0; padding-left: 1.4em; }
</style></head><body>${body}
<script nonce="${nonce}">
  const vscode = acquireVsCodeApi();
  for (const form of document.querySelectorAll("form.reply")) {
    const send = () => {
      const text = form.reply.value.trim();
      if (text !== "") {
        vscode.postMessage({ type: "reply", story: Number(form.dataset.story), text });
        form.reply.value = "";
        form.reply.disabled = true;
      }
    };
    form.addEventListener("submit", (event) => { event.preventDefault(); send(); });
    form.reply.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); send(); }
    });
  }
</script></body></html>`;
}
