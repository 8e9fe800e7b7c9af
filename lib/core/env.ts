/** The environment as the program reads it; tests pass a plain map instead of `Deno.env`. */
export interface Env {
  get(name: string): string | undefined;
}

export const processEnv: Env = { get: (name) => Deno.env.get(name) };

export function mapEnv(values: Record<string, string | undefined>): Env {
  return { get: (name) => values[name] };
}
