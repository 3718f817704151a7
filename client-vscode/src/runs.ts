/**
 * Runs in flight: the `rune.fixThis` requests this window sent, their progress in the status
 * bar, cancelling them, and the notification with the result.
 *
 * Progress: the server creates a work-done progress token per run and reports `step N/M · …`.
 * A `handleWorkDoneProgress` middleware (server.ts) hands those reports here, and the latest
 * message shows in a status bar item that cancels on click.
 */

import { existsSync } from "node:fs";
import * as vscode from "vscode";
import {
  CancellationTokenSource,
  ExecuteCommandRequest,
  LanguageClient,
  type ProgressToken,
  type WorkDoneProgressBegin,
  type WorkDoneProgressEnd,
  type WorkDoneProgressReport,
} from "vscode-languageclient/node";
import type { FixThisArgs } from "./fixArgs";
import { type InlineReviews, REVIEW_COMMANDS } from "./inlineReview";
import type { Reply, RunView } from "./runView";
import type { RunStory } from "./story";
import { runIdFromToken, statusText, statusTooltip } from "./progressText";
import { notificationFor, parseRunResult, receiptCandidates, type RunResult, type Severity } from "./runResult";

export const FIX_THIS = "rune.fixThis";
export const CANCEL = "rune.cancel";
export const RESUME = "rune.resume";
export const CANCEL_RUN_COMMAND = "rune.cancelRun";
export const SHOW_OUTPUT_COMMAND = "rune.showOutput";
const SHOW_RECEIPT = "Show receipt";
const OPEN_VIEW = "Open Rune View";
const SHOW_OUTPUT = "Show Output";

export interface ServerState {
  readonly state: "starting" | "running" | "failed";
  readonly detail: string;
}

const SERVER_ICONS: Record<ServerState["state"], string> = {
  starting: "$(loading~spin)",
  running: "$(hubot)",
  failed: "$(error)",
};

type WorkDone = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

interface InFlight {
  readonly cancel: CancellationTokenSource;
  readonly story: RunStory;
  token?: ProgressToken;
}

export class RunTracker implements vscode.Disposable {
  private readonly inFlight = new Set<InFlight>();
  /** Live progress tokens and their latest message, in order of last update. */
  private readonly progress = new Map<ProgressToken, string | undefined>();
  private readonly status: vscode.StatusBarItem;
  private server: ServerState = { state: "starting", detail: "starting the language server" };
  private readonly reviewWatch: vscode.Disposable;

  constructor(
    private readonly client: () => LanguageClient | undefined,
    private readonly output: vscode.LogOutputChannel,
    private readonly reviews: InlineReviews,
    private readonly view: RunView,
  ) {
    this.status = vscode.window.createStatusBarItem("rune.run", vscode.StatusBarAlignment.Left, 100);
    this.status.name = "Rune";
    this.reviewWatch = vscode.Disposable.from(
      view.onDidReply((reply) => {
        void this.followUp(reply);
      }),
      reviews.onDidChangeActive(() => {
        this.refresh();
      }),
      reviews.onDidUndo((label) => {
        this.view.undone(label);
        void vscode.window.showInformationMessage(
          `Rune: you undid the accepted edit (${label}). The server records the undo in the run's receipt and, while the run goes on, tells the model.`,
        );
      }),
    );
    this.refresh();
  }

  /** Between runs the item shows whether the server is up; a click opens its output. */
  setServerState(server: ServerState): void {
    this.server = server;
    this.refresh();
  }

  /** Sends `rune.fixThis` and reports its result; resolves when the run has ended. */
  fixThis(args: FixThisArgs): Promise<void> {
    return this.execute(FIX_THIS, args, () => this.view.start(fileName(args.uri), args.instruction ?? "", args.uri));
  }

  /**
   * The user replied to a finished run in the Rune view: the same conversation goes on as a
   * new run that starts from the first one's transcript (`rune.fixThis` with `continues`,
   * /work/notes/vscode-protocol.md "Follow-up turn"), with a budget of its own as large.
   */
  followUp(reply: Reply): Promise<void> {
    const { story, text } = reply;
    const runId = story.result?.runId;
    if (story.uri === undefined || runId === undefined) {
      return Promise.resolve();
    }
    const args = { uri: story.uri, instruction: text, continues: runId };
    return this.execute(FIX_THIS, args, () => this.view.start(story.file, text, story.uri, story.id));
  }

  resume(args: unknown): Promise<void> {
    return this.execute(RESUME, args, () => this.view.start("resumed run", "continue an interrupted run"));
  }

  /** The model's text streaming in (`rune/modelText {token, text, step}`), to its run's story. */
  onModelText(token: ProgressToken, text: string, step: string | undefined): void {
    const run = this.runOf(token);
    if (run !== undefined && text !== "") {
      this.view.streamed(run.story, text, step);
    }
  }

