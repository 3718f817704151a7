/**
 * Starting, stopping and restarting the language server, and the middleware that connects it to
 * the run tracker. Discovery runs on every start, so a newly selected interpreter takes effect on
 * `Rune: Restart Server`; a changed `rune.server.path` or `rune.server.args` restarts the server
 * by itself (`settingsChanged`).
 */

import { createInterface } from "node:readline";
import * as vscode from "vscode";
import {
  ApplyWorkspaceEditRequest,
  ExecuteCommandRequest,
  type MessageActionItem,
  MessageType,
  ShowMessageRequest,
  type ShowMessageRequestParams,
  type ApplyWorkspaceEditParams,
  type ApplyWorkspaceEditResult,
  type CancellationToken,
  type ClientCapabilities,
  type FeatureState,
  LanguageClient,
  type LanguageClientOptions,
  type Middleware,
  ResponseError,
  type ServerOptions,
  State,
  type StaticFeature,
  TransportKind,
} from "vscode-languageclient/node";
import { offersFixThis } from "./codeActions";
import { decideServer, describeLaunch, type ServerLaunch, startFailure } from "./discovery";
import { asFixThisArgs } from "./fixArgs";
import { type InlineReviews, type InlineTarget, inlineTarget, type KeepLines } from "./inlineReview";
import { approveCommand, askToRun } from "./approval";
import { parseRunPrompt } from "./commandText";
import { askInstruction } from "./instruction";
import type { RunView } from "./runView";
import { FIX_THIS, RESUME, type RunTracker } from "./runs";
import { gatherFacts } from "./serverFacts";
import { levelReader } from "./serverLog";
import { launchChanged, type LaunchSettings, serverSettings } from "./settings";

const OPEN_SETTINGS = "Open Settings";
/** The server asks this before running `rune.checkCommand`, so the check sees accepted edits. */
const SAVE_DOCUMENTS = "rune/saveDocuments";
/** The server's per-line accept of a hunk (review/hunks.py keep_lines), a workspace/executeCommand. */
const KEEP_LINES = "rune.keepLines";
/** The server asks this client to approve a command (advertised `runeCommandApproval`). */
const APPROVE_COMMAND = "rune/approveCommand";

/** The server streams the model's visible text to a client that asks (`runeModelText`). */
const MODEL_TEXT = "rune/modelText";

/**
 * Advertises `experimental.runeSaveDocuments` (this client saves documents when asked),
 * `runeModelText` (it shows the model's text as it streams) and `runeCommandApproval` (it answers
 * `rune/approveCommand`).
 */
class RuneFeatures implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    // `experimental` is typed `any` by the protocol; only an object can be extended.
    const current: unknown = capabilities.experimental;
    const experimental = typeof current === "object" && current !== null ? current : {};
    capabilities.experimental = { ...experimental, runeSaveDocuments: true, runeModelText: true, runeCommandApproval: true };
  }
  getState(): FeatureState {
    return { kind: "static" };
  }
  initialize(): void {}
  clear(): void {}
}

async function saveDocuments(params: { uris?: unknown }): Promise<{ saved: string[] }> {
  const wanted = new Set(Array.isArray(params.uris) ? params.uris.map(String) : []);
  const saved: string[] = [];
  for (const document of vscode.workspace.textDocuments) {
    const uri = document.uri.toString();
    if (wanted.has(uri) && document.isDirty && (await document.save())) {
      saved.push(uri);
    }
  }
  return { saved };
}
const SHOW_OUTPUT = "Show Output";

