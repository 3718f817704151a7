/**
 * Which command starts the language server. Pure: the facts (settings, the Python extension's
 * interpreter, what is on PATH) are gathered by the caller, so the decision unit-tests without
 * VS Code.
 */

export interface DiscoveryFacts {
  /** `rune.server.path`, trimmed; empty when unset. */
  readonly configuredPath: string;
  /** `rune.server.args`. */
  readonly extraArgs: readonly string[];
  /** Whether `configuredPath` names an existing file. */
  readonly configuredPathExists: boolean;
  /** The interpreter selected in the Python extension, when that extension is present. */
  readonly pythonInterpreter?: string;
  /** Whether that interpreter can import `rune_lsp`. */
  readonly pythonHasRuneLsp: boolean;
  /** `rune-lsp` resolved on PATH, when found. */
  readonly runeLspOnPath?: string;
}

export type ServerSource = "setting" | "python" | "path";

export interface ServerLaunch {
  readonly kind: "launch";
  readonly command: string;
  readonly args: readonly string[];
  readonly source: ServerSource;
}

export interface DiscoveryFailure {
  readonly kind: "failure";
  readonly message: string;
}

export const NOT_FOUND_MESSAGE =
  "rune-lsp not found: pip install rune-lsp into your environment " +
  "(or select an interpreter that has it in the Python extension), or set rune.server.path.";

export function decideServer(facts: DiscoveryFacts): ServerLaunch | DiscoveryFailure {
  const extra = [...facts.extraArgs];
  if (facts.configuredPath !== "") {
    // An explicit setting is never second-guessed by falling back to something else: the user
    // would silently get a different server than the one they chose.
    if (!facts.configuredPathExists) {
      return {
        kind: "failure",
        message:
          `rune.server.path is set to ${facts.configuredPath}, which does not exist or is no file. ` +
          "Point it at the rune-lsp executable (e.g. .venv/bin/rune-lsp) or clear it.",
      };
    }
    return { kind: "launch", command: facts.configuredPath, args: extra, source: "setting" };
  }
  if (facts.pythonInterpreter !== undefined && facts.pythonHasRuneLsp) {
    return {
      kind: "launch",
      command: facts.pythonInterpreter,
      args: ["-m", "rune_lsp", ...extra],
      source: "python",
    };
  }
  if (facts.runeLspOnPath !== undefined) {
    return { kind: "launch", command: facts.runeLspOnPath, args: extra, source: "path" };
  }
  return { kind: "failure", message: NOT_FOUND_MESSAGE };
}

/** `name` resolved against a PATH string, using `isExecutable` to test each candidate. */
export function findOnPath(
  name: string,
  pathVariable: string | undefined,
  isExecutable: (candidate: string) => boolean,
  separator = ":",
  join: (dir: string, file: string) => string = (dir, file) => `${dir.replace(/\/+$/, "")}/${file}`,
): string | undefined {
  for (const dir of (pathVariable ?? "").split(separator)) {
    if (dir === "") {
      continue;
    }
    const candidate = join(dir, name);
    if (isExecutable(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

/** Why the chosen server did not start, and what to do: a configured path is named as such. */
export function startFailure(launch: ServerLaunch, error: string): string {
  if (launch.source === "setting") {
    return (
      `Rune: rune.server.path is set to ${launch.command}, which did not start: ${error}. ` +
      "Point it at the rune-lsp executable (e.g. .venv/bin/rune-lsp) or clear it."
    );
  }
  return (
    `Rune: the server did not start (${describeLaunch(launch)}): ${error}. ` +
    "Install it with pip install rune-lsp, or set rune.server.path."
  );
}

export function describeLaunch(launch: ServerLaunch): string {
  const how = {
    setting: "from rune.server.path",
    python: "with the Python extension's interpreter",
    path: "found on PATH",
  }[launch.source];
  return `${[launch.command, ...launch.args].join(" ")} (${how})`;
}
