/**
 * The server's question before a command the agent wants to run (`rune/approveCommand`, or
 * `window/showMessageRequest` from an older server).
 * Not a modal: a quick pick that leaves the window usable, while the Rune view shows the whole
 * command with its control characters made visible. The server's cancellation of its request
 * (it stopped waiting: timeout, the run ended) closes the prompt. "Always allow in this
 * workspace" adds the exact command to `rune.allowedCommands` in the workspace settings, which
 * the Rune view lists with a Revoke link each.
 */

import * as vscode from "vscode";
import type { CancellationToken, MessageActionItem } from "vscode-languageclient/node";
import { allowedList, RUN_ACTIONS, type RunPrompt, visibleControls, withAllowed, withoutAllowed } from "./commandText";
import type { RunView } from "./runView";

export const ALLOWED_COMMANDS = "allowedCommands";
export const REVOKE_COMMAND = "rune.revokeAllowedCommand";

/** What the user decided, as `rune/approveCommand` answers it (/work/notes/vscode-protocol.md). */
export type Decision = "run" | "allowForRun" | "allowAlways" | "deny";

const CHOICES: readonly { readonly decision: Decision; readonly label: string; readonly description: string }[] = [
  { decision: "run", label: RUN_ACTIONS.once, description: "run it this once" },
  { decision: "allowForRun", label: RUN_ACTIONS.run, description: "run it, and this exact command again without asking until the run ends" },
  { decision: "allowAlways", label: RUN_ACTIONS.workspace, description: "run it, and add it to rune.allowedCommands in this workspace's settings" },
  { decision: "deny", label: RUN_ACTIONS.deny, description: "do not run it; the model is told" },
];

/**
 * `rune/approveCommand {runId, command, cwd, waitSeconds}` -> `{decision}`. A malformed request
 * is denied (nothing runs on a question the client could not read).
 */
export async function approveCommand(
  params: unknown,
  token: CancellationToken,
  output: vscode.LogOutputChannel,
  view: RunView,
): Promise<{ decision: Decision; reason?: string }> {
  const raw = typeof params === "object" && params !== null ? (params as Record<string, unknown>) : {};
  if (typeof raw.command !== "string") {
    output.warn(`rune/approveCommand without a command string: ${JSON.stringify(params)}; denied`);
    return { decision: "deny", reason: "the editor could not read the request" };
  }
  const prompt = { command: raw.command, cwd: typeof raw.cwd === "string" ? raw.cwd : "" };
  const decision = await ask(prompt, CHOICES.map((choice) => choice.decision), token, view, output);
  if (token.isCancellationRequested) {
    return { decision: "deny", reason: "the server stopped waiting" };
  }
  return decision === undefined ? { decision: "deny", reason: "the user dismissed the prompt" } : { decision };
}

/**
 * The older `window/showMessageRequest` form of the same question: its actions are offered by
 * title (`Run`, `Allow for this run`, `Always allow in this workspace`, `Deny`, whichever the
 * server sends); the chosen action is the answer, null when dismissed or withdrawn.
 */
export async function askToRun(
  prompt: RunPrompt,
  actions: readonly MessageActionItem[],
  token: CancellationToken,
  view: RunView,
  output: vscode.LogOutputChannel,
): Promise<MessageActionItem | null> {
  const byDecision = new Map<Decision, MessageActionItem>();
  for (const choice of CHOICES) {
    const action = actions.find((candidate) => candidate.title === choice.label);
    if (action !== undefined) {
      byDecision.set(choice.decision, action);
    }
  }
  const decision = await ask(prompt, [...byDecision.keys()], token, view, output);
  if (token.isCancellationRequested) {
    return null;
  }
  return byDecision.get(decision ?? "deny") ?? null;
}

/** The quick pick: resolves with the decision, undefined when dismissed or withdrawn by the server. */
async function ask(
  prompt: RunPrompt,
  offered: readonly Decision[],
  token: CancellationToken,
  view: RunView,
  output: vscode.LogOutputChannel,
): Promise<Decision | undefined> {
  const shown = visibleControls(prompt.command);
  view.asking(prompt);
  void view.reveal();
  const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { decision: Decision }>();
  pick.title = `Rune wants to run: ${shown}`;
  pick.placeholder = `in ${prompt.cwd || "the workspace"}. The whole command is in the Rune view. Escape denies.`;
  pick.ignoreFocusOut = true;
  pick.items = CHOICES.filter((choice) => offered.includes(choice.decision)).map((choice) => ({
    label: choice.label,
    description: choice.description,
    decision: choice.decision,
  }));
  const chosen = await new Promise<Decision | undefined>((resolve) => {
    const done = (decision: Decision | undefined) => {
      listeners.dispose();
      pick.dispose();
      resolve(decision);
    };
    const listeners = vscode.Disposable.from(
      pick.onDidAccept(() => {
        done(pick.selectedItems[0]?.decision);
      }),
      pick.onDidHide(() => {
        done(undefined);
      }),
      token.onCancellationRequested(() => {
        output.info(`the server stopped waiting for an answer on "${shown}"; the prompt is closed, it was not run`);
        vscode.window.setStatusBarMessage(`Rune: stopped waiting to run ${shown}; it was not run.`, 8_000);
        done(undefined);
      }),
    );
    if (token.isCancellationRequested) {
      done(undefined);
      return;
    }
    pick.show();
  });
  view.asked();
  if (chosen === "allowAlways" && !token.isCancellationRequested) {
    // Written before the answer goes out, so the server's next pull of the settings has it.
    await allowInWorkspace(prompt.command);
  }
  return chosen;
}

async function allowInWorkspace(command: string): Promise<void> {
  const config = vscode.workspace.getConfiguration("rune");
  const current = allowedList(config.inspect(ALLOWED_COMMANDS)?.workspaceValue);
  await config.update(ALLOWED_COMMANDS, withAllowed(current, command), vscode.ConfigurationTarget.Workspace);
}

/** The Rune view's Revoke link: removes the command from the workspace's `rune.allowedCommands`. */
export async function revokeAllowed(command: unknown): Promise<void> {
  if (typeof command !== "string") {
    return;
  }
  const config = vscode.workspace.getConfiguration("rune");
  const current = allowedList(config.inspect(ALLOWED_COMMANDS)?.workspaceValue);
  await config.update(ALLOWED_COMMANDS, withoutAllowed(current, command), vscode.ConfigurationTarget.Workspace);
  vscode.window.setStatusBarMessage(`Rune: ${visibleControls(command)} is asked about again.`, 5_000);
}

/** The workspace's allowed commands, for the Rune view. */
export function allowedInWorkspace(): string[] {
  return allowedList(vscode.workspace.getConfiguration("rune").inspect(ALLOWED_COMMANDS)?.workspaceValue);
}
