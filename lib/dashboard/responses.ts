/**
 * The dashboard's responses (every one with the same no-store, nosniff, no-referrer, no-frame
 * headers; the page's assets with its content security policy) and the reads of a request's
 * body and query that refuse what is out of bounds (`ActionRefused`, answered 400).
 */
import { readCapped } from "../core/bytes.ts";
import { ActionRefused } from "./actions.ts";

/** Largest request body read (an action is a few hundred bytes). */
export const MAX_BODY_BYTES = 64 * 1024;

export const COMMON_HEADERS: Record<string, string> = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-resource-policy": "same-origin",
};

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: { ...COMMON_HEADERS, "content-type": "text/plain; charset=utf-8", ...headers },
  });
}

export function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { ...COMMON_HEADERS, "content-type": "application/json; charset=utf-8" },
  });
}

export function asset(body: string, type: string): Response {
  return new Response(body, {
    headers: { ...COMMON_HEADERS, "content-type": type, "content-security-policy": CSP },
  });
}

export async function readBody(req: Request): Promise<unknown> {
  const type = req.headers.get("content-type") ?? "";
  if (!type.startsWith("application/json")) {
    throw new ActionRefused("Send the action as application/json");
  }
  if (!req.body) throw new ActionRefused("The request has no body");
  const all = await readCapped(req.body, MAX_BODY_BYTES);
  if (all === null) throw new ActionRefused(`The request body is over ${MAX_BODY_BYTES} bytes`);
  try {
    return JSON.parse(new TextDecoder().decode(all));
  } catch {
    throw new ActionRefused("The request body is not valid JSON");
  }
}

export function intParam(url: URL, name: string, min: number, max: number): number | null {
  const v = url.searchParams.get(name);
  if (v === null) return null;
  if (!/^\d{1,15}$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new ActionRefused(`${name} must be an integer from ${min} to ${max}, got "${v}"`);
  }
  return Number(v);
}