export class ServerController implements vscode.Disposable {
  private current: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  /** The launch settings the server was last started with. */
  private launched: LaunchSettings | undefined;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly tracker: RunTracker,
    private readonly reviews: InlineReviews,
    private readonly view: RunView,
  ) {}

  get client(): LanguageClient | undefined {
    return this.current;
  }

  start(): Promise<void> {
    this.starting ??= this.startOnce().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  async restart(): Promise<void> {
    await this.starting;
    await this.stop();
    await this.start();
  }

  /**
   * `rune.server.*` changed: read it again, and start the server again when the path or the
   * arguments differ from what it runs with (or it is not running). Nothing asks the user first:
   * they just said which server they want.
   */
  async settingsChanged(): Promise<void> {
    await this.starting;
    const now = readLaunchSettings();
    if (!launchChanged(this.launched, now, this.current?.isRunning() === true)) {
      return;
    }
    this.output.info(`rune.server settings changed (path ${now.path === "" ? "unset" : now.path}); restarting the server`);
    await this.restart();
  }

  async stop(): Promise<void> {
    const client = this.current;
    this.current = undefined;
    this.tracker.forgetProgress();
    if (client === undefined) {
      return;
    }
    try {
      if (client.isRunning()) {
        await client.stop(5_000);
      }
    } catch (error) {
      this.output.appendLine(`stopping the server: ${String(error)}`);
    }
    await client.dispose();
  }

  private async startOnce(): Promise<void> {
    this.tracker.setServerState({ state: "starting", detail: "starting the language server" });
    this.launched = readLaunchSettings();
    const facts = await gatherFacts((line) => {
      this.output.appendLine(line);
    });
    const decision = decideServer(facts);
    if (decision.kind === "failure") {
      this.output.appendLine(decision.message);
      this.tracker.setServerState({ state: "failed", detail: decision.message });
      void this.complain(decision.message);
      return;
    }
    this.output.appendLine(`starting ${describeLaunch(decision)}`);
    const client = new LanguageClient("rune", "Rune", serverOptions(decision), this.clientOptions());
    client.registerFeature(new RuneFeatures());
    client.onRequest(SAVE_DOCUMENTS, saveDocuments);
    client.onNotification(MODEL_TEXT, (params: { token?: unknown; text?: unknown; step?: unknown }) => {
      if ((typeof params.token === "string" || typeof params.token === "number") && typeof params.text === "string") {
        this.tracker.onModelText(params.token, params.text, typeof params.step === "string" ? params.step : undefined);
      }
    });
    // Replaces the language client's own applyEdit handler (registered before this one), for
    // the cancellation token: the server withdraws a dead run's proposal with $/cancelRequest.
    client.onRequest(ApplyWorkspaceEditRequest.type, (params, token) => this.applyEdit(client, params, token));
    client.onRequest(ShowMessageRequest.type, (params, token) => askUser(params, token, this.output, this.view));
    client.onRequest(APPROVE_COMMAND, (params: unknown, token: CancellationToken) => approveCommand(params, token, this.output, this.view));
    this.current = client;
    client.onDidChangeState(({ newState }) => {
      if (this.current === client) {
        this.tracker.setServerState(
          newState === State.Running
            ? { state: "running", detail: `server running: ${describeLaunch(decision)}` }
            : newState === State.Starting
              ? { state: "starting", detail: "starting the language server" }
              : { state: "failed", detail: "the server stopped; run Rune: Restart Server" },
        );
      }
    });
    try {
      await client.start();
      this.reviews.keepLines = keepLinesOf(client);
    } catch (error) {
      this.current = undefined;
      this.tracker.setServerState({ state: "failed", detail: `the server did not start: ${String(error)}` });
      const message = startFailure(decision, String(error));
      this.output.appendLine(message);
      void this.complain(message);
      await client.dispose().catch(() => undefined);
    }
  }

  private clientOptions(): LanguageClientOptions {
    return {
      documentSelector: [{ scheme: "file" }],
      outputChannel: this.output,
      // The language client logs every stderr line as an error; the server labels its levels.
      stdioOptions: {
        stdout: (input, channel) => {
          createInterface({ input, crlfDelay: Infinity }).on("line", (line) => {
            channel.info(line);
          });
        },
        stderr: (input, channel) => {
          const level = levelReader();
          createInterface({ input, crlfDelay: Infinity }).on("line", (line) => {
            channel[level(line)](line);
          });
        },
      },
      synchronize: { configurationSection: "rune" },
      middleware: this.middleware(),
    };
  }

  private middleware(): Middleware {
    const tracker = this.tracker;
    return {
      // The server's own `Rune: Fix this` code action carries `rune.fixThis`: route it through the
      // tracker so it gets the instruction prompt, progress, cancelling and the result.
      executeCommand: async (command, args, next) => {
        if (command === FIX_THIS) {
          const fixArgs = asFixThisArgs(args[0]);
          if (fixArgs === undefined) {
            const answer: unknown = await next(command, args);
            return answer;
          }
          const instruction = await askInstruction();
          if (instruction === undefined) {
            return undefined;
          }
          void tracker.fixThis(instruction === "" ? fixArgs : { ...fixArgs, instruction });
          return undefined;
        }
        if (command === RESUME) {
          void tracker.resume(args[0]);
          return undefined;
        }
        const answer: unknown = await next(command, args);
        return answer;
      },
      // The server offers Rune: Fix this on any range; keep it where it is useful.
      provideCodeActions: async (document, range, context, token, next) => {
        const actions = await next(document, range, context, token);
        const place = {
          scheme: document.uri.scheme,
          path: document.uri.path,
          emptyRange: range.isEmpty,
          diagnostics: context.diagnostics.filter((d) => d.source !== "rune").length,
        };
        if (actions === null || actions === undefined || offersFixThis(place)) {
          return actions;
        }
        return actions.filter((action) => {
          const command = action instanceof vscode.CodeAction ? action.command?.command : action.command;
          return command !== FIX_THIS;
        });
      },
      // The status bar item replaces the language client's own window progress, which would
      // show the same text a second time and, in the status bar, cannot cancel. `end` still goes
      // through so the client releases the token.
      handleWorkDoneProgress: (token, params, next) => {
        tracker.onProgress(token, params);
        if (params.kind === "end") {
          next(token, params);
        }
      },
      workspace: {
        configuration: async (params, token, next) => {
          const answer = await next(params, token);
          if (answer instanceof ResponseError || !Array.isArray(answer)) {
            return answer;
          }
          return answer.map((value: unknown, index) =>
            params.items[index]?.section === "rune" ? serverSettings(value, userSet) : value,
          );
        },
        // Ask the server to pull (`settings: null`) rather than pushing the raw section: the
        // pull goes through `configuration` above, which cleans it. A change of rune.server.*
        // restarts the server (settingsChanged), and this client may be stopping meanwhile:
        // the next server reads the settings when it starts, so that is no error to show.
        didChangeConfiguration: async (_sections, next) => {
          try {
            await next(undefined);
          } catch (error) {
            this.output.info(`the settings change was not sent: ${String(error)}`);
          }
        },
      },
    };
  }

  /**
   * A pending edit: inline in the document (`rune.review.mode` inline, the default) when it is
   * one existing file's hunks, else VS Code's Refactor Preview. Either way a withdrawn request
   * (its run ended) takes the proposal away: the inline review ends, the preview is discarded.
   */
  private async applyEdit(
    client: LanguageClient,
    params: ApplyWorkspaceEditParams,
    token: CancellationToken,
  ): Promise<ApplyWorkspaceEditResult> {
    const mode = vscode.workspace.getConfiguration("rune").get<string>("review.mode", "inline");
    const target = inlineTarget(params);
    if (mode !== "preview" && target !== undefined) {
      return this.reviews.review(target, token);
    }
    const converted = target === undefined ? await client.protocol2CodeConverter.asWorkspaceEdit(params.edit) : tickedPreview(target);
    if (!versionsMatch(client, params)) {
      return { applied: false };
    }
    const discard = token.onCancellationRequested(() => {
      this.output.info(`withdrawing the Refactor Preview of ${params.label ?? "an edit"}: its run ended`);
      void vscode.commands.executeCommand("refactorPreview.discard").then(undefined, (error: unknown) => {
        this.output.warn(`could not discard the Refactor Preview: ${String(error)}`);
      });
    });
    try {
      const applied = await vscode.workspace.applyEdit(converted, { isRefactoring: params.metadata?.isRefactoring });
      if (applied && token.isCancellationRequested) {
        this.output.warn(`${params.label ?? "an edit"} was applied after its run ended; the server records it`);
      }
      return { applied };
    } finally {
      discard.dispose();
    }
  }

  private async complain(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, OPEN_SETTINGS, SHOW_OUTPUT);
    if (choice === OPEN_SETTINGS) {
      await vscode.commands.executeCommand("workbench.action.openSettings", "rune.server");
    } else if (choice === SHOW_OUTPUT) {
      this.output.show();
    }
  }

  dispose(): void {
    void this.stop();
  }
}