  private async execute(command: string, argument: unknown, story: () => RunStory): Promise<void> {
    const client = this.client();
    if (client === undefined || !client.isRunning()) {
      await this.showError("Rune: the language server is not running. Check the output, or run Rune: Restart Server.");
      return;
    }
    const run: InFlight = { cancel: new CancellationTokenSource(), story: story() };
    this.inFlight.add(run);
    this.refresh();
    let result: RunResult;
    try {
      const raw: unknown = await client.sendRequest(
        ExecuteCommandRequest.type,
        { command, arguments: [argument] },
        run.cancel.token,
      );
      result = parseRunResult(raw);
    } catch (error) {
      if (run.cancel.token.isCancellationRequested) {
        this.view.end(run.story, "cancelled");
        void vscode.window.showInformationMessage("Rune run cancelled.");
      } else {
        this.view.end(run.story, `failed: ${describe(error)}`);
        this.output.appendLine(`${command} failed: ${describe(error)}`);
        void this.showError(`Rune: ${describe(error)}`);
      }
      return;
    } finally {
      // The run is over once its answer is in, whether or not anyone reads the notification.
      this.inFlight.delete(run);
      run.cancel.dispose();
      this.refresh();
    }
    await this.view.finish(run.story, result);
    await this.report(result);
  }

  /**
   * Cancels every run of this window: the request's own cancellation (`$/cancelRequest`, which
   * the server honours), plus `rune.cancel` for the run ids the progress tokens name.
   */
  async cancelAll(): Promise<number> {
    const runs = [...this.inFlight];
    const client = this.client();
    const runIds = [...this.progress.keys()].map(runIdFromToken).filter((id) => id !== undefined);
    for (const run of runs) {
      run.cancel.cancel();
    }
    if (client?.isRunning() === true) {
      await Promise.all(
        runIds.map((runId) =>
          client
            .sendRequest(ExecuteCommandRequest.type, { command: CANCEL, arguments: [{ runId }] })
            .catch((error: unknown) => {
              this.output.appendLine(`rune.cancel ${runId}: ${describe(error)}`);
            }),
        ),
      );
    }
    return runs.length;
  }

  /** Mirrors a work-done progress notification into the status bar (client.ts middleware). */
  onProgress(token: ProgressToken, value: WorkDone): void {
    const run = this.runOf(token);
    if (value.kind === "end") {
      this.progress.delete(token);
    } else {
      if (run !== undefined && value.message !== undefined) {
        this.view.step(run.story, value.message);
      }
      // Re-insert so the most recently updated run is the one the status bar shows.
      this.progress.delete(token);
      this.progress.set(token, value.message ?? this.progress.get(token));
    }
    this.refresh();
  }

  /** The run a progress token reports on: a new token belongs to the newest run without one. */
  private runOf(token: ProgressToken): InFlight | undefined {
    const runs = [...this.inFlight];
    const known = runs.find((run) => run.token === token);
    if (known !== undefined) {
      return known;
    }
    const fresh = runs.reverse().find((run) => run.token === undefined);
    if (fresh !== undefined) {
      fresh.token = token;
    }
    return fresh;
  }

  /** The server went away: its progress tokens will never end. */
  forgetProgress(): void {
    this.progress.clear();
    this.refresh();
  }

  private refresh(): void {
    const busy = this.inFlight.size + this.progress.size;
    if (busy === 0) {
      this.status.text = `${SERVER_ICONS[this.server.state]} Rune`;
      this.status.tooltip = `Rune: ${this.server.detail}. Click to show the output.`;
      this.status.command = SHOW_OUTPUT_COMMAND;
      this.status.backgroundColor =
        this.server.state === "failed" ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
    } else {
      const latest = [...this.progress.values()].at(-1);
      this.status.text = `$(sync~spin) ${statusText(latest)}`;
      // While an edit waits for review a click takes the user there; Rune: Cancel Run cancels.
      if (this.reviews.active) {
        this.status.tooltip = "Rune: an edit waits for your review. Click to show it.";
        this.status.command = REVIEW_COMMANDS.reveal;
      } else {
        this.status.tooltip = statusTooltip(latest, Math.max(this.inFlight.size, this.progress.size));
        this.status.command = CANCEL_RUN_COMMAND;
      }
      this.status.backgroundColor = undefined;
    }
    this.status.show();
  }

  private async report(result: RunResult): Promise<void> {
    const note = notificationFor(result);
    this.output.appendLine(`run ${result.runId}: ${result.outcome}; receipt ${result.receipt ?? "none"}`);
    const actions = note.hasReceipt ? [OPEN_VIEW, SHOW_RECEIPT] : [OPEN_VIEW];
    const choice = await notify(note.severity, note.text, actions);
    if (choice === SHOW_RECEIPT && result.receipt !== null) {
      await openReceipt(result.receipt);
    } else if (choice === OPEN_VIEW) {
      await this.view.reveal();
    }
  }

  private async showError(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, SHOW_OUTPUT);
    if (choice === SHOW_OUTPUT) {
      this.output.show();
    }
  }

  dispose(): void {
    for (const run of this.inFlight) {
      run.cancel.cancel();
    }
    this.status.dispose();
    this.reviewWatch.dispose();
  }
}

function fileName(uri: string): string {
  return vscode.Uri.parse(uri).path.split("/").at(-1) ?? uri;
}

export async function openReceipt(receipt: string): Promise<void> {
  const found = receiptCandidates(receipt).find((candidate) => existsSync(candidate));
  if (found === undefined) {
    void vscode.window.showWarningMessage(`Rune: the receipt ${receipt} is no longer there.`);
    return;
  }
  const document = await vscode.workspace.openTextDocument(vscode.Uri.file(found));
  await vscode.window.showTextDocument(document, { preview: true });
}

function notify(severity: Severity, text: string, actions: string[]): Thenable<string | undefined> {
  switch (severity) {
    case "info":
      return vscode.window.showInformationMessage(text, ...actions);
    case "warning":
      return vscode.window.showWarningMessage(text, ...actions);
    case "error":
      return vscode.window.showErrorMessage(text, ...actions);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
