/**
 * Prompts: short recipes that name the tools to call in order. A prompt is served only when every
 * tool it names is served by this session, so no prompt ever points at a tool the model cannot call.
 */

interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
}

export interface PromptDef {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
  /** Every tool the rendered text names, checked against the registry by tests. */
  tools: string[];
  render(args: Record<string, string>): string;
}