function readLaunchSettings(): LaunchSettings {
  const config = vscode.workspace.getConfiguration("rune.server");
  const args = config.get<unknown[]>("args", []);
  return { path: config.get<string>("path", "").trim(), args: args.filter((a): a is string => typeof a === "string") };
}

/** Whether the user set `rune.KEY` in any scope (not just left it at its default). */
function userSet(key: string): boolean {
  const seen = vscode.workspace.getConfiguration("rune").inspect(key);
  return (
    seen !== undefined &&
    [seen.globalValue, seen.workspaceValue, seen.workspaceFolderValue].some((v) => v !== undefined)
  );
}

/**
 * `window/showMessageRequest`. The server's approval of a command goes to approval.ts (a quick
 * pick the server's cancellation closes, the whole command in the Rune view); any other request
 * is a notification with its buttons, as the language client does.
 */
async function askUser(
  params: ShowMessageRequestParams,
  token: CancellationToken,
  output: vscode.LogOutputChannel,
  view: RunView,
): Promise<MessageActionItem | null> {
  const actions = params.actions ?? [];
  const prompt = parseRunPrompt(params.message);
  if (prompt !== undefined) {
    return askToRun(prompt, actions, token, view, output);
  }
  const show =
    params.type === MessageType.Error
      ? vscode.window.showErrorMessage
      : params.type === MessageType.Warning
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  const chosen = await show(params.message, ...actions.map((action) => action.title));
  return actions.find((action) => action.title === chosen) ?? null;
}

