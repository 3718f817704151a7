/**
 * The `rune` settings section as the server should see it. VS Code hands over every key of the
 * section, including the client-only `server.*` and `review.*` keys and empty strings that mean "not set"
 * (e.g. `baseUrl` = provider default); the server validates each key and would warn about an
 * empty URL, so those become `null`, which the server reads as "keep the default".
 */

/** Keys only this extension reads: how to start the server and how edits are reviewed. */
const CLIENT_ONLY = new Set(["server", "review"]);

/**
 * `isSet(key)` says whether the user set a key (any scope): a `provider` left at its default is
 * sent as `null`, so the server knows it may offer its own local model when Ollama is not running.
 */
export function serverSettings(
  section: unknown,
  isSet: (key: string) => boolean = () => true,
): Record<string, unknown> | null {
  if (typeof section !== "object" || section === null || Array.isArray(section)) {
    return null;
  }
  const cleaned: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(section)) {
    if (CLIENT_ONLY.has(key)) {
      continue;
    }
    if (key === "provider" && !isSet(key)) {
      cleaned[key] = null;
      continue;
    }
    cleaned[key] = typeof value === "string" && value.trim() === "" ? null : value;
  }
  return cleaned;
}

/** Whether a settings change may mean the server process must be started again. */
export function needsRestart(affects: (section: string) => boolean): boolean {
  return affects("rune.server");
}

/** `rune.server.path` and `rune.server.args` as they were read to start the server. */
export interface LaunchSettings {
  readonly path: string;
  readonly args: readonly string[];
}

/**
 * Whether the server must be started again after a change of `rune.server.*`: the path or the
 * arguments differ from those it was started with, or it is not running (a path that was wrong
 * and is saved again, fixed or not, is tried again). A save that changed neither leaves a
 * running server alone.
 */
export function launchChanged(started: LaunchSettings | undefined, now: LaunchSettings, running: boolean): boolean {
  if (started === undefined || !running) {
    return true;
  }
  return started.path !== now.path || started.args.length !== now.args.length || started.args.some((arg, i) => arg !== now.args[i]);
}
