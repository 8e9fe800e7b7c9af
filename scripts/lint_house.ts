/**
 * The house's size rules as lint rules, so `deno task check` keeps them: no file of lib/ or
 * workers/ over MAX_FILE_LINES lines, no function there over MAX_FUNCTION_LINES (methods,
 * arrows and function expressions too), and one over LONG_FUNCTION_LINES says why it is one
 * where it stands: `// deno-lint-ignore house/long-function -- <the reason>`. The two caps are
 * never waived (tests/lint_house_test.ts checks no ignore names them, and that every
 * long-function ignore gives its reason). Registered in deno.json's `lint.plugins`;
 * tests/lint_house_test.ts also runs it on sources of its own.
 */

/** The longest file of lib/ or workers/, in lines. */
export const MAX_FILE_LINES = 600;
/** The longest function of lib/ or workers/, in lines, its signature and closing brace included. */
export const MAX_FUNCTION_LINES = 120;
/** A function of lib/ or workers/ longer than this says why it is one (see the module comment). */
export const LONG_FUNCTION_LINES = 80;

/** Whether the rules hold for `filename` (lib/ and workers/ only: tests and scripts are free). */
function inHouse(filename: string): boolean {
  return /(^|\/)(lib|workers)\//.test(filename.replaceAll("\\", "/"));
}

function linesOf(text: string, start: number, end: number): number {
  let n = 1;
  for (let i = start; i < end; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/**
 * A rule reporting each function of lib/ or workers/ (declarations, expressions, arrows) of more
 * than `over` lines and at most `upTo`, with `hint`.
 */
function functionLengthRule(over: number, upTo: number, hint: string): Deno.lint.Rule {
  return {
    create(context) {
      if (!inHouse(context.filename)) return {};
      const check = (node: Deno.lint.Node) => {
        const [start, end] = node.range;
        const lines = linesOf(context.sourceCode.text, start, end);
        if (lines <= over || lines > upTo) return;
        context.report({
          node,
          message: `This function has ${lines} lines, more than ${over}`,
          hint,
        });
      };
      return {
        FunctionDeclaration: check,
        FunctionExpression: check,
        ArrowFunctionExpression: check,
      };
    },
  };
}

const plugin: Deno.lint.Plugin = {
  name: "house",
  rules: {
    "max-file-lines": {
      create(context) {
        if (!inHouse(context.filename)) return {};
        return {
          Program(node) {
            const text = context.sourceCode.text;
            const lines = linesOf(text, 0, text.length) - (text.endsWith("\n") ? 1 : 0);
            if (lines <= MAX_FILE_LINES) return;
            context.report({
              node,
              range: [0, 0],
              message: `This file has ${lines} lines, more than ${MAX_FILE_LINES}`,
              hint: "Split it by concern into files that each hold one subject",
            });
          },
        };
      },
    },
    "max-function-lines": functionLengthRule(
      MAX_FUNCTION_LINES,
      Infinity,
      "Cut it into steps with names",
    ),
    "long-function": functionLengthRule(
      LONG_FUNCTION_LINES,
      MAX_FUNCTION_LINES,
      "Cut it into steps with names, or say where it stands why it is one: " +
        "// deno-lint-ignore house/long-function -- <the reason>",
    ),
  },
};

export default plugin;