/**
 * One file's hunks for the Refactor Preview, starting ticked: VS Code ticks an edit whose
 * annotation does not need confirmation, and opens the preview only when some edit does, so the
 * hunks go under `needsConfirmation: false` and one empty insertion carries the confirmation.
 * Applying it changes nothing; leaving it unticked changes nothing either.
 */
function tickedPreview(target: InlineTarget): vscode.WorkspaceEdit {
  const edit = new vscode.WorkspaceEdit();
  const uri = vscode.Uri.parse(target.uri);
  for (const hunk of target.edits) {
    const range = new vscode.Range(hunk.range.start.line, hunk.range.start.character, hunk.range.end.line, hunk.range.end.character);
    edit.replace(uri, range, hunk.newText, { needsConfirmation: false, label: `${target.label}: the proposed hunks (untick one to leave it out)` });
  }
  edit.insert(uri, new vscode.Position(0, 0), "", {
    needsConfirmation: true,
    label: "Rune: review, then Apply (this entry changes nothing)",
  });
  return edit;
}

/** The language client's own check: an edit for an older version of an open document fails. */
function versionsMatch(client: LanguageClient, params: ApplyWorkspaceEditParams): boolean {
  const open = new Map(vscode.workspace.textDocuments.map((document) => [document.uri.toString(), document]));
  for (const change of params.edit.documentChanges ?? []) {
    if ("textDocument" in change && change.textDocument.version !== null && change.textDocument.version >= 0) {
      const document = open.get(client.protocol2CodeConverter.asUri(change.textDocument.uri).toString());
      if (document !== undefined && document.version !== change.textDocument.version) {
        return false;
      }
    }
  }
  return true;
}

/**
 * Per-line accept as the server decides it (`rune/keepLines`, /work/notes/vscode-protocol.md A):
 * the text the chosen lines (numbered as in mode B) make of a hunk. Undefined when the server
 * does not offer it: then the client offers no per-line accept rather than a rule of its own.
 */
function keepLinesOf(client: LanguageClient): KeepLines | undefined {
  const offered = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
  if (!offered.includes(KEEP_LINES)) {
    return undefined;
  }
  return async (oldText, newText, lines) => {
    const answer: unknown = await client.sendRequest(ExecuteCommandRequest.type, {
      command: KEEP_LINES,
      arguments: [{ oldText, newText, lines }],
    });
    const text = typeof answer === "object" && answer !== null ? (answer as { text?: unknown }).text : undefined;
    if (typeof text !== "string") {
      throw new Error(`${KEEP_LINES}: expected {text: string}, got ${JSON.stringify(answer)}`);
    }
    return text;
  };
}

function serverOptions(launch: ServerLaunch): ServerOptions {
  return {
    command: launch.command,
    args: [...launch.args],
    transport: TransportKind.stdio,
  };
}
