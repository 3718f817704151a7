/** Activation: the commands, the server, and its restart when its launch settings change. */

import * as vscode from "vscode";
import { REVOKE_COMMAND, revokeAllowed } from "./approval";
import { buildFixArgs, effectiveRange } from "./fixArgs";
import { InlineReviews } from "./inlineReview";
import { askInstruction } from "./instruction";
import { CANCEL_RUN_COMMAND, openReceipt, RunTracker, SHOW_OUTPUT_COMMAND } from "./runs";
import { OPEN_RECEIPT_COMMAND, RunView } from "./runView";
import { ServerController } from "./server";
import { needsRestart } from "./settings";

export const FIX_THIS_COMMAND = "rune.fixThisInteractive";
export const RESTART_COMMAND = "rune.restartServer";
export const SHOW_RUNS_COMMAND = "rune.showRuns";

let controller: ServerController | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel("Rune", { log: true });
  const reviews = new InlineReviews(output);
  const view = new RunView();
  const tracker = new RunTracker(() => controller?.client, output, reviews, view);
  const server = new ServerController(output, tracker, reviews, view);
  controller = server;
  context.subscriptions.push(
    output,
    reviews,
    view,
    tracker,
    vscode.commands.registerCommand(OPEN_RECEIPT_COMMAND, (receipt: unknown) =>
      typeof receipt === "string" ? openReceipt(receipt) : undefined,
    ),
    vscode.commands.registerCommand(SHOW_RUNS_COMMAND, () => view.reveal()),
    vscode.commands.registerCommand(REVOKE_COMMAND, (command: unknown) => revokeAllowed(command)),
    server,
    vscode.commands.registerCommand(FIX_THIS_COMMAND, () => fixThis(server, tracker)),
    vscode.commands.registerCommand(CANCEL_RUN_COMMAND, () => cancelRuns(tracker)),
    vscode.commands.registerCommand(SHOW_OUTPUT_COMMAND, () => {
      output.show();
    }),
    vscode.commands.registerCommand(RESTART_COMMAND, () => server.restart()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (needsRestart((section) => event.affectsConfiguration(section))) {
        void server.settingsChanged();
      }
    }),
  );
  void server.start();
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}

async function fixThis(server: ServerController, tracker: RunTracker): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined) {
    void vscode.window.showWarningMessage("Rune: open a file and select the code to fix first.");
    return;
  }
  const document = editor.document;
  if (document.uri.scheme !== "file") {
    void vscode.window.showWarningMessage("Rune: save this file first; Rune works on files on disk.");
    return;
  }
  const client = server.client;
  if (client === undefined || !client.isRunning()) {
    const choice = await vscode.window.showErrorMessage(
      "Rune: the language server is not running.",
      "Restart Server",
    );
    if (choice !== undefined) {
      await server.restart();
    }
    return;
  }
  const instruction = await askInstruction();
  if (instruction === undefined) {
    return;
  }
  const converter = client.code2ProtocolConverter;
  const selection = editor.selection;
  const range = effectiveRange(
    converter.asRange(selection),
    document.lineAt(selection.active.line).text.length,
  );
  const diagnostics = await converter.asDiagnostics(vscode.languages.getDiagnostics(document.uri));
  await tracker.fixThis(buildFixArgs(converter.asUri(document.uri), range, instruction, diagnostics));
}

async function cancelRuns(tracker: RunTracker): Promise<void> {
  const cancelled = await tracker.cancelAll();
  if (cancelled === 0) {
    void vscode.window.showInformationMessage("Rune: no run in progress.");
  }
}
