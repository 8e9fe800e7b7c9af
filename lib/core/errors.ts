/**
 * Errors that stay in the process and become tool results (`isError: true`).
 *
 * `invalid_params` is a refusal before anything runs (bad, unknown or out-of-range arguments,
 * foreign packages, untrusted projects). Every other code names a failure of a valid call.
 * Structured clone across a worker boundary loses subclass and fields, so workers send
 * `toErrorData()` and the receiver rebuilds with `ToolError.from()`.
 */
export type ToolErrorCode =
  | "invalid_params"
  | "invalid_request"
  | "resource_not_found"
  | "device_not_found"
  | "device_offline"
  | "device_unauthorized"
  | "device_ambiguous"
  | "adb_unavailable"
  | "adb_error"
  | "timeout"
  | "cancelled"
  | "not_found"
  | "io_error"
  /** Another keynobi process holds the project's build lock. */
  | "build_busy"
  /** A Gradle build ran and failed (or could not be started by Gradle). */
  | "build_failed"
  /** The device's package manager refused an APK (`Failure [...]`), or it could not be sent. */
  | "install_failed"
  /** An app or an emulator did not start (`am start` error, emulator exited early). */
  | "launch_failed"
  /** A device command ran and reported a failure (`pm grant` refused, `pm clear` failed). */
  | "command_failed"
  /** The device serves another UI Automator client, or another keynobi process captures it. */
  | "device_busy"
  /** A handle or tree path from a screen that is no longer shown (the screen hash changed). */
  | "screen_changed"
  /** Our own bug or a broken invariant (for example a worker denied what its grant should cover). */
  | "internal_error";

export interface ToolErrorData {
  code: ToolErrorCode;
  message: string;
  data?: Record<string, unknown>;
}

export class ToolError extends Error {
  readonly code: ToolErrorCode;
  readonly data: Record<string, unknown> | undefined;

  constructor(
    code: ToolErrorCode,
    message: string,
    data?: Record<string, unknown>,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "ToolError";
    this.code = code;
    this.data = data;
  }

  toErrorData(): ToolErrorData {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  static from(data: ToolErrorData): ToolError {
    return new ToolError(data.code, data.message, data.data);
  }
}

/** A refusal before anything runs: the caller's arguments are wrong. */
export function invalidParams(message: string, data?: Record<string, unknown>): ToolError {
  return new ToolError("invalid_params", message, data);
}

export function isToolError(e: unknown): e is ToolError {
  return e instanceof ToolError;
}

/**
 * Whether `e` is what the file system says when a file or folder was moved or removed while it was
 * being read (a folder renamed mid-walk): not our bug, and nothing the caller did wrong. Pure.
 */
export function isFileSystemChange(e: unknown): boolean {
  return e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory;
}
