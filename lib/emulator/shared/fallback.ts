/**
 * Why a UI call went over ADB instead of the emulator's gRPC endpoint: the reason every fast-path
 * result carries (lib/emulator/link.ts makes it in the UI worker; the tools render it). Plain data.
 */

/** Why a call went over ADB instead of gRPC. */
export interface Fallback {
  code:
    | "not_emulator"
    | "no_endpoint"
    | "jwt_auth"
    | "not_granted"
    | "unauthenticated"
    | "permission_denied"
    | "unimplemented"
    | "unavailable"
    | "deadline_exceeded"
    | "client_died"
    | "frame_too_large"
    | "bad_frame"
    | "grpc_error";
  reason: string;
}
